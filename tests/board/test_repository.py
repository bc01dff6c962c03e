"""The committed board: its artifacts verify, cover what ships, and site/ is what they build."""

from __future__ import annotations

from click.testing import CliRunner

from memrank.artifacts import verify_directory
from memrank.catalog import catalog
from memrank.cli import main
from tests.board.conftest import DOCS, REPOSITORY, TEMPLATES

ARTIFACTS = REPOSITORY / "artifacts"


def test_the_committed_site_is_what_the_committed_artifacts_build() -> None:
    checked = CliRunner().invoke(
        main,
        [
            "build-site",
            "--check",
            "--strict",
            "--artifacts",
            str(ARTIFACTS),
            "--templates",
            str(TEMPLATES),
            "--docs",
            str(DOCS),
            "--out",
            str(REPOSITORY / "site"),
        ],
    )
    assert checked.exit_code == 0, checked.output + (
        "\nrebuild it: uv run memrank build-site (docs/board.md)"
    )


def test_every_offline_system_has_a_signed_baseline_on_every_offline_evaluation() -> None:
    verification = verify_directory(ARTIFACTS)
    assert verification.refusals == ()
    signed = {
        (run.predicate.system.declared_name, run.predicate.evaluation.name)
        for run in verification.runs
    }
    offline = [entry for entry in catalog().systems if "no network" in entry.needs]
    evaluations = [entry for entry in catalog().evaluations if "no network" in entry.needs]
    missing = [
        (system.name, evaluation.name)
        for system in offline
        for evaluation in evaluations
        if (system.name, evaluation.name) not in signed
    ]
    assert missing == [], (
        f"no signed baseline for {missing}: run docs/attest_baselines.py (README, The board)"
    )
