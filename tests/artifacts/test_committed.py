"""The committed artifacts/ keeps what the board reads and only small result files: the rest of
a run's result files live in the results store (docs/publishing.md)."""

from __future__ import annotations

from pathlib import Path

from memrank.artifacts import verify_directory

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
KEPT_IN_GIT = 1 << 20  # docs/attest_baselines.py keeps result files up to this size in git


def test_committed_result_files_are_small() -> None:
    large = [
        p.name for p in (ARTIFACTS / "results").glob("*.json") if p.stat().st_size > KEPT_IN_GIT
    ]
    assert not large, f"result files over 1 MiB belong in the results store: {large}"


def test_every_committed_run_has_its_scores_file_and_verifies() -> None:
    verification = verify_directory(ARTIFACTS)
    assert verification.ok, [r.reason for r in verification.refusals]
    assert {run.scores_path.parent.name for run in verification.runs} == {"scores"}
    for run in verification.runs:
        assert run.scores.evaluation.name == run.predicate.evaluation.name
