"""MemoryCode's rule check over a piece of Python: which objects the code defines, and whether
each follows a coding instruction. Deterministic: no model decides.

The semantics are MemoryCode's own (``code/extract_objects.py`` and ``compute_score`` in
``code/evaluate_model_output.py`` at commit 1ab87e11), restated here:

- the code is the first fenced ```` ```python ```` block of the answer, else the first fenced
  block, else the whole answer; code that does not parse follows no rule (0);
- objects, each a list: a function (``def`` outside a class) gives ``function`` [name],
  ``function argument`` [its positional parameter names], ``function docstring``,
  ``function try`` and ``function assert`` (statements directly in its body),
  ``function annotation`` and ``function decorator`` [names]; a ``def`` inside a class is a
  method (likewise ``method ...``), except that ``__init__`` gives ``attribute`` [the names
  it assigns as ``self.<name> = ...``] and other dunder methods give nothing; a class gives
  ``class`` [name] and ``class decorator``; each name assigned gives ``variable`` [name];
  ``import`` lists the modules of ``import`` statements; ``comment`` is one list of the
  ``#`` comments;
- a rule checks one kind of object: ``True``/``False`` (every object has one / none does),
  ``[name, present]`` (each object holds ``name``, or not; for ``import`` and ``comment``,
  the list as a whole), or a regex every object's first entry must match from its start;
- no object of the kind (other than ``import`` and ``comment``) means the rule does not apply:
  None, never 0.
"""

from __future__ import annotations

import ast
import re
from typing import Any

__all__ = ["KINDS", "code_of", "follows", "objects_of"]

KINDS = (
    "function",
    "function argument",
    "function docstring",
    "function try",
    "function assert",
    "function annotation",
    "function decorator",
    "class",
    "class decorator",
    "method",
    "method docstring",
    "method try",
    "method assert",
    "method annotation",
    "method decorator",
    "attribute",
    "variable",
    "import",
    "comment",
)
_FENCED_PYTHON = re.compile(r"```python\n(.*?)```", re.DOTALL)
_FENCED = re.compile(r"```(.*?)```", re.DOTALL)
_COMMENT = re.compile(r"#.*")
_WHOLE_LISTS = ("comment", "import")
"""Kinds checked as one list rather than object by object, and checked even when empty."""


def code_of(answer: str) -> str:
    """The code in an answer: its first fenced python block, else first fenced block, else all."""
    found = _FENCED_PYTHON.findall(answer) or _FENCED.findall(answer)
    return str(found[0]) if found else answer


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
    names = []
    for decorator in node.decorator_list:
        while isinstance(decorator, ast.Call):
            decorator = decorator.func
        if isinstance(decorator, ast.Name):
            names.append(decorator.id)
        elif isinstance(decorator, ast.Attribute):
            names.append(decorator.attr)
    return names


def _assigned(node: ast.Assign | ast.AnnAssign) -> list[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names = []
    for target in targets:
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, ast.Tuple):
            names += [e.id for e in target.elts if isinstance(e, ast.Name)]
    return names


class _Objects(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: dict[str, list[Any]] = {kind: [] for kind in KINDS}
        self.in_class = False

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if not self.in_class:
            self._callable("function", node)
            self.found["function"].append([node.name])
            self.found["function argument"].append([a.arg for a in node.args.args])
        elif node.name == "__init__":
            self.found["attribute"].append(
                [
                    target.attr
                    for statement in node.body
                    if isinstance(statement, ast.Assign)
                    for target in statement.targets
                    if isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ]
            )
        elif not node.name.startswith("__"):
            self._callable("method", node)
            self.found["method"].append([node.name])
        self.generic_visit(node)

    def _callable(self, kind: str, node: ast.FunctionDef) -> None:
        docstring = ast.get_docstring(node)
        self.found[f"{kind} docstring"].append([docstring] if docstring else [])
        self.found[f"{kind} try"].append([s for s in node.body if isinstance(s, ast.Try)])
        self.found[f"{kind} assert"].append([s for s in node.body if isinstance(s, ast.Assert)])
        annotations = [a.annotation for a in node.args.args if a.annotation]
        self.found[f"{kind} annotation"].append(
            annotations + ([node.returns] if node.returns else [])
        )
        self.found[f"{kind} decorator"].append(_decorators(node))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.found["class"].append([node.name])
        self.found["class decorator"].append(_decorators(node))
        outer, self.in_class = self.in_class, True
        self.generic_visit(node)
        self.in_class = outer

    def visit_Assign(self, node: ast.Assign) -> None:
        self.found["variable"] += [[name] for name in _assigned(node)]
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.found["variable"] += [[name] for name in _assigned(node)]
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found["import"] += [alias.name for alias in node.names]
        self.generic_visit(node)


def objects_of(code: str) -> dict[str, list[Any]]:
    """The objects of each kind the code defines; raises SyntaxError when it does not parse."""
    visitor = _Objects()
    visitor.visit(ast.parse(code))
    visitor.found["comment"] = [_COMMENT.findall(code)]
    return visitor.found


def follows(objects: dict[str, list[Any]], kind: str, rule: Any) -> float | None:
    """1.0 when the objects of ``kind`` follow ``rule``, 0.0 when not, None when none exist."""
    found = objects[kind]
    if not found and kind not in _WHOLE_LISTS:
        return None
    if isinstance(rule, bool):
        present = [len(o) > 0 for o in found]
        return float(all(present) if rule else not any(present))
    if isinstance(rule, list):
        name, wanted = rule
        if kind in _WHOLE_LISTS:
            return float((name in found) == wanted)
        return float(all((name in o) == wanted for o in found))
    named = [o for o in found if len(o) > 0]
    # An empty selection is not followed: upstream's mean over nothing is NaN, never equal to 1.
    return float(bool(named) and all(re.match(rule, o[0]) for o in named))
