"""Every Python example in README.md runs unchanged and prints the output shown under it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).parents[1] / "README.md"
_BLOCK = re.compile(r"```python\n(?P<code>.*?)```\n\n```text\n(?P<out>.*?)```", re.S)
# memrank's clock differs on every machine and run; everything else must match exactly.
_LATENCY = re.compile(r"^(  latency\.\S+\s+)\d+\.\d{3}", re.M)


def _examples() -> list[tuple[str, str]]:
    return [(m["code"], m["out"]) for m in _BLOCK.finditer(README.read_text())]


def _mask(text: str) -> str:
    return _LATENCY.sub(r"\g<1>#.###", text)


def test_readme_has_the_examples() -> None:
    assert len(_examples()) >= 4


@pytest.mark.parametrize("code,expected", _examples(), ids=lambda s: s.splitlines()[0][:40])
def test_readme_example_prints_what_readme_shows(code: str, expected: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert _mask(done.stdout) == _mask(expected)
