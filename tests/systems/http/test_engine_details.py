"""What is particular to one engine: Hindsight's usage and token-budgeted recall, Supermemory's
asynchronous processing, Mem0 over a real LoCoMo conversation."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

import memrank
from memrank import Document, Evaluation, Expected, Task
from memrank.errors import EndpointError
from memrank.systems import WordOverlap
from memrank.systems.http import Hindsight, Mem0, Supermemory
from memrank.trace import Step
from tests.endpoints import SECRET as RUN_SECRET
from tests.endpoints import AsEndpoint, planted, wire_name
from tests.systems.http.engines import SECRET
from tests.systems.http.engines.hindsight import RECALL_RESULTS, TOKENS_PER_WORD, HindsightServer
from tests.systems.http.engines.mem0 import Mem0Server
from tests.systems.http.engines.supermemory import SupermemoryServer

# -- Hindsight -----------------------------------------------------------------------------------


def test_hindsight_usage_is_declared_once_per_unit_and_unreported_stays_none(
    demo: Evaluation,
) -> None:
    with HindsightServer(SECRET) as server:
        memory = Hindsight(server.url, api_key=SECRET, timeout=10)
        result = memrank.run(memory, demo, secret=RUN_SECRET)
        memory.close()
    (unit,) = planted(demo, RUN_SECRET)  # its usage counts every word told: canaries' too
    words = sum(len(d.text.split()) for d in unit.documents)
    assert result.integrity is not None
    asked = {t.task.id: t for t in (*result.traces, *result.integrity.traces)}
    # the first task asked carries the unit's usage, a canary or not
    first, *rest = [asked[task.id] for task in unit.tasks]
    told = len(unit.documents)  # the server reports a token out per item retained
    assert first.declared.usage == {
        "ingest.input_tokens": words * TOKENS_PER_WORD,
        "ingest.output_tokens": told,
        "ingest.total_tokens": words * TOKENS_PER_WORD + told,
    }
    assert [t.declared.usage for t in rest] == [None] * len(rest)  # recall reports none


def test_hindsight_recall_is_cut_to_k_and_timestamps_travel() -> None:
    told = [
        Document(
            id=f"d{n}",
            content=f"Harbour note {n} about the lantern.",
            timestamp=f"2026-01-{n + 1:02d}T09:00:00Z",
        )
        for n in range(RECALL_RESULTS + 2)
    ]
    with HindsightServer(SECRET) as server:
        memory = Hindsight(server.url, api_key=SECRET, timeout=10)
        memory.prepare("unit")
        memory.ingest(told)
        recall = memory.retrieve("lantern harbour", 3, "unit", query_timestamp=told[-1].timestamp)
        memory.close()
    assert server.violations == []
    assert [d.metadata["doc_id"] for d in recall.documents] == ["d0", "d1", "d2"]
    assert recall.declared["engine_returned"] == RECALL_RESULTS
    assert len(recall.declared["response"]["results"]) == 3  # only what memrank used
    retains = [orjson.loads(e.body) for e in server.log if e.path.endswith("/memories")]
    assert [len(r["items"]) for r in retains] == [len(told)]
    assert retains[0]["async"] is False
    assert retains[0]["items"][0] == {
        "content": "Harbour note 0 about the lantern.",
        "document_id": "d0",
        "metadata": {"memrank_doc_id": "d0"},
        "timestamp": "2026-01-01T09:00:00+00:00",
    }
    (recall_call,) = [orjson.loads(e.body) for e in server.log if e.path.endswith("/recall")]
    assert recall_call == {
        "query": "lantern harbour",
        "query_timestamp": "2026-01-12T09:00:00+00:00",
    }


def test_hindsight_prepare_recreates_a_bank_that_already_exists() -> None:
    with HindsightServer(SECRET) as server:
        memory = Hindsight(server.url, api_key=SECRET, timeout=10).for_unit("run_1", "e")
        memory.prepare("unit")
        memory.ingest([Document(id="old", content="An old lantern note.")])
        memory.prepare("unit")  # the same unit again: emptied, not added to
        recall = memory.retrieve("lantern", 3, "unit")
        memory.close()
    assert recall.documents == ()
    deletes = [e.method for e in server.log if e.method in ("DELETE", "PUT")]
    assert deletes == ["DELETE", "PUT", "DELETE", "PUT"]


# -- Supermemory ---------------------------------------------------------------------------------


def test_supermemory_ingest_waits_until_every_document_is_processed() -> None:
    with SupermemoryServer(SECRET, processing_polls=3) as server:
        memory = Supermemory(server.url, api_key=SECRET, timeout=10, poll_interval=0.01)
        memory.prepare("unit")
        memory.ingest(
            [
                Document(id="a", content="The capital of France is Paris."),
                Document(id="b", content="Rome is the capital of Italy."),
            ]
        )
        statuses = len(server.calls("GET", "/v3/documents/.+"))
        recall = memory.retrieve("capital of France", 2, "unit")
        memory.close()
    assert statuses == 2 * 3  # polled until done, each document
    assert [d.metadata["doc_id"] for d in recall.documents] == ["a", "b"]
    (search,) = [orjson.loads(e.body) for e in server.calls("POST", "/v3/search")]
    assert search == {"q": "capital of France", "containerTags": [memory._namespace], "limit": 2}


def test_supermemory_processing_failure_or_timeout_fails_the_ingest() -> None:
    failing = Document(id="bad", content="CANNOT-PROCESS this one.")
    with SupermemoryServer(SECRET) as server:
        memory = Supermemory(server.url, api_key=SECRET, timeout=10, poll_interval=0.01)
        memory.prepare("unit")
        with pytest.raises(EndpointError, match="status of document 'bad'.*status 'failed'"):
            memory.ingest([failing])
        memory.close()
    with SupermemoryServer(SECRET, processing_polls=10_000) as server:
        memory = Supermemory(
            server.url, api_key=SECRET, timeout=10, poll_interval=0.01, processing_timeout=0.1
        )
        memory.prepare("unit")
        with pytest.raises(EndpointError, match=r"1 document\(s\) still not processed after 0.1 s"):
            memory.ingest([Document(id="slow", content="Slow.")])
        memory.close()


# -- Mem0, over a real conversation -----------------------------------------------------------


def test_mem0_over_a_real_locomo_conversation_matches_in_process(shared_data: Path) -> None:
    path = shared_data / "locomo" / "locomo10.json"
    sample = orjson.loads(path.read_bytes())[0]
    talk = sample["conversation"]
    sessions = sorted(
        (k for k in talk if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])
    )
    documents = tuple(
        Document(id=turn["dia_id"], content=turn["text"], metadata={"session_id": s})
        for s in sessions
        for turn in talk[s]
    )
    tasks = tuple(
        Task(
            id=f"q{n}",
            prompt=qa["question"],
            group="conv-0",
            context=documents,
            expected=Expected(
                required_spans=(str(qa["answer"]),), evidence_doc_ids=tuple(qa["evidence"])
            ),
        )
        for n, qa in enumerate(sample["qa"][:40])
        if "answer" in qa
    )
    evaluation = Evaluation(
        name="locomo-conv-0", version="t@1", tasks=tasks, measures=(memrank.WordMatch(),)
    )
    with Mem0Server(SECRET) as server:
        memory = Mem0(server.url, api_key=SECRET, timeout=10)
        over_http = memrank.run(memory, evaluation, secret=RUN_SECRET)
        memory.close()
    # the same canaries at the same places: the in-process memory driven as an endpoint is
    in_process = memrank.run(AsEndpoint(WordOverlap()), evaluation, secret=RUN_SECRET)
    assert not over_http.failed and server.violations == []
    values = [(v.task_id, v.value) for v in over_http.values_of("word-match")]
    assert values == [(v.task_id, v.value) for v in in_process.values_of("word-match")]
    assert any(value == 1.0 for _, value in values)
    adds = [orjson.loads(e.body) for e in server.calls("POST", "/memories")]
    # every document told goes out under its opaque id, in order, the canaries' among them
    (unit,) = planted(evaluation, RUN_SECRET)
    sent_ids = [a["metadata"]["memrank_doc_id"] for a in adds]
    assert sent_ids == [wire_name("document", d.id, RUN_SECRET) for d in unit.documents]
    own = {wire_name("document", d.id, RUN_SECRET) for d in documents}
    assert [i for i in sent_ids if i in own] == [
        wire_name("document", d.id, RUN_SECRET) for d in documents
    ]
    speakers = {a["messages"][0]["role"] for a in adds}
    assert speakers == {"user"}


def test_a_failed_prepare_is_recorded_on_every_task_of_the_unit(demo: Evaluation) -> None:
    with Mem0Server(SECRET) as server:
        server.fail_next(
            Mem0Server.upstream("provider_auth_failed", "Provider rejected the request")
        )
        memory = Mem0(server.url, api_key=SECRET, timeout=10, attempts=1)
        result = memrank.run(memory, demo)
        memory.close()
    first = result.traces[0].error
    assert first is not None and first.step is Step.PREPARE
    assert "answered HTTP 502 after 1 attempt(s); Mem0 said: Provider rejected the request" in (
        first.message
    )
    assert all(t.error == first for t in result.traces)
