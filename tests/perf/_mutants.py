"""The mutants of a module, made on its syntax tree, and the ones docs/testing.md lists as
equivalent (tests/perf/mutation.py runs them).

The kinds are mutmut's: arithmetic, bitwise and augmented operators swapped (+ -, * /, ** *,
// /, | &), each comparison moved (< <=, > >=, == !=, is / is not, in / not in), and / or
swapped, not, unary minus and ~ dropped, an integer plus one, a float times 1.1 (0.0 becomes
1.0), True / False swapped, an identifier-like string wrapped in XX, min / max, minimum /
maximum and any / all swapped, break / continue swapped. Docstrings, annotations, ``__all__``,
imports and the text of f-strings (messages) are left alone.
"""

from __future__ import annotations

import ast
import copy
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType

__all__ = ["Mutant", "compiled", "equivalents", "mutants"]

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "testing.md"

_SWAPPED_OPERATORS: dict[type[ast.AST], type[ast.AST]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.Pow: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.BitOr: ast.BitAnd,
    ast.BitAnd: ast.BitOr,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.And: ast.Or,
    ast.Or: ast.And,
}
_SWAPPED_NAMES = {"min": "max", "max": "min", "minimum": "maximum", "maximum": "minimum"}
_SWAPPED_NAMES |= {"any": "all", "all": "any"}
_IDENTIFIER_LIKE = re.compile(r"[A-Za-z_][\w\-@.:/]*")


@dataclass
class Mutant:
    """One change to a module: ``new`` put in place of ``old`` in ``parent``'s ``field``."""

    module: str
    tree: ast.Module
    """The module's syntax tree, which ``parent`` is part of."""
    line: int
    code: str
    """The source line the change starts on, stripped (of a trailing comment too)."""
    before: str
    after: str
    parent: ast.AST
    field: str
    index: int | None
    old: ast.AST
    new: ast.AST
    occurrence: int = 1
    """Which of the same change on the same line this is (1 unless the line repeats it)."""

    @property
    def key(self) -> tuple[str, str, str, str, int]:
        return (self.module, self.code, self.before, self.after, self.occurrence)

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: `{self.before}` -> `{self.after}`   in  {self.code}"


def _replacements(node: ast.AST) -> Iterator[ast.AST]:
    """What ``node`` may be replaced with, one mutant each."""
    if isinstance(node, (ast.BinOp, ast.AugAssign, ast.BoolOp)) and type(node.op) in (
        _SWAPPED_OPERATORS
    ):
        swapped = copy.copy(node)
        swapped.op = _SWAPPED_OPERATORS[type(node.op)]()
        yield swapped
    elif isinstance(node, ast.Compare):
        for position, operator in enumerate(node.ops):
            moved = copy.copy(node)
            moved.ops = [*node.ops]
            moved.ops[position] = _SWAPPED_OPERATORS[type(operator)]()
            yield moved
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub, ast.Invert)):
        yield node.operand
    elif isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            yield ast.Constant(not value)
        elif isinstance(value, int):
            yield ast.Constant(value + 1)
        elif isinstance(value, float):
            yield ast.Constant(value * 1.1 if value else 1.0)
        elif isinstance(value, str) and _IDENTIFIER_LIKE.fullmatch(value):
            yield ast.Constant(f"XX{value}XX")
    elif isinstance(node, ast.Name) and node.id in _SWAPPED_NAMES:
        yield ast.Name(_SWAPPED_NAMES[node.id], node.ctx)
    elif isinstance(node, ast.Attribute) and node.attr in _SWAPPED_NAMES:
        yield ast.Attribute(node.value, _SWAPPED_NAMES[node.attr], node.ctx)
    elif isinstance(node, ast.Break):
        yield ast.Continue()
    elif isinstance(node, ast.Continue):
        yield ast.Break()


def _left_alone(parent: ast.AST, field: str, child: ast.AST) -> bool:
    """Docstrings, annotations, ``__all__``, imports and the text of f-strings."""
    if isinstance(parent, ast.JoinedStr) or field in ("annotation", "returns"):
        return True
    if isinstance(child, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(child, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in child.targets
    ):
        return True
    # a bare string statement is a docstring (a module's, a class's, a function's or an attribute's)
    return isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant)


def mutants(module: str) -> list[Mutant]:
    """Every mutant of ``module`` (a path from the repository root), in source order."""
    source = (ROOT / module).read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    found: list[Mutant] = []

    def walk(parent: ast.AST) -> None:
        for field, value in ast.iter_fields(parent):
            children = value if isinstance(value, list) else [value]
            for position, child in enumerate(children):
                if not isinstance(child, ast.AST) or _left_alone(parent, field, child):
                    continue
                for new in _replacements(child):
                    ast.copy_location(new, child)
                    line = getattr(child, "lineno", 0)
                    found.append(
                        Mutant(
                            module=module,
                            tree=tree,
                            line=line,
                            code=lines[line - 1].split("  # ")[0].strip(),
                            before=ast.unparse(child),
                            after=ast.unparse(new),
                            parent=parent,
                            field=field,
                            index=position if isinstance(value, list) else None,
                            old=child,
                            new=new,
                        )
                    )
                walk(child)

    walk(tree)
    seen: Counter[tuple[str, str, str, str, int]] = Counter()
    for mutant in found:
        seen[mutant.key] += 1
        mutant.occurrence = seen[mutant.key]
    return found


def compiled(mutant: Mutant) -> CodeType:
    """The module's code with this one change (the tree is changed and put back)."""
    slot = getattr(mutant.parent, mutant.field)
    if mutant.index is None:
        setattr(mutant.parent, mutant.field, mutant.new)
    else:
        slot[mutant.index] = mutant.new
    try:
        return compile(ast.fix_missing_locations(mutant.tree), str(ROOT / mutant.module), "exec")
    finally:
        if mutant.index is None:
            setattr(mutant.parent, mutant.field, mutant.old)
        else:
            slot[mutant.index] = mutant.old


# -- what docs/testing.md lists as equivalent --------------------------------------------------


def equivalents() -> dict[tuple[str, str, str, str, int], str]:
    """The table under "Equivalent mutants" in docs/testing.md: key -> the reason."""
    listed: dict[tuple[str, str, str, str, int], str] = {}
    inside = False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            inside = line.strip() == "## Equivalent mutants"
        if not inside or not line.startswith("| `"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        module, code, change, reason = cells
        before, _, after = change.partition(" → ")
        occurrence = re.search(r"\((\d+)(?:st|nd|rd|th)\)$", after)
        if occurrence:
            after = after[: occurrence.start()].strip()
        listed[
            (
                f"memrank/{module.strip('`')}",
                code.strip("`"),
                before.strip("`"),
                after.strip("`"),
                int(occurrence.group(1)) if occurrence else 1,
            )
        ] = reason
    return listed
