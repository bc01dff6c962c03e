"""The public LoCoMo file as a cheater reads it, and LoCoMo's smoke slice as a run puts it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memrank.evaluation import Evaluation
from memrank.evaluations import locomo
from tests.integrity.hostile import PublicLocomo


@pytest.fixture(scope="session")
def public(shared_data: Path) -> PublicLocomo:
    return PublicLocomo(shared_data / "locomo" / "locomo10.json")


@pytest.fixture(scope="session")
def smoke(shared_data: Path) -> Evaluation:
    return locomo("smoke", path=shared_data / "locomo")
