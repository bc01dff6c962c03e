"""A run's summary names why its tasks failed, grouped by cause, and a headline over fewer
tasks than the evaluation has says over how many and why the others were left out."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from memrank.runs.causes import cause_of, grouped, said
from memrank.systems import WordOverlap
from memrank.trace import Failure, Step
from memrank.wire._service import ContractService
from tests.loopback import Canned, _Handler, _Loopback
from tests.runs.conftest import memrank_cli

_FATES = ("500", "ok", "500", "stall", "500", "ok", "500", "stall", "500", "ok")
"""What the endpoint does with each question of the evaluation, in order: answer it, fail
it with HTTP 500, or hold it past the client's deadline (never two failures of one kind in
a row for long: the endpoint is not down, its queries fail)."""
_DEADLINE_S = 0.3


class Picky(_Loopback):
    """A real ContractService whose searches fail as ``_FATES`` says for each question."""

    def __init__(self) -> None:
        super().__init__()
        self.service = ContractService(WordOverlap)

    def answer(self, handler: _Handler, body: bytes) -> None:
        if handler.command == "GET":
            handler.reply(Canned(200, b'{"status":"ok"}'))
            return
        if handler.path == "/search":
            asked = re.search(r"ticket-(\d+)", json.loads(body)["query"])
            fate = _FATES[int(asked[1])] if asked else "ok"  # a canary question: answered
            if fate == "500":
                handler.reply(Canned(500, b'{"detail":{"reason":"index exploded"}}'))
                return
            if fate == "stall":
                time.sleep(_DEADLINE_S * 3)
        call = self.service.add if handler.path == "/add" else self.service.search
        answer = call(body, handler.lowered_headers())
        handler.reply(Canned(answer.status, answer.body))


def _evaluation(folder: Path) -> Path:
    turns = [{"id": f"d{n}", "text": f"Robin: the code of box {n} is word{n}"} for n in range(10)]
    lines = [
        {
            "id": f"q{n}",
            "question": f"What is the code of box {n}? (ticket-{n})",
            "group": "robin",
            "evidence": [f"d{n}"],
            "answers": [f"word{n}"],
            "spans": [f"word{n}"],
            **({"documents": turns} if n == 0 else {}),
        }
        for n in range(len(_FATES))
    ]
    path = folder / "boxes.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_the_summary_groups_failures_by_cause_and_says_what_the_headline_is_over(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evaluation = str(_evaluation(tmp_path))
    options = ["--option", "attempts=1", "--option", f"timeout={_DEADLINE_S}"]
    with Picky() as server:
        monkeypatch.setenv("AML_BASE_URL", server.url)
        shown = memrank_cli("run", "aml", evaluation, *options)
        as_json = memrank_cli("run", "aml", evaluation, *options, "--json")
    assert shown.returncode == 7, shown.stderr
    causes = "5 × HTTP 500 on retrieve; 2 × deadline exceeded on retrieve"
    lines = shown.stdout.splitlines()
    [headline] = [i for i, line in enumerate(lines) if line.startswith("headline:")]
    assert lines[headline].endswith(" over 3 of 10 task(s)"), lines[headline]
    assert lines[headline + 1] == (
        "            7 left out: 5 × failed: HTTP 500 on retrieve; "
        "2 × failed: deadline exceeded on retrieve"
    )
    assert f"failures:   {causes}" in lines
    assert f"7 of 10 task(s) failed: {causes}; each failure is recorded" in shown.stderr

    summary = json.loads(as_json.stdout)
    assert summary["failures"] == [
        {"count": 5, "cause": "HTTP 500 on retrieve"},
        {"count": 2, "cause": "deadline exceeded on retrieve"},
    ]
    assert summary["headline_over"]["tasks"] == 3 and summary["headline_over"]["of"] == 10


def test_a_headline_over_every_task_says_nothing_more(home: Path) -> None:
    shown = memrank_cli("run", "word-overlap", "demo")
    assert shown.returncode == 0, shown.stderr
    assert "headline:   word-match 0.800" in shown.stdout.splitlines()
    assert "left out" not in shown.stdout and "failures:" not in shown.stdout


def test_a_headline_with_undecided_tasks_names_their_reasons(home: Path, locomo_file: Path) -> None:
    shown = memrank_cli("run", "bm25", "locomo:smoke")
    assert shown.returncode == 0, shown.stderr
    assert "headline:   evidence-recall@500w 0.649 over 150 of 199 task(s)" in shown.stdout
    assert (
        "            49 left out: 47 × a negative task (the material does not answer it as "
        "asked); 2 × the task names no evidence turns, so evidence recall cannot be decided"
    ) in shown.stdout


@pytest.mark.parametrize(
    ("message", "kind", "cause"),
    [
        (
            "Search for user_id 'eval:r1:e2:u3': not sent: the endpoint is treated as down "
            "(10 calls in a row failed; the last: did not answer in full within the 5 s "
            "deadline), so memrank stopped sending to it for the rest of this run",
            "BreakerOpen",
            "not sent: the endpoint was treated as down on retrieve",
        ),
        (
            "Search for user_id 'eval:r1:e2:u3': http://127.0.0.1:9/search could not be "
            "reached after 8 attempt(s): ConnectError: [Errno 111] Connection refused",
            "EndpointError",
            "endpoint unreachable on retrieve",
        ),
        (
            "Search for user_id 'eval:r1:e2:u3': returned 12 items for top_k=10; the contract "
            "allows at most top_k (ids: a, b)",
            "ContractError",
            "ContractError: returned N items for top_k=N on retrieve",
        ),
        ("engine went away", "ConnectionError", "ConnectionError: engine went away on retrieve"),
        (
            "'Store' object has no attribute 'rows'",
            "AttributeError",
            "AttributeError: 'Store' object has no attribute 'rows' on retrieve",
        ),
    ],
)
def test_a_cause_sets_aside_what_differs_from_task_to_task(
    message: str, kind: str, cause: str
) -> None:
    assert cause_of(Failure(step=Step.RETRIEVE, message=message, type=kind)) == cause


def test_causes_past_four_are_counted_not_named() -> None:
    groups = grouped(["a", "b", "b", "c", "d", "e", "f", "f", "f"])
    assert groups == [(3, "f"), (2, "b"), (1, "a"), (1, "c"), (1, "d"), (1, "e")]
    assert said(groups) == "3 × f; 2 × b; 1 × a; 1 × c; and 2 more cause(s) (2 task(s))"
