"""The real engines (tests/engines/engines.sh): where they listen, and a fixture per engine that
fails under CI when the engine is not up (an acceptance check never passes by not running) and
skips elsewhere, saying how to start them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

START = "bash tests/engines/engines.sh setup && bash tests/engines/engines.sh up"


def engines_root() -> Path:
    given = os.environ.get("ENGINES_ROOT")
    if given:
        return Path(given)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "memrank" / "engines"


@dataclass(frozen=True)
class Engine:
    """One running engine: its URL, the variable memrank reads it from, and its server log."""

    name: str
    variable: str
    url: str
    log: Path


_HEALTH = {
    "MEM0_HTTP_URL": "/openapi.json",
    "HINDSIGHT_API_URL": "/health",
    "AML_BASE_URL": "/health",
}
_NAMES = {"MEM0_HTTP_URL": "mem0", "HINDSIGHT_API_URL": "hindsight", "AML_BASE_URL": "ami"}


def _listed() -> dict[str, str]:
    env_file = engines_root() / "run" / "engines.env"
    if not env_file.is_file():
        return {}
    pairs = (line.split("=", 1) for line in env_file.read_text().splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


def _engine(variable: str) -> Engine:
    url = _listed().get(variable)
    name = _NAMES[variable]
    problem = None
    if url is None:
        problem = f"{name} is not up (no {variable} in {engines_root() / 'run' / 'engines.env'})"
    else:
        try:
            httpx.get(url + _HEALTH[variable], timeout=10).raise_for_status()
        except httpx.HTTPError as exc:
            problem = f"{name} at {url} does not answer ({exc})"
    if problem is not None:
        message = f"{problem}; start the engines: {START}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    assert url is not None
    return Engine(name, variable, url, engines_root() / "log" / f"{name}.log")


@pytest.fixture(scope="session")
def mem0() -> Engine:
    return _engine("MEM0_HTTP_URL")


@pytest.fixture(scope="session")
def hindsight() -> Engine:
    return _engine("HINDSIGHT_API_URL")


@pytest.fixture(scope="session")
def ami() -> Engine:
    return _engine("AML_BASE_URL")
