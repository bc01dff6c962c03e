"""Knowledge flows one way: the walls of docs/architecture.md, read from the code.

Every import counts, wherever it is written: at the top, inside a function, or under
``TYPE_CHECKING`` (a type-only import still makes two modules that must be read together).
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memrank"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "utilities",
        (
            "memrank.errors",
            "memrank._errors",
            "memrank._basics",
            "memrank._files",
            "memrank._unicode_security",
            "memrank._collector",
            "memrank._forked",
            "memrank._inflight",
            "memrank._lazy",
            "memrank.tokenizer",
            "memrank.stats",
        ),
    ),
    (
        "vocabulary",
        (
            "memrank.system",
            "memrank.task",
            "memrank.budget",
            "memrank.trace",
            "memrank.measure",
            "memrank.evaluation",
            "memrank._records",
            "memrank.integrity.record",
            "memrank.result",
        ),
    ),
    (
        "parts",
        (
            "memrank.measures",
            "memrank.systems",
            "memrank.evaluations",
            "memrank.wire.schema",
            "memrank.wire.answers",
            "memrank.answer",
            "memrank.integrity",
            "memrank.provenance",
            "memrank.reruns",
            "memrank._pair_sides",
            "memrank._paired_reading",
            "memrank.paired",
            "memrank.catalog",
        ),
    ),
    (
        "running",
        (
            "memrank._units",
            "memrank._drive",
            "memrank._run_check",
            "memrank._apply",
            "memrank.run",
            "memrank.wire",
            "memrank._system_options",
        ),
    ),
    ("publishing", ("memrank.artifacts", "memrank.board")),
    ("orchestrating", ("memrank.runs", "memrank.view")),
    ("command line", ("memrank.cli", "memrank.__main__", "memrank")),
)
"""Bottom first: a module may import its own layer's and the layers' below, never above.
A name stands for the module and everything under it; the longest name that covers a
module places it (``memrank.wire.schema`` below the rest of ``memrank.wire``)."""


def _module_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each module of the package, with the package's modules it imports anywhere."""
    modules = {_module_of(path): path for path in PACKAGE.rglob("*.py")}
    found: dict[str, set[str]] = {}
    for module, path in modules.items():
        named: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                named.add(node.module)
                named.update(f"{node.module}.{alias.name}" for alias in node.names)
        found[module] = {name for name in named if name in modules and name != module}
    return found


def _layer(module: str) -> int:
    best, at = -1, -1
    for index, (_, names) in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(f"{name}.")) and len(name) > best:
                best, at = len(name), index
    assert at >= 0, f"{module} is in no layer: place it in LAYERS and docs/architecture.md"
    return at


IMPORTS = _imports()


def test_no_module_imports_a_higher_layer() -> None:
    upward = [
        f"{module} ({LAYERS[_layer(module)][0]}) imports {name} ({LAYERS[_layer(name)][0]})"
        for module, names in sorted(IMPORTS.items())
        for name in sorted(names)
        if _layer(name) > _layer(module)
    ]
    assert upward == []


def test_no_import_circle_type_only_imports_included() -> None:
    graph = {
        module: {n for n in names if not module.startswith(f"{n}.")}
        for module, names in IMPORTS.items()
    }
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as circle:
        pytest.fail(f"import circle: {' -> '.join(circle.args[1])}")


@pytest.mark.parametrize(
    ("low", "high"),
    [
        ("memrank.board", "memrank.run"),
        ("memrank.board", "memrank.systems"),
        ("memrank.board", "memrank.evaluations"),
        ("memrank.measures", "memrank.systems"),
        ("memrank.systems", "memrank.evaluations"),
    ],
)
def test_the_walls_docs_architecture_names(low: str, high: str) -> None:
    # the board never runs anything; a measure never calls a system; systems never read a
    # benchmark's material
    crossing = [
        f"{module} imports {name}"
        for module, names in IMPORTS.items()
        if module == low or module.startswith(f"{low}.")
        for name in names
        if name == high or name.startswith(f"{high}.")
    ]
    assert crossing == []


def test_the_architecture_page_lists_the_layers_in_this_order() -> None:
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    positions = [page.find(f"**{title}**") for title, _ in LAYERS]
    assert -1 not in positions, "docs/architecture.md names each layer in bold"
    assert positions == sorted(positions)
