"""The committed board: its artifacts verify, cover what ships, and site/ is what they build."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest
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


@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64"), reason="the kernels named are x86-64's"
)
def test_a_processor_whose_blas_sums_in_another_order_builds_the_same_site() -> None:
    """OpenBLAS picks its kernels by processor (here told to take the oldest); a board
    rebuilt elsewhere, by a maintainer's workflow or a stranger, publishes the same bytes."""
    checked = subprocess.run(
        [sys.executable, "-m", "memrank", "build-site", "--check", "--strict", "--no-cache"]
        + ["--artifacts", str(ARTIFACTS), "--docs", str(DOCS), "--out", str(REPOSITORY / "site")],
        env={**os.environ, "OPENBLAS_CORETYPE": "Prescott"},
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPOSITORY,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


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
