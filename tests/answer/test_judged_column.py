"""A judged column end to end: runs answered and judged by a loopback model server, signed
with a throwaway key, built into a board whose column shows the judge's verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import memrank
from memrank.answer import AnswerStage, answer_name, protocol
from memrank.board.config import Column
from memrank.errors import BoardConfigError
from memrank.result import Result
from memrank.systems.models import OpenAIChat
from tests.artifacts.conftest import as_installed
from tests.board.conftest import Signed, built, sign_artifacts
from tests.systems.models.chat_server import KEY, ChatServer

ANSWER, JUDGE = "gpt-4o-mini", "gpt-4.1-mini"


def _reply(messages: list[dict[str, Any]]) -> str:
    """A model that answers with the first memory it was shown (or says it does not know),
    and a judge that calls an answer correct when it shares a word with the gold answer."""
    text = messages[-1]["content"]
    if 'key as "label"' in text:
        gold = text.split("Gold answer: ")[1].split("\n")[0].lower().split()
        answer = text.split("Generated answer: ")[1].split("\n")[0].lower()
        return json.dumps({"label": "CORRECT" if set(gold) & set(answer.split()) else "WRONG"})
    memories = text.split('[\n    "', 1)
    return memories[1].split('"', 1)[0] if len(memories) > 1 else "Not mentioned"


def _judged(system: str, evaluation: memrank.Evaluation, server: ChatServer) -> Result:
    answer = OpenAIChat(ANSWER, base_url=server.base, api_key=KEY)
    judge = OpenAIChat(JUDGE, base_url=server.base, api_key=KEY)
    stage = AnswerStage(protocol("mem0"), answer, 300, judge=judge, seed=1)
    try:
        return as_installed(memrank.run(memrank.system(system), evaluation, answer=stage))
    finally:
        answer.close()
        judge.close()


def _board_toml(version: str, measure: str, title: str) -> str:
    return f"""
[site]
title = "memrank board"
description = "Signed runs of memory systems."
base_url = "https://example.org/board/"

[tracks.textual]
title = "Textual memory"
description = "Conversation memory, answered and judged."

[[tracks.textual.columns]]
evaluation = "locomo"
version = "{version}"
title = "{title}"
measure = "{measure}"
direction = "higher"
"""


def test_a_board_shows_a_judged_locomo_column_from_signed_loopback_judged_runs(
    locomo_smoke: memrank.Evaluation, tmp_path: Path
) -> None:
    # The verifier refuses a slice as a measurement; the smoke conversation stands in for
    # the whole evaluation here (the test's own root pins its question counts).
    evaluation = locomo_smoke.model_copy(update={"slice": None})
    with ChatServer(reply=_reply) as server:
        runs = [_judged(system, evaluation, server) for system in ("bm25", "no-context")]
    spec = f"openai:{ANSWER}"
    measure = answer_name("judge", "mem0@v1", spec, f"openai:{JUDGE}")
    assert measure == "judge:mem0@v1:answer=openai:gpt-4o-mini:judge=openai:gpt-4.1-mini"
    title = f"LoCoMo J (mem0@v1, {ANSWER} answers, {JUDGE} judges)"
    artifacts = sign_artifacts(
        tmp_path / "artifacts",
        [Signed(run) for run in runs],
        _board_toml(evaluation.version, measure, title),
    )
    board, tree = built(artifacts)
    (track,) = board.tracks
    (column,) = track.columns
    assert column.measure == measure and column.title == title
    means = {}
    for run in runs:
        decided = [v.value for v in run.values if v.measure == measure and v.value is not None]
        assert len(decided) == len([t for t in evaluation.tasks if t.category != "5"])
        means[run.system.name] = sum(decided) / len(decided)
    bm25, floor = (run.system.name for run in runs)
    assert means[bm25] > means[floor]  # the column separates the two systems
    shown = {row.system: row.cells[0] for row in track.rows}
    assert set(shown) == set(means)
    for system, cell in shown.items():
        assert cell is not None and cell.value.measure == measure
        assert cell.value.value == pytest.approx(means[system])
    page = tree[track.path].decode() if track.path in tree else tree["index.html"].decode()
    assert title in page
    # Beside latency, what the answer model and the judge used (no price listed for a
    # loopback model: the cost is unknown, shown as none, never $0).
    assert track.usage and all(row.tokens and row.cost_usd is None for row in track.rows)
    assert 'data-key="tokens"' in page and 'data-key="cost"' in page


def test_a_judged_column_title_must_name_protocol_answer_model_and_judge() -> None:
    measure = answer_name("judge", "mem0@v1", "openai:gpt-4o-mini", "openai:gpt-4.1-mini")
    shown = {"evaluation": "locomo", "version": "v", "measure": measure, "direction": "higher"}
    Column(**shown, title="J (mem0@v1; gpt-4o-mini answers; gpt-4.1-mini judges)")
    with pytest.raises(ValueError, match="add gpt-4.1-mini to title"):
        Column(**shown, title="J (mem0@v1, gpt-4o-mini)")
    assert issubclass(BoardConfigError, Exception)
