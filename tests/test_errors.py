"""The tree drawn in memrank.errors is the tree the classes form: names, parents, exit codes."""

from __future__ import annotations

import re

import memrank._errors
import memrank.errors
from memrank.errors import MemrankError

_DRAWN = re.compile(
    r"^(?P<indent>[ │├└─]*?)(?:[├└]── )?(?P<name>[A-Z]\w+)\s+(?:\(exit (?P<code>\d+)\))?"
)


def _drawing() -> list[tuple[str, str | None, int | None]]:
    """(name, drawn parent, drawn exit code) for each line of the tree in the docstring."""
    assert memrank.errors.__doc__ is not None
    lines = [line for line in memrank.errors.__doc__.splitlines() if line.startswith("    ")]
    drawn: list[tuple[str, str | None, int | None]] = []
    parents: dict[int, str] = {}
    for line in lines:
        found = _DRAWN.match(line[4:] + " ")
        assert found, f"a tree line that does not parse: {line!r}"
        depth = len(found["indent"]) + (4 if "──" in line else 0)
        parents[depth] = found["name"]
        parent = None if depth == 0 else parents[depth - 4]
        code = int(found["code"]) if found["code"] else None
        drawn.append((found["name"], parent, code))
    return drawn


def test_every_drawn_class_is_the_class_with_that_parent_and_exit_code() -> None:
    for name, parent, code in _drawing():
        cls = getattr(memrank.errors, name)
        assert issubclass(cls, MemrankError), name
        if parent is not None:
            assert cls.__bases__ == (getattr(memrank.errors, parent),), name
        if code is not None:
            assert cls.exit_code == code, name


def test_every_class_is_drawn_exported_and_documented() -> None:
    drawn = {name for name, _, _ in _drawing()}
    defined = {
        name
        for name, value in vars(memrank._errors).items()
        if isinstance(value, type) and issubclass(value, MemrankError)
    }
    assert defined == drawn
    assert set(memrank.errors.__all__) == defined
    assert all(getattr(memrank.errors, name).__doc__ for name in defined)


def test_an_exit_code_is_drawn_wherever_a_class_changes_it() -> None:
    for name, parent, code in _drawing():
        if parent is None:
            continue
        cls, base = getattr(memrank.errors, name), getattr(memrank.errors, parent)
        if cls.exit_code != base.exit_code:
            assert code == cls.exit_code, f"{name} exits {cls.exit_code} but the tree says nothing"
