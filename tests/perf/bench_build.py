"""Benchmark: `memrank build-site` over 2,000 synthetic signed runs, as a ratio to verifying them.

The baseline is verify_directory over the same artifacts folder (what `memrank verify` does):
the floor of any build, which must verify before it shows anything. The build is the whole
command in this process: verify, parse each result file into a Result, rank, read every pair
of runs side by side (memrank.paired, 10,000 bootstrap resamples where a measure is
continuous), render every page and write the site. Target: at most 2x.

Growth: the same build at 500 and at 2,000 artifacts. The artifacts are spread as a real board
grows, over more evaluations rather than ever more systems per evaluation: 10 systems per
evaluation, so runs and pair pages both grow with the artifact count (pairs are quadratic in the
systems of one evaluation version, a number this holds fixed). Linear means the per-artifact
time stays flat.

Also printed: verifying plus parsing every result file into a typed Result (which the board
needs for values, ranks and pairs, and verify alone skips), as a second baseline.

Each run has 40 tasks with binary word-match values drawn per system, in 8 groups.
Run: uv run python tests/perf/bench_build.py [artifacts ...]   (default 500 2000)
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import memrank
from memrank import Clearing, Document, Evaluation, Expected, Task, Value
from memrank.artifacts import Root, attest, load_trust, sign_root, verify_directory, write_root
from memrank.board.site import make, write
from memrank.result import Result
from tests.artifacts.conftest import LONG_AGO, NOW, as_installed

REPOSITORY = Path(__file__).parents[2]
SYSTEMS_PER_EVALUATION = 10
TASKS = 40
COLUMNS = 5


def evaluation(number: int) -> Evaluation:
    tasks = tuple(
        Task(
            id=f"t{i:02d}",
            prompt=f"What colour is gadget {i}?",
            group=f"g{i % 8}",
            context=(Document(id=f"d{i}", content=f"Gadget {i} is painted colour{i}."),),
            expected=Expected(required_spans=(f"colour{i}",), evidence_doc_ids=(f"d{i}",)),
        )
        for i in range(TASKS)
    )
    return Evaluation(
        name=f"synthetic-{number:03d}",
        version="synthetic@v1",
        tasks=tasks,
        measures=(memrank.WordMatch(),),
        clearing=Clearing.PER_GROUP,
    )


def system_run(base: Result, system: int, rng: random.Random) -> Result:
    """The base run as if system ``system`` had run it, its word-match values redrawn."""
    skill = 0.3 + 0.06 * system
    values = tuple(
        Value(
            measure=v.measure,
            decider=v.decider,
            task_id=v.task_id,
            value=float(rng.random() < skill),
            why="drawn for the benchmark",
        )
        if v.measure == "word-match"
        else v
        for v in base.values
    )
    return base.model_copy(
        update={
            "system": base.system.model_copy(
                update={"name": f"System{system:02d}", "version": "1.0"}
            ),
            "values": values,
        }
    )


def board_toml() -> str:
    columns = "".join(
        f'\n[[tracks.textual.columns]]\nevaluation = "synthetic-{n:03d}"\n'
        f'version = "synthetic@v1"\ntitle = "S{n}"\nmeasure = "word-match"\n'
        'direction = "higher"\n'
        for n in range(COLUMNS)
    )
    return (
        '[site]\ntitle = "bench"\ndescription = "synthetic"\n'
        'base_url = "https://example.org/"\n\n'
        '[tracks.textual]\ntitle = "Textual"\ndescription = "synthetic"\n'
        + columns
        + '\n[tracks.coding]\ntitle = "Coding"\ndescription = "none yet"\n'
    )


def make_artifacts(directory: Path, count: int) -> None:
    rng = random.Random(0)
    root_key, release_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    root = Root.first(
        [root_key.public_key()],
        [release_key.public_key()],
        root_threshold=1,
        release_threshold=1,
        expires=NOW + timedelta(days=30),
        valid_from=LONG_AGO,
    )
    runs = []
    for number in range(count // SYSTEMS_PER_EVALUATION):
        base = as_installed(memrank.run(memrank.system("word-overlap"), evaluation(number)))
        root = root.pinning("textual", base)
        runs += [system_run(base, s, rng) for s in range(SYSTEMS_PER_EVALUATION)]
    write_root(directory / "root.json", sign_root(root, [root_key]))
    (directory / "board.toml").write_text(board_toml())
    for position, run in enumerate(runs):
        division = "open-source" if position % 3 else "commercial"
        issued = run.finished + timedelta(seconds=position)
        attest(run, "textual", division, release_key, artifacts=directory, issued_at=issued)


def verify_only(artifacts: Path, *, typed: bool = False) -> float:
    """Verifying every artifact; with ``typed``, also parsing each result file into a Result."""
    start = time.perf_counter()
    verification = verify_directory(artifacts, load_trust(artifacts / "root.json"))
    if typed:
        for run in verification.runs:
            assert run.result.values
    took = time.perf_counter() - start
    assert not verification.refusals
    return took


def build_site(artifacts: Path, out: Path) -> tuple[float, int]:
    start = time.perf_counter()
    tree = make(artifacts, None, REPOSITORY / "docs").tree
    write(tree, out)
    return time.perf_counter() - start, len(tree)


def main(counts: list[int]) -> None:
    seconds = {}
    for count in counts:
        with tempfile.TemporaryDirectory() as folder:
            artifacts = Path(folder) / "artifacts"
            make_artifacts(artifacts, count)
            verified = min(verify_only(artifacts) for _ in range(2))
            typed = min(verify_only(artifacts, typed=True) for _ in range(2))
            built, files = build_site(artifacts, Path(folder) / "site")
            seconds[count] = built
            print(
                f"{count:>5} artifacts: verify {verified:6.2f} s, build-site {built:6.2f} s "
                f"({files} files), ratio {built / verified:4.2f}x (target <= 2x), "
                f"{built / count * 1000:5.1f} ms per artifact"
            )
            print(
                f"{'':>5}            verify + typed results {typed:6.2f} s: build-site is "
                f"{built / typed:4.2f}x that"
            )
    if len(counts) >= 2:
        small, large = counts[0], counts[-1]
        print(
            f"growth {small} -> {large} artifacts: build time x{seconds[large] / seconds[small]:.2f} "
            f"for x{large / small:.2f} the artifacts (linear: the same)"
        )


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [500, 2000])
