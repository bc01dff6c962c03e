"""memrank's own clock and bookkeeping: latency percentiles and the failure rate."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from memrank.measure import Decider, Measure, Scope, Value
from memrank.trace import Trace

__all__ = ["FailureRate", "Latency"]


_STEPS = ("ingest", "retrieve")
_PERCENTS = (50, 95)


def nearest_rank(samples: Sequence[float], percent: float) -> float:
    """The nearest-rank percentile: always a sample that was actually observed."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


class Latency(Measure):
    """p50 and p95 of ingest and retrieve, in milliseconds on memrank's clock, each named."""

    name, scope, reads, decider = "latency", Scope.RUN, ("timings_ms",), Decider.MEMRANK
    produces = tuple(f"latency.{step}.p{p}" for step in _STEPS for p in _PERCENTS)

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        produced = []
        for step in _STEPS:
            samples = [t.timings_ms[step] for t in traces if step in t.timings_ms]
            for percent in _PERCENTS:
                name = f"latency.{step}.p{percent}"
                if samples:
                    value: float | None = nearest_rank(samples, percent)
                    why = f"milliseconds, memrank's own clock, over {len(samples)} sample(s)"
                else:
                    value, why = (
                        None,
                        f"no {step} completed in this run, so there is nothing to time",
                    )
                produced.append(Value(measure=name, decider=self.decider, value=value, why=why))
        return produced


class FailureRate(Measure):
    """The share of traces that carry an error, with the steps they broke at."""

    name, scope, reads, decider = "failure-rate", Scope.RUN, ("error",), Decider.MEMRANK

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        if not traces:
            return [
                Value(
                    measure=self.name, decider=self.decider, value=None, why="the run has no traces"
                )
            ]
        steps = Counter(t.error.step.value for t in traces if t.error is not None)
        failed = sum(steps.values())
        why = f"{failed} of {len(traces)} traces carry an error"
        if steps:
            why += " (" + ", ".join(f"{step}: {n}" for step, n in sorted(steps.items())) + ")"
        return [
            Value(
                measure=self.name,
                decider=self.decider,
                value=failed / len(traces),
                why=why,
                count=failed,
                total=len(traces),
            )
        ]
