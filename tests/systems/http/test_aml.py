"""AmlMemory: chunking, opaque ids, validation of every response, health first, auth and options."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

import memrank
from memrank import Document, Evaluation, Expected, Task
from memrank.errors import UsageError
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory
from memrank.systems.http._client import Auth
from memrank.systems.http.aml import AmlEndpoints, chunks
from memrank.trace import Step
from memrank.wire._service import Answer, ContractService
from memrank.wire.schema import AddRequest, SearchRequest
from memrank.wire.serve import serving
from tests.endpoints import SECRET, AsEndpoint, planted, wire_name
from tests.loopback import Canned, Scripted

USER_ID = re.compile(r"^eval:r[0-9a-f]{24}:(?P<evaluation>e[0-9a-f]{24}):(?P<unit>u[0-9a-f]{24})$")


class Recording(ContractService):
    """A ContractService over WordOverlap that keeps every request it was sent."""

    def __init__(self, auth: Auth | None = None) -> None:
        super().__init__(WordOverlap, auth)
        self.adds: list[AddRequest] = []
        self.searches: list[SearchRequest] = []

    def add(self, body: bytes, headers):  # type: ignore[no-untyped-def]
        self.adds.append(AddRequest.model_validate_json(body))
        return super().add(body, headers)

    def search(self, body: bytes, headers):  # type: ignore[no-untyped-def]
        self.searches.append(SearchRequest.model_validate_json(body))
        return super().search(body, headers)


@pytest.fixture
def recording() -> Iterator[tuple[Recording, str]]:
    service = Recording()
    with serving(service) as url:
        yield service, url


def _message(words: int, session: str, n: int) -> Document:
    return Document(
        id=f"{session}-{n}", content=" ".join(["word"] * words), metadata={"session_id": session}
    )


# -- chunking ----------------------------------------------------------------------------------


def test_sessions_are_cut_at_20_messages_or_2000_words_in_order() -> None:
    long_talk = [_message(3, "s1", n) for n in range(45)]
    wordy = [_message(900, "s2", n) for n in range(3)]
    huge = [_message(2500, "s3", 0), _message(1, "s3", 1)]
    cut = chunks([*long_talk, *wordy, *huge])
    assert [(c.session, len(c.documents)) for c in cut] == [
        ("s1", 20),
        ("s1", 20),
        ("s1", 5),
        ("s2", 2),
        ("s2", 1),
        ("s3", 1),
        ("s3", 1),
    ]
    assert [d.id for c in cut for d in c.documents] == [d.id for d in [*long_talk, *wordy, *huge]]
    assert chunks([*long_talk, *wordy, *huge]) == cut  # deterministic


def test_documents_without_a_session_are_each_their_own_session(demo: Evaluation) -> None:
    sessions = demo.tasks[0].context
    assert [(c.session, [d.id for d in c.documents]) for c in chunks(sessions)] == [
        ("sess_1", ["sess_1"]),
        ("sess_2", ["sess_2"]),
        ("sess_3", ["sess_3"]),
    ]


def _locomo_conversation(shared_data: Path) -> tuple[list[Document], list[dict[str, object]]]:
    path = shared_data / "locomo" / "locomo10.json"
    sample = orjson.loads(path.read_bytes())[0]
    talk = sample["conversation"]
    sessions = sorted(
        (k for k in talk if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])
    )
    documents = [
        Document(id=turn["dia_id"], content=turn["text"], metadata={"session_id": session})
        for session in sessions
        for turn in talk[session]
    ]
    return documents, sample["qa"]


def test_a_real_locomo_conversation_chunks_and_recalls_as_in_process(shared_data: Path) -> None:
    documents, questions = _locomo_conversation(shared_data)
    tasks = tuple(
        Task(
            id=f"q{n}",
            prompt=qa["question"],
            group="conv-0",
            context=tuple(documents),
            expected=Expected(
                required_spans=(str(qa["answer"]),), evidence_doc_ids=tuple(qa["evidence"])
            ),
        )
        for n, qa in enumerate(questions[:40])
        if "answer" in qa
    )
    evaluation = Evaluation(
        name="locomo-conv-0", version="test@1", tasks=tasks, measures=(memrank.WordMatch(),)
    )
    service = Recording()
    with serving(service) as url:
        memory = AmlMemory(url, timeout=10)
        over_http = memrank.run(memory, evaluation, secret=SECRET)
        memory.close()
    # the same canaries at the same places: the in-process memory driven as an endpoint is
    in_process = memrank.run(AsEndpoint(WordOverlap()), evaluation, secret=SECRET)

    assert not over_http.failed
    values = [(v.task_id, v.value) for v in over_http.values_of("word-match")]
    assert values == [(v.task_id, v.value) for v in in_process.values_of("word-match")]
    assert any(value == 1.0 for _, value in values)  # the comparison is not vacuous
    # every Add holds one session's messages, at most 20 of them, in the conversation's order
    assert all(len(add.messages) <= 20 for add in service.adds)
    assert len({add.session_id for add in service.adds}) == 19 < len(service.adds)
    sent = [m.content for add in service.adds for m in add.messages]
    (unit,) = planted(evaluation)
    assert sent == [d.content for d in unit.documents]  # the canaries' turns among them ...
    own = [d.content for d in documents]
    assert [text for text in sent if text in set(own)] == own  # ... and every turn, in order
    assert len(sent) > len(own)
    assert [add.request_id.rsplit(":", 1)[1] for add in service.adds] == [
        f"chunk-{n}" for n in range(len(service.adds))
    ]


# -- ids, isolation, clearing ----------------------------------------------------------------------


def test_each_unit_is_a_fresh_opaque_user_id_and_each_chunk_a_numbered_request(
    recording: tuple[Recording, str], demo: Evaluation
) -> None:
    service, url = recording
    memory = AmlMemory(url, timeout=10)
    result = memrank.run(memory, demo, secret=SECRET)
    memory.close()
    user_id = result.traces[0].recalled.declared["user_id"]  # type: ignore[union-attr]
    # named from the run's secret (revealed in the result), naming no evaluation and no unit
    named = USER_ID.match(user_id)
    assert named is not None and "demo" not in user_id and "alex" not in user_id
    assert named["evaluation"] == wire_name("evaluation", "demo")
    assert named["unit"] == wire_name("unit", "demo_alex")
    (unit,) = planted(demo)  # the demo's three sessions, each its own Add, and the canaries'
    assert len(unit.documents) > 3
    assert [a.request_id for a in service.adds] == [
        f"{user_id}:chunk-{n}" for n in range(len(unit.documents))
    ]
    assert [a.session_id for a in service.adds] == [
        f"{user_id}:session-{wire_name('document', d.id)}" for d in unit.documents
    ]
    assert {s.user_id for s in service.searches} == {user_id}
    assert service.adds[0].messages[0].timestamp == 1768068000000  # 2026-01-10T18:00:00Z
    declared = result.traces[0].recalled.declared  # type: ignore[union-attr]
    assert (
        declared["cleared_by"] == "a fresh user_id per isolation unit; the contract has no delete"
    )
    # the next run of the same evaluation never reuses a user_id, nor any part of one
    again = AmlMemory(url, timeout=10)
    second = memrank.run(again, demo)
    again.close()
    other = second.traces[0].recalled.declared["user_id"]  # type: ignore[union-attr]
    assert not set(other.split(":")[1:]) & set(user_id.split(":")[1:])


def test_a_user_id_is_never_prepared_twice(recording: tuple[Recording, str]) -> None:
    memory = AmlMemory(recording[1], timeout=10).for_unit("run_000000000000", "demo")
    memory.prepare("alex")
    with pytest.raises(UsageError, match="already used by this client"):
        memory.prepare("alex")
    memory.close()


def test_returned_items_map_back_to_the_documents_they_repeat(
    recording: tuple[Recording, str], demo: Evaluation
) -> None:
    memory = AmlMemory(recording[1], timeout=10)
    result = memrank.run(memory, demo, secret=SECRET)
    memory.close()
    recalled = result.traces_of("q_job")[0].recalled
    assert recalled is not None
    top = recalled.documents[0]
    (unit,) = planted(demo)  # each document its own Add: sess_1 went in the chunk at its place
    chunk = [d.id for d in unit.documents].index("sess_1")
    assert top.id.endswith(f":chunk-{chunk}:0") and top.metadata["doc_id"] == "sess_1"
    assert top.metadata["created_at"] == "2026-01-10T18:00:00Z"
    assert [v.value for v in result.values_of("demo-score")] == [0.8]
    timings = result.traces_of("q_job")[0].declared.engine_timings_ms
    assert timings is not None and set(timings) == {"round_trip", "backoff", "client"}
    assert timings["client"] >= 0 and timings["backoff"] == 0


# -- every response validated; violations recorded with the evidence ----------------------------


def _one_task(prompt: str = "Where does Alex work?") -> Evaluation:
    context = (Document(id="d1", content="Alex works at the coastal research station."),)
    return Evaluation(
        name="one", version="t@1", tasks=(Task(id="t1", prompt=prompt, group="g", context=context),)
    )


class EchoAdds(ContractService):
    """Answers Add correctly, and Search with whatever the test puts in ``search_answer``."""

    search_answer = Answer(200, b'{"data": []}')

    def search(self, body: bytes, headers):  # type: ignore[no-untyped-def]
        return self.search_answer


@pytest.mark.parametrize(
    "status,body,evidence",
    [
        (200, b'[{"id": "m1", "content": "x"}]', 'Input should be an object; body: [{"id"'),
        (200, b'{"items": []}', "data: Field required"),
        (
            200,
            b'{"data": [{"id": "", "content": "x"}]}',
            "data.0.id: String should have at least 1",
        ),
        (200, b'{"data": [{"id": "m1"}]}', "data.0.content: Field required"),
        (
            200,
            b'{"data": [{"id": "a", "content": "x"}, {"id": "b", "content": "y"}]}',
            "returned 2 items for top_k=1; the contract allows at most top_k (ids: a, b)",
        ),
        (202, b'{"task_id": "t"}', "answered HTTP 202"),
        (
            400,
            b'{"detail": {"reason": "bad query"}}',
            'answered HTTP 400 after 1 attempt(s): {"detail": {"reason": "bad query"}}',
        ),
    ],
)
def test_a_search_that_breaks_the_contract_is_a_recorded_failure(
    status: int, body: bytes, evidence: str
) -> None:
    service = EchoAdds(WordOverlap)
    service.search_answer = Answer(status, body)
    evaluation = _one_task().model_copy(update={"k": 1})
    with serving(service) as url:
        memory = AmlMemory(url, timeout=10)
        result = memrank.run(memory, evaluation)
        memory.close()
    (trace,) = result.traces
    assert trace.error is not None and trace.error.step is Step.RETRIEVE
    assert trace.error.type == ("EndpointError" if status == 400 else "ContractError")
    assert evidence in trace.error.message
    assert trace.recalled is None  # nothing repaired, nothing kept


@pytest.mark.parametrize(
    "answer,evidence",
    [
        (
            {"success": True, "request_id": "WRONG", "user_id": None, "session_id": None},
            "request_id came back as 'WRONG', sent ",
        ),
        (
            {"success": "true", "request_id": None, "user_id": None, "session_id": None},
            "success: Input should be True",
        ),
        ({"request_id": None, "user_id": None, "session_id": None}, "success: Field required"),
    ],
)
def test_an_add_that_breaks_the_contract_fails_the_unit_at_ingest(
    answer: dict[str, object], evidence: str
) -> None:
    class BadEcho(ContractService):
        def add(self, body: bytes, headers):  # type: ignore[no-untyped-def]
            sent = orjson.loads(body)
            reply = {k: (sent[k] if v is None else v) for k, v in answer.items()}
            return Answer(200, orjson.dumps(reply))

    with serving(BadEcho(WordOverlap)) as url:
        memory = AmlMemory(url, timeout=10)
        result = memrank.run(memory, _one_task())
        memory.close()
    (trace,) = result.traces
    assert trace.error is not None and trace.error.step is Step.INGEST
    assert trace.error.type == "ContractError" and evidence in trace.error.message


def test_health_is_checked_before_the_first_call() -> None:
    with Scripted(health=[Canned(503, b"down")], add=[Canned(200)]) as server:
        memory = AmlMemory(server.url, timeout=5, attempts=2, backoff=0.01)
        result = memrank.run(memory, _one_task())
        memory.close()
    (trace,) = result.traces
    assert trace.error is not None and trace.error.step is Step.PREPARE
    assert "health check before the first call" in trace.error.message
    # the probe has its own policy: a blip is retried at once, whatever the calls' attempts
    assert "HTTP 503 after 4 attempt(s)" in trace.error.message
    assert [entry.path for entry in server.log] == ["/health"] * 4  # no Add was sent


# -- configuration, auth, options ----------------------------------------------------------------


def test_endpoints_and_key_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    service = Recording(auth=Auth("X-Api-Key", "k-123"))
    with serving(service) as url:
        monkeypatch.setenv("AML_ADD_URL", f"{url}/add")
        monkeypatch.setenv("AML_SEARCH_URL", f"{url}/search")
        monkeypatch.setenv("AML_API_KEY", "k-123")
        monkeypatch.setenv("AML_AUTH", "X-Api-Key")
        memory = AmlMemory(timeout=10)
        assert memory.endpoints == AmlEndpoints(f"{url}/add", f"{url}/search", f"{url}/health")
        good = memrank.run(memory, _one_task())
        wrong = AmlMemory(url, auth="X-Api-Key", api_key="not-it", timeout=10)
        refused = memrank.run(wrong, _one_task())
        memory.close()
        wrong.close()
    assert not good.failed and good.integrity is not None
    assert len(service.searches) == 1 + len(good.integrity.traces)  # the task and its canaries
    (trace,) = refused.traces
    assert trace.error is not None and trace.error.step is Step.INGEST
    assert "HTTP 401" in trace.error.message and "not-it" not in trace.error.message


def test_no_endpoint_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AML_BASE_URL", "AML_ADD_URL", "AML_SEARCH_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(UsageError, match="no Add/Search endpoint"):
        AmlMemory()
    with pytest.raises(UsageError, match="timeout='soon' is not a float"):
        AmlMemory("http://127.0.0.1:9", timeout="soon")  # type: ignore[arg-type]


def test_multiple_choice_options_are_sent_in_search(recording: tuple[Recording, str]) -> None:
    service, url = recording
    evaluation = _one_task("Where does Alex work?")
    task = evaluation.tasks[0].model_copy(update={"options": ("A. a station", "B. a bank")})
    memory = AmlMemory(url, timeout=10)
    memrank.run(memory, evaluation.model_copy(update={"tasks": (task,)}))
    memory.close()
    offered = [s.options for s in service.searches if s.query == "Where does Alex work?"]
    assert offered == [("A. a station", "B. a bank")]
