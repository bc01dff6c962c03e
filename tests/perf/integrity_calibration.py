"""The canary test's false-positive rate and power, measured over seeded runs of honest systems.

Each honest system runs as an endpoint would (every name opaque, canaries planted from the
run's secret, recalled documents mapped back and checked), in-process so that a thousand runs
fit in an hour; each seed is one run's secret, so each run has fresh canaries at fresh places.
For every run this records the verdict (a suspect verdict is a false positive), and then reads
the same run as three cheaters would have produced it, to measure power:

- ``oracle, stores nothing``: every benchmark question answered with its gold turns from the
  public file (full credit on every valued task), every canary answered with nothing;
- ``oracle, honest fallback``: the same gold answers, and the honest system's own canary
  answers (a stealth server that stores and retrieves honestly and looks up what it can);
- ``fragments``: not simulated here; the share rule of the evidence measures disarms it.

Usage (the numbers in docs/integrity.md came from these):

    uv run python tests/perf/integrity_calibration.py --evaluation locomo --seeds 250
    uv run python tests/perf/integrity_calibration.py --evaluation locomo:smoke --seeds 250
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections.abc import Sequence

import memrank
from memrank.integrity.verdict import LEVEL, canary_test
from memrank.measure import Value
from memrank.trace import Trace
from tests.endpoints import AsEndpoint

SYSTEMS = ("word-overlap", "bm25", "hybrid", "fixed-context")


def _oracle(values: Sequence[Value], measure: str) -> list[Value]:
    """The benchmark values a gold-answering server gets: 1 on every task the measure valued."""
    return [
        v.model_copy(update={"value": 1.0}) if v.measure == measure and v.value is not None else v
        for v in values
    ]


def _nothing(traces: Sequence[Trace], values: Sequence[Value], measure: str) -> list[Value]:
    return [
        v.model_copy(update={"value": 0.0}) if v.measure == measure and v.value is not None else v
        for v in values
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--evaluation", default="locomo:smoke")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    args = parser.parse_args()
    evaluation = memrank.evaluation(args.evaluation)
    print(f"{args.evaluation}: {len(evaluation.tasks)} tasks; level {LEVEL}")
    print(
        f"{'system':<14} {'runs':>5} {'B':>6} {'C':>6} {'FP':>6} "
        f"{'power:nothing':>14} {'power:honest':>13} {'s/run':>6}"
    )
    for name in args.systems.split(","):
        suspects = stored_nothing = fallback = 0
        b_means, c_means = [], []
        began = time.perf_counter()
        for seed in range(args.seeds):
            secret = hashlib.sha256(f"calibration:{seed}".encode()).digest()[:16]
            result = memrank.run(AsEndpoint(memrank.system(name)), evaluation, secret=secret)
            integrity = result.integrity
            assert integrity is not None and integrity.test is not None
            test = integrity.test
            b_means.append(test.benchmark_mean or 0.0)
            c_means.append(test.canary_mean or 0.0)
            suspects += integrity.verdict == "suspect"
            unit_of = {
                t.task.id: t.given.unit if t.given else t.task.id
                for t in (*result.traces, *integrity.traces)
            }
            oracle = _oracle(result.values, test.measure)
            for canary_values, count in (
                (_nothing(integrity.traces, integrity.values, test.measure), "nothing"),
                (list(integrity.values), "honest"),
            ):
                read = canary_test(
                    test.measure,
                    result.traces,
                    oracle,
                    integrity.traces,
                    canary_values,
                    unit_of,
                )
                caught = read.p_value is not None and read.p_value < LEVEL
                if count == "nothing":
                    stored_nothing += caught
                else:
                    fallback += caught
        runs = args.seeds
        print(
            f"{name:<14} {runs:>5} {sum(b_means) / runs:>6.3f} {sum(c_means) / runs:>6.3f} "
            f"{suspects / runs:>6.3f} {stored_nothing / runs:>14.3f} {fallback / runs:>13.3f} "
            f"{(time.perf_counter() - began) / runs:>6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
