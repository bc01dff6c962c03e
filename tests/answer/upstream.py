"""The upstream files the prompt pins are checked against, and the string constants in them.

``tests/answer/upstream/`` holds whole source files as git stores them at a named commit
(``SOURCES.toml``: repository, path, commit, blob, sha256, licence). A constant is read out of
its file by Python's own parser, so the bytes compared are the upstream string's, escapes
resolved, never a copy typed from a rendering of it.
"""

from __future__ import annotations

import ast
import hashlib
import tomllib
from functools import cache
from pathlib import Path

__all__ = [
    "FOLDER",
    "UPSTREAM_FILES",
    "UPSTREAM_FSTRINGS",
    "UPSTREAM_JOINED",
    "UPSTREAM_PROMPTS",
    "constant",
    "fstring",
    "sources",
    "text_file",
]

FOLDER = Path(__file__).parent / "upstream"

UPSTREAM_PROMPTS: dict[str, tuple[str, str, int]] = {
    "mem0-answer": ("mem0-prompts.py.txt", "ANSWER_PROMPT", 0),
    "mem0-judge": ("mem0-llm_judge.py.txt", "ACCURACY_PROMPT", 0),
    "longmemeval-answer": ("longmemeval-run_generation.py.txt", "answer_prompt_template", 2),
    "longmemeval-judge-default": ("longmemeval-evaluate_qa.py.txt", "template", 0),
    "longmemeval-judge-temporal-reasoning": ("longmemeval-evaluate_qa.py.txt", "template", 1),
    "longmemeval-judge-knowledge-update": ("longmemeval-evaluate_qa.py.txt", "template", 2),
    "longmemeval-judge-single-session-preference": (
        "longmemeval-evaluate_qa.py.txt",
        "template",
        3,
    ),
    "longmemeval-judge-abstention": ("longmemeval-evaluate_qa.py.txt", "template", 4),
    "mem-gallery-question-image": ("mem-gallery-run_bench.py.txt", "DialogueAgentPromptImage", 0),
}
"""Prompt id -> (upstream file, the variable assigned, which assignment of it in file order)."""

UPSTREAM_FILES: dict[str, tuple[str, bool]] = {
    "mem-gallery-judge": ("mem-gallery-llm_judge.txt", False),
    "mem-gallery-system": ("mem-gallery-sys_prompt.txt", True),
    "mem-gallery-ar": ("mem-gallery-ar_prompt.txt", True),
    "mem-gallery-cd": ("mem-gallery-cd_prompt.txt", True),
    "mem-gallery-vs": ("mem-gallery-vs_prompt.txt", True),
}
"""Prompt id -> (upstream text file, whether upstream reads it stripped): Mem-Gallery's
evaluation.py reads its judge file whole, run_bench.py its prompt files with ``.strip()``."""

UPSTREAM_JOINED: dict[str, tuple[str, tuple[str, ...], str]] = {
    "mem-gallery-answer": (
        "mem-gallery-run_bench.py.txt",
        ("TextMsgPrompt", "DialogueAgentPrompt"),
        "{question_image}",
    ),
}
"""Prompt id -> (upstream file, the constants sent one after another, memrank's trailing slot)."""

UPSTREAM_FSTRINGS: dict[str, tuple[str, str, str]] = {
    "memorycode-preamble": (
        "memorycode-generate_model_output.py.txt",
        "generate_model_output_rag",
        "preamble",
    ),
    "memorycode-answer": (
        "memorycode-generate_model_output.py.txt",
        "generate_model_output_rag",
        "rag_prompt",
    ),
}
"""Prompt id -> (upstream file, function, the f-string variable assigned in it)."""


@cache
def sources() -> dict[str, dict[str, str]]:
    """SOURCES.toml, after checking every file's bytes against its recorded sha256."""
    recorded = tomllib.loads((FOLDER / "SOURCES.toml").read_text("utf-8"))
    for name, source in recorded.items():
        found = hashlib.sha256((FOLDER / name).read_bytes()).hexdigest()
        assert found == source["sha256"], f"{name} is not the recorded upstream file"
    return recorded


@cache
def constant(file: str, variable: str, index: int = 0) -> str:
    """The ``index``-th string constant assigned to ``variable`` in ``file``, in file order."""
    assert file in sources()
    tree = ast.parse((FOLDER / file).read_text("utf-8"))
    found = sorted(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == variable
            and isinstance(node.value, ast.Constant)
        ),
        key=lambda node: node.lineno,
    )
    value = found[index].value
    assert isinstance(value, ast.Constant) and isinstance(value.value, str)
    return value.value


@cache
def text_file(file: str, stripped: bool) -> str:
    """A whole upstream text file, as upstream reads it."""
    assert file in sources()
    text = (FOLDER / file).read_bytes().decode("utf-8")
    return text.strip() if stripped else text


@cache
def fstring(file: str, function: str, variable: str) -> str:
    """The literal text of the f-string assigned to ``variable`` in ``function``, each
    ``{dialogue_context["x"]}`` written ``{x}`` (the slot memrank fills with that value)."""
    assert file in sources()
    tree = ast.parse((FOLDER / file).read_text("utf-8"))
    (defined,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function]
    (assigned,) = [
        n
        for n in defined.body
        if isinstance(n, ast.Assign)
        and isinstance(n.targets[0], ast.Name)
        and n.targets[0].id == variable
    ]
    assert isinstance(assigned.value, ast.JoinedStr)
    parts = []
    for part in assigned.value.values:
        if isinstance(part, ast.Constant):
            parts.append(str(part.value))
        else:
            assert isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Subscript)
            key = part.value.slice
            assert isinstance(key, ast.Constant)
            parts.append("{" + str(key.value) + "}")
    return "".join(parts)
