"""The real benchmark material the evaluation tests read: a copy of shared/ beside the clone.

``MEMRANK_SHARED_DATA`` points elsewhere. When the material is missing the tests that need it
skip, saying where they looked; under CI (``CI`` set) they fail instead, so an acceptance
check can never pass by not running.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import memrank
from memrank.evaluations._cache import DATA_DIR_VARIABLE

SHARED_VARIABLE = "MEMRANK_SHARED_DATA"
_VARIABLES = (
    DATA_DIR_VARIABLE,
    "MEMRANK_LOCOMO_FILE",
    "MEMRANK_LONGMEMEVAL_FILE",
    "MEMRANK_BEAM_DIR",
)


@pytest.fixture(autouse=True)
def _no_outside_material(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads material from the environment it happened to be started in."""
    for variable in _VARIABLES:
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    given = os.environ.get(SHARED_VARIABLE)
    root = Path(given) if given else Path(__file__).resolve().parents[2].parent / "shared" / "data"
    if not (root / "locomo" / "locomo10.json").is_file():
        message = f"no benchmark material at {root}; set {SHARED_VARIABLE} to shared/data"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return root


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
