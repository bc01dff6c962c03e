"""memrank check: passes a conformant endpoint, and each single violation fails exactly its check."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import orjson
import pytest

from memrank import Document
from memrank.systems import WordOverlap
from memrank.systems.http._client import Auth
from memrank.systems.http.aml import AmlEndpoints
from memrank.wire._service import Answer, ContractService
from memrank.wire.check import check, layout, tally
from memrank.wire.serve import serving
from tests.loopback import Logged, Scripted, _Handler
from tests.systems.http.raw import Raw, trickle


class OverReturns(ContractService):
    """Answers one item more than top_k whenever it holds that many."""

    def search(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        try:
            request = orjson.loads(body)
            request["top_k"] += 1
        except (orjson.JSONDecodeError, KeyError, TypeError):  # malformed: answer as is
            return super().search(body, headers)
        return super().search(orjson.dumps(request), headers)


class MisEchoes(ContractService):
    """Echoes request_id with its letters upper-cased."""

    def add(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        answer = super().add(body, headers)
        if answer.status != 200:
            return answer
        echoed = orjson.loads(answer.body)
        echoed["request_id"] = echoed["request_id"].upper()
        return Answer(answer.status, orjson.dumps(echoed))


class CrashesOnBadInput(ContractService):
    """Answers 500 where it should answer 422."""

    def add(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        answer = super().add(body, headers)
        return Answer(500, b'{"detail":{"reason":"boom"}}') if answer.status == 422 else answer

    def search(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        answer = super().search(body, headers)
        return Answer(500, b'{"detail":{"reason":"boom"}}') if answer.status == 422 else answer


class BareList(ContractService):
    """Answers Search with the array itself rather than an object holding it."""

    def search(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        answer = super().search(body, headers)
        if answer.status != 200:
            return answer
        return Answer(answer.status, orjson.dumps(orjson.loads(answer.body)["data"]))


class OneStore(WordOverlap):
    """Every user_id lands in one store: isolation leaks."""

    def prepare(self, isolation_unit: str) -> None:
        pass


class AddsAnAnswer(WordOverlap):
    """Returns what it was told, and one line it was never told beside it (an answer dressed
    as a memory)."""

    def retrieve(self, query, k, user_id, query_timestamp=None):  # type: ignore[no-untyped-def]
        found = super().retrieve(query, k, user_id, query_timestamp)
        made_up = Document(id=f"made-up-{len(found.documents)}", content="The answer is Paris.")
        return found.model_copy(update={"documents": (*found.documents[: k - 1], made_up)})


class IndexesLater(WordOverlap):
    """Answers Add at once but indexes on a schedule: not searchable until later."""

    def ingest(self, documents: Sequence[Document]) -> None:
        pass  # the scheduled indexer never runs within the check


def _failed(service: ContractService, track: str = "textual") -> list[str]:
    with serving(service) as url:
        outcomes = check(AmlEndpoints.of(url), service._auth, track, timeout=10)  # type: ignore[arg-type]
    assert all(o.evidence for o in outcomes)
    return [o.name for o in outcomes if not o.passed]


@pytest.mark.parametrize("track", ["textual", "multimodal"])
def test_a_conformant_endpoint_passes_every_check(track: str) -> None:
    with serving(ContractService(WordOverlap)) as url:
        outcomes = check(AmlEndpoints.of(url), None, track)  # type: ignore[arg-type]
    assert [o.name for o in outcomes if not o.passed] == []
    names = [o.name for o in outcomes]
    assert ("content-parts" in names) is (track == "multimodal") and len(names) >= 10
    assert layout(outcomes).endswith(f"{len(names)} checks: {len(names)} passed, 0 failed")


def test_checks_send_the_key_when_the_endpoint_requires_one() -> None:
    assert _failed(ContractService(WordOverlap, Auth("X-Api-Key", "k"))) == []


shared = OneStore()


@pytest.mark.parametrize(
    "service,check_names",
    [
        (OverReturns(WordOverlap), ["top-k"]),
        # a run cannot go on past a broken Add or Search answer, so integrity fails with it
        (MisEchoes(WordOverlap), ["add-echo", "integrity"]),
        (ContractService(lambda: shared), ["user-isolation"]),
        (CrashesOnBadInput(WordOverlap), ["malformed-4xx"]),
        (BareList(WordOverlap), ["search-shape", "integrity"]),
    ],
    ids=["over-returns-top-k", "mis-echoes", "leaks", "500-on-bad-input", "bare-list"],
)
def test_each_single_violation_fails_exactly_its_check(
    service: ContractService, check_names: list[str]
) -> None:
    assert _failed(service) == check_names


def test_an_endpoint_that_stores_nothing_passes_no_check_that_needs_something_stored() -> None:
    # searchable-after-add is its violation; the others cannot be judged on nothing
    assert _failed(ContractService(IndexesLater)) == [
        "searchable-after-add",
        "top-k",
        "user-isolation",
        "idempotent-request-id",
        "round-trip",
        "integrity",
        "quiet-breaches",
    ]


def test_an_endpoint_that_returns_what_it_was_never_told_fails_integrity_alone() -> None:
    assert _failed(ContractService(AddsAnAnswer)) == ["integrity"]


def test_a_failed_check_prints_the_requirement_and_the_evidence() -> None:
    with serving(OverReturns(WordOverlap)) as url:
        outcomes = check(AmlEndpoints.of(url))
    printed = layout(outcomes)
    assert "FAIL  top-k" in printed
    assert "Search never returns more than top_k items: top_k=2 and 3 items came back" in printed
    assert printed.endswith("13 checks: 12 passed, 1 failed")


def test_an_unreachable_endpoint_fails_every_check_with_the_transport_error() -> None:
    outcomes = check(AmlEndpoints.of("http://127.0.0.1:9"), timeout=2)
    assert not any(o.passed for o in outcomes)
    assert all("could not be reached" in o.evidence for o in outcomes)
    assert all(o.evidence.startswith("not run, as the endpoint") for o in outcomes[1:])


class AcceptsEmptyContent(ContractService):
    """Stores an Add whose message has empty content, answering 200, as the contract allows."""

    def add(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        try:
            request = orjson.loads(body)
            messages = request["messages"]
        except (orjson.JSONDecodeError, KeyError, TypeError):
            return super().add(body, headers)
        if messages and all(m.get("content") == "" for m in messages):
            request["messages"] = [{**m, "content": "(empty)"} for m in messages]
            return super().add(orjson.dumps(request), headers)
        return super().add(body, headers)


def test_a_malformed_request_answered_200_is_a_warning_not_a_failure() -> None:
    with serving(AcceptsEmptyContent(WordOverlap)) as url:
        outcomes = {o.name: o for o in check(AmlEndpoints.of(url), timeout=10)}
    malformed = outcomes["malformed-4xx"]
    assert malformed.passed and malformed.warning
    assert "Add with empty content: 200" in malformed.evidence
    assert layout(list(outcomes.values())).endswith("13 passed (1 with a warning), 0 failed")


def test_malformed_requests_refused_for_credentials_alone_do_not_pass() -> None:
    # the endpoint wants a key that is not sent: every request is refused with 401
    with serving(ContractService(WordOverlap, Auth("Bearer", "k"))) as url:
        outcomes = {o.name: o for o in check(AmlEndpoints.of(url), timeout=10)}
    assert not outcomes["malformed-4xx"].passed
    assert "refused for its credentials" in outcomes["malformed-4xx"].evidence


class Counting(ContractService):
    """Counts the Adds and Searches it has answered."""

    calls = 0

    def add(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        self.calls += 1
        return super().add(body, headers)

    def search(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        self.calls += 1
        return super().search(body, headers)


def test_each_outcome_is_handed_over_as_its_check_ends() -> None:
    service = Counting(WordOverlap)
    seen: list[tuple[str, int]] = []
    with serving(service) as url:
        outcomes = check(
            AmlEndpoints.of(url),
            timeout=10,
            on_outcome=lambda o: seen.append((o.name, service.calls)),
        )
    assert [name for name, _ in seen] == [o.name for o in outcomes]
    # handed over while the suite ran: the first before any Add or Search was made
    assert seen[0][1] == 0 < seen[1][1] < seen[-1][1] == service.calls


def test_a_trickling_endpoint_is_reported_within_twice_the_deadline_and_the_rest_not_run() -> None:
    with Raw(trickle(0.2)) as server:
        started = time.monotonic()
        outcomes = check(AmlEndpoints.of(server.url), timeout=0.5)
        took = time.monotonic() - started
    assert took < 2 * 0.5
    assert "did not answer in full within the 0.5 s deadline" in outcomes[0].evidence
    assert all(o.evidence.startswith("not run, as the endpoint") for o in outcomes[1:])


def test_checks_not_run_are_counted_apart_from_failures() -> None:
    outcomes = check(AmlEndpoints.of("http://127.0.0.1:9"), timeout=2)
    assert [o.ran for o in outcomes] == [True] + [False] * (len(outcomes) - 1)
    assert (
        tally(outcomes)
        == f"{len(outcomes)} checks: 0 passed, 1 failed, {len(outcomes) - 1} not run"
    )
    assert layout(outcomes).splitlines()[1].startswith("skip  add-echo")


class MislabelledJson(Scripted):
    """Answers the contract's JSON, labelled text/html, as a misconfigured proxy would."""

    def answer(self, handler: _Handler, body: bytes) -> None:
        self.record(Logged(handler.command, handler.path, handler.lowered_headers(), body))
        if handler.path == "/add":
            sent = orjson.loads(body)
            ids = {k: sent[k] for k in ("request_id", "user_id", "session_id")}
            answer = orjson.dumps({"success": True, **ids})
        else:
            answer = b'{"data": []}'
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(answer)))
        handler.end_headers()
        handler.wfile.write(answer)


def test_json_under_a_content_type_that_is_not_json_warns() -> None:
    with MislabelledJson() as server:
        outcomes = {o.name: o for o in check(AmlEndpoints.of(server.url), timeout=5)}
    for name in ("add-echo", "search-shape"):
        assert outcomes[name].passed and outcomes[name].warning, outcomes[name]
        assert "came as Content-Type 'text/html; charset=utf-8'" in outcomes[name].evidence
