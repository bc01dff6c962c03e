"""Shared parts of the answer-stage tests: a judge-aware chat server, a small LoCoMo slice."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

import memrank
from memrank.evaluations.locomo import locomo

SERVER_ANSWER = "Not mentioned in the conversation"


def protocol_reply(messages: list[dict[str, Any]]) -> str:
    """What a model would say to each protocol's prompts: a JSON label to Mem0's judge, yes to
    LongMemEval's, a short answer to an answer prompt."""
    text = messages[-1]["content"]
    if 'key as "label"' in text:
        return json.dumps({"label": "CORRECT"})
    if "Answer yes or no only." in text:
        return "yes"
    return SERVER_ANSWER


class Alternating:
    """A judge that says CORRECT, then WRONG, then CORRECT ... (for pass spreads)."""

    def __init__(self) -> None:
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        if 'key as "label"' not in messages[-1]["content"]:
            return SERVER_ANSWER
        with self.lock:
            self.calls += 1
            label = "CORRECT" if self.calls % 2 else "WRONG"
        return json.dumps({"label": label})


@pytest.fixture(autouse=True)
def own_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Responses and the tokenizer file go to the test's own folder, never the user's."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("MEMRANK_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def locomo_smoke(shared_data: Path) -> memrank.Evaluation:
    return locomo(slice="smoke", path=shared_data / "locomo" / "locomo10.json")


@pytest.fixture(scope="session")
def locomo_few(locomo_smoke: memrank.Evaluation) -> memrank.Evaluation:
    """Three questions of every category from the first conversation."""
    chosen: list[memrank.Task] = []
    for category in ("1", "2", "3", "4", "5"):
        chosen.extend([t for t in locomo_smoke.tasks if t.category == category][:3])
    return locomo_smoke.model_copy(update={"tasks": tuple(chosen), "measures": ()})


SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec" / "answer-and-judge.md"
# The fenced texts of the reference document, by order of appearance, pinned for AML (whose
# repository could not be read); every other pin is checked against upstream's own files.
_SPEC_BLOCKS = {10: "aml-answer", 11: "aml-judge"}


def spec_texts() -> dict[str, str]:
    """The AML texts from the reference document (the test skips when it is not there)."""
    if not SPEC.is_file():
        pytest.skip(f"the reference document is not at {SPEC}")
    blocks = re.findall(r"~~~~text\n(.*?)\n~~~~", SPEC.read_text("utf-8"), re.S)
    return {name: blocks[index] for index, name in _SPEC_BLOCKS.items()}


@pytest.fixture
def aml_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """AML's texts in a folder named by MEMRANK_PROMPTS_DIR; False when the reference
    document is not beside the clone (AML's texts do not ship)."""
    if not SPEC.is_file():
        return False
    folder = tmp_path / "prompts"
    folder.mkdir()
    for name, text in spec_texts().items():
        (folder / f"{name}.txt").write_text(text, encoding="utf-8", newline="")
    monkeypatch.setenv("MEMRANK_PROMPTS_DIR", str(folder))
    return True
