"""Fixtures of the evaluation tests, over the shared benchmark material (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import memrank
from memrank.evaluations._cache import DATA_DIR_VARIABLE

_VARIABLES = (
    DATA_DIR_VARIABLE,
    "MEMRANK_LOCOMO_FILE",
    "MEMRANK_LONGMEMEVAL_FILE",
    "MEMRANK_BEAM_DIR",
    "MEMRANK_MEM_GALLERY_DIR",
    "MEMRANK_MEM_GALLERY_IMAGES",
    "MEMRANK_MEMORYCODE_DIR",
)


@pytest.fixture(autouse=True)
def _no_outside_material(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads material from the environment it happened to be started in."""
    for variable in _VARIABLES:
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def data_dir(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """MEMRANK_DATA_DIR pointed at the shared copy, as a user would."""
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(shared_data))
    return shared_data


@pytest.fixture(scope="session")
def locomo_full(shared_data: Path) -> memrank.Evaluation:
    from memrank.evaluations import locomo

    return locomo(path=shared_data / "locomo")


@pytest.fixture(scope="session")
def locomo_smoke(shared_data: Path) -> memrank.Evaluation:
    from memrank.evaluations import locomo

    return locomo("smoke", path=shared_data / "locomo")
