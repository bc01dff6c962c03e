"""Nothing a run sends names the benchmark: every byte of a locomo:smoke run over the aml client,
as the server received it (each request's method, path, headers and body)."""

from __future__ import annotations

import re

import orjson
import pytest

import memrank
from memrank.evaluation import Evaluation
from memrank.integrity.names import WireNames
from memrank.result import Result
from memrank.systems.bm25 import BM25Adapter
from memrank.systems.http import AmlMemory
from memrank.wire._service import ContractService
from tests.loopback import Faulty, Logged

NAMING = {
    "the evaluation's name": re.compile(r"locomo", re.IGNORECASE),
    "a conversation id": re.compile(r"conv-\d+"),
    "a session id": re.compile(r"session_\d+"),
    "a dataset turn id": re.compile(r"\bD\d+:\d+\b"),
    "a question id": re.compile(r":q\d+\b"),
    "the word canary": re.compile(r"canary", re.IGNORECASE),
    "memrank's own run id": re.compile(r"run_[0-9a-f]{12}"),
}
"""What no byte sent may hold, the benchmark's own material (told texts, questions) included."""
LABELS = {
    "the slice": re.compile(r"smoke", re.IGNORECASE),  # one shared image shows smoke
    "the evaluation's version": re.compile(r"locomo10|v1\+79fa87e9"),
    "a speaker name as a label": re.compile(r"Caroline|Melanie"),
}
"""What nothing but the material may hold: ids, user ids, paths and headers."""


@pytest.fixture(scope="module")
def sent(smoke: Evaluation) -> tuple[Result, list[Logged]]:
    with Faulty(ContractService(BM25Adapter), seed=0, rate=0.0) as server:
        memory = AmlMemory(server.url, timeout=30)
        result = memrank.run(memory, smoke)
        memory.close()
    assert not result.failed
    return result, server.log


def _bytes_of(entry: Logged, material: bool = True) -> str:
    """The request as received; without ``material``, every told text and query blanked."""
    body = entry.body.decode()
    if not material and body:
        sent = orjson.loads(body)
        for message in sent.get("messages", ()):
            message["content"] = ""
        sent.pop("query", None)
        body = orjson.dumps(sent).decode()
    headers = "\n".join(f"{name}: {value}" for name, value in entry.headers.items())
    return f"{entry.method} {entry.path}\n{headers}\n\n{body}"


@pytest.mark.parametrize("what", sorted(NAMING))
def test_no_request_names_the_benchmark(what: str, sent: tuple[Result, list[Logged]]) -> None:
    _, log = sent
    found = [m[0] for entry in log for m in NAMING[what].finditer(_bytes_of(entry))]
    assert found == [], f"{what} went out on the wire: {found[:5]}"


@pytest.mark.parametrize("what", sorted(LABELS))
def test_nothing_but_the_material_carries_a_label(
    what: str, sent: tuple[Result, list[Logged]]
) -> None:
    _, log = sent
    labels = [m[0] for e in log for m in LABELS[what].finditer(_bytes_of(e, material=False))]
    assert labels == [], f"{what} went out on the wire: {labels[:5]}"


def test_the_speakers_go_out_in_the_material_alone(sent: tuple[Result, list[Logged]]) -> None:
    _, log = sent  # so blanking the material is what keeps them from the reading above
    assert any(LABELS["a speaker name as a label"].search(_bytes_of(entry)) for entry in log)


def test_the_requests_read_are_the_whole_run(
    sent: tuple[Result, list[Logged]], smoke: Evaluation
) -> None:
    result, log = sent
    adds = [orjson.loads(e.body) for e in log if e.path == "/add"]
    searches = [orjson.loads(e.body) for e in log if e.path == "/search"]
    told = [m["content"] for add in adds for m in add["messages"]]
    (unit,) = smoke.units()
    own = [d.content for d in unit.documents]
    assert [text for text in told if text in set(own)] == own  # every turn, in order ...
    assert len(told) > len(own)  # ... with the canaries' turns among them
    assert result.integrity is not None
    canaries = len(result.integrity.traces)
    assert len(searches) == len(smoke.tasks) + canaries and canaries >= 2
    asked = {s["query"] for s in searches}
    assert {t.prompt for t in smoke.tasks} <= asked
    assert {t.task.prompt for t in result.integrity.traces} <= asked
    # one opaque user id for the unit, named from the secret the result reveals
    (user_id,) = {s["user_id"] for s in searches} | {a["user_id"] for a in adds}
    names = WireNames(bytes.fromhex(result.integrity.secret))
    assert re.fullmatch(
        rf"eval:r[0-9a-f]{{24}}:{names.of('evaluation', 'locomo')}:{names.of('unit', unit.name)}",
        user_id,
    )
    assert all(set(m) <= {"role", "content", "timestamp"} for add in adds for m in add["messages"])
