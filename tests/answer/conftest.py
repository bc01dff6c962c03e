"""Shared parts of the answer-stage tests: a judge-aware chat server, a small LoCoMo slice."""

from __future__ import annotations

import json
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
