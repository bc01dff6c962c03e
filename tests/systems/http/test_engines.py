"""The engine clients against loopback servers that implement each engine's documented API:
every request checked, the engine's own error shapes, configuration, timeouts and retries."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

import memrank
from memrank import Document, Evaluation
from memrank.cli import main
from memrank.errors import EndpointError, UsageError
from memrank.systems import WordOverlap
from tests.endpoints import SECRET as RUN_SECRET
from tests.endpoints import AsEndpoint, planted, wire_name
from tests.systems.http.engines import ENGINES, SECRET, EngineCase
from tests.systems.http.engines._base import Refusal

NAMESPACE = re.compile(
    r"memrank-r[0-9a-f]{24}-(?P<evaluation>e[0-9a-f]{24})-(?P<unit>u[0-9a-f]+)-[0-9a-f]{12}"
)
"""A unit's namespace: memrank-<run>-<evaluation>-<unit>-<hash>, each name opaque (the unit's
cut to fit 100 characters)."""
BY_NAME = {case.name: case for case in ENGINES}
# The version each engine names (what the loopback servers answer); the rest name none.
ENGINE_VERSIONS = {"mem0": "1.0.0", "hindsight": "0.8.0"}


def expected_calls(engine: str, documents: int, questions: int) -> list[tuple[str, str]]:
    """The calls one unit makes: prepare resets it, its documents, its questions, cleanup."""
    return {
        "mem0": [
            ("DELETE", r"/memories\?user_id=NS"),
            ("GET", "/openapi.json"),  # its version, read once after the first reset answered
            *[("POST", "/memories")] * documents,
            *[("POST", "/search")] * questions,
            ("DELETE", r"/memories\?user_id=NS"),
        ],
        "hindsight": [
            ("DELETE", "/v1/default/banks/NS"),
            ("PUT", "/v1/default/banks/NS"),
            ("GET", "/version"),  # read once, after the first unit's bank answered
            ("POST", "/v1/default/banks/NS/memories"),
            *[("POST", "/v1/default/banks/NS/memories/recall")] * questions,
            ("DELETE", "/v1/default/banks/NS"),
        ],
        "supermemory": [
            ("DELETE", "/v3/documents/bulk"),
            *[("POST", "/v3/documents")] * documents,
            *[("GET", "/v3/documents/mem-[0-9]+")] * documents,
            *[("POST", "/v3/search")] * questions,
            ("DELETE", "/v3/documents/bulk"),
        ],
        "atomicmemory": [
            ("POST", "/v1/memories/reset-source"),
            *[("POST", "/v1/memories/ingest")] * documents,
            *[("POST", "/v1/memories/search")] * questions,
            ("POST", "/v1/memories/reset-source"),
        ],
    }[engine]


@pytest.fixture(params=ENGINES, ids=lambda case: case.name)
def engine(request: pytest.FixtureRequest) -> EngineCase:
    case: EngineCase = request.param
    return case


def _values(result: memrank.Result, measure: str) -> list[tuple[str | None, float | None]]:
    return [(v.task_id or v.group, v.value) for v in result.values_of(measure)]


def test_a_demo_run_sends_only_documented_requests_and_matches_in_process(
    engine: EngineCase, demo: Evaluation
) -> None:
    with engine.server() as server:
        memory = engine.connect(server.url)
        result = memrank.run(memory, demo, secret=RUN_SECRET)
        memory.close()
    assert not result.failed and server.violations == []
    wire = [e.path + e.body.decode() for e in server.log]
    names = {m for text in wire for m in NAMESPACE.finditer(text)}
    assert len({m[0] for m in names}) == 1  # one unit, one namespace, named from the run
    (named, *_) = names
    namespace = named[0]
    # opaque: it names neither the evaluation nor the unit, yet the run's secret maps it back
    assert not any("demo" in text for text in wire)
    assert named["evaluation"] == wire_name("evaluation", "demo", RUN_SECRET)
    assert wire_name("unit", "demo_alex", RUN_SECRET).startswith(named["unit"])
    sent = [(e.method, e.path.replace(namespace, "NS")) for e in server.log]
    (unit,) = planted(demo, RUN_SECRET)  # the demo's documents and questions, and canaries
    calls = expected_calls(engine.name, len(unit.documents), len(unit.tasks))
    assert len(sent) == len(calls)
    for (method, path), (want_method, want_path) in zip(sent, calls, strict=True):
        assert method == want_method and re.fullmatch(want_path, path), (method, path)
    header, prefix = server.auth_header, server.auth_prefix
    assert all(e.headers[header] == f"{prefix}{SECRET}" for e in server.log)
    # the same canaries at the same places: the in-process memory driven as an endpoint is
    in_process = memrank.run(AsEndpoint(WordOverlap()), demo, secret=RUN_SECRET)
    for measure in ("word-match", "demo-score"):
        assert _values(result, measure) == _values(in_process, measure)
    assert any(value == 1.0 for _, value in _values(result, "word-match"))
    trace = result.traces_of("q_job")[0]
    assert trace.recalled is not None and trace.recalled.declared["namespace"] == namespace
    assert trace.recalled.declared["response"]  # the engine's answer, kept whole
    assert trace.recalled.documents[0].metadata["doc_id"] == "sess_1"
    assert set(trace.declared.engine_timings_ms or {}) == {"round_trip", "backoff", "client"}
    port = server.url.rsplit(":", 1)[1]
    assert result.system.components["endpoint"] == f"http://127.0.0.1:{port}"
    assert result.system.declared_version == ENGINE_VERSIONS.get(engine.name)


def test_an_engine_error_carries_the_engines_words_without_the_key(engine: EngineCase) -> None:
    with engine.server() as server:
        memory = engine.connect(server.url)
        memory.prepare("unit")
        server.fail_next(engine.error)
        with pytest.raises(EndpointError) as raised:
            memory.retrieve("anything at all", 3, "unit")
        memory.close()
    message = str(raised.value)
    assert f"answered HTTP {engine.error.status} after 1 attempt(s)" in message
    assert f"{engine.client.engine} said: {engine.said}" in message
    assert SECRET not in message


def test_a_refused_key_is_the_engines_401(engine: EngineCase) -> None:
    with engine.server() as server:
        memory = engine.client(server.url, api_key="not-the-key", timeout=10)
        with pytest.raises(EndpointError, match="answered HTTP 401") as raised:
            memory.prepare("unit")
        memory.close()
    said = server.unauthorized().body
    words = said.get("detail") or said.get("error")
    assert words in str(raised.value) and "not-the-key" not in str(raised.value)


def test_a_busy_engine_is_retried_with_the_same_body(engine: EngineCase) -> None:
    busy = Refusal(503, {"detail": "busy", "error": "busy"})
    with engine.server() as server:
        memory = engine.client(server.url, api_key=SECRET, timeout=10, backoff=0.01)
        memory.prepare("unit")
        memory.ingest([Document(id="d1", content="The capital of France is Paris.")])
        server.fail_next(busy, times=2)
        recall = memory.retrieve("What is the capital of France?", 3, "unit")
        memory.close()
    searches = [e for e in server.log if e.method == "POST" and e.body and b"France?" in e.body]
    assert len(searches) == 3 and len({e.body for e in searches}) == 1
    assert "Paris" in recall.documents[0].text
    assert (memory.engine_timings() or {})["backoff"] >= 20


@pytest.fixture
def closed_port() -> Iterator[int]:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        yield closed.getsockname()[1]


def test_an_unreachable_engine_names_the_variable_to_check(
    engine: EngineCase, closed_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(engine.client.url_variable, f"http://127.0.0.1:{closed_port}")
    monkeypatch.setenv(engine.client.key_variable, SECRET)
    memory = engine.client(backoff=0.01)
    with pytest.raises(EndpointError) as raised:
        memory.prepare("unit")
    memory.close()
    message = str(raised.value)
    assert "could not be reached after 4 attempt(s)" in message
    assert f"is {engine.client.engine} running there? (base_url=, else " in message
    assert engine.client.url_variable in message


def test_configuration_comes_from_the_engines_variables(
    engine: EngineCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(engine.client.url_variable, raising=False)
    with pytest.raises(UsageError, match=f"give base_url= or set {engine.client.url_variable}"):
        engine.client()
    with engine.server() as server:
        monkeypatch.setenv(engine.client.url_variable, server.url)
        monkeypatch.setenv(engine.client.key_variable, SECRET)
        made = memrank.system(engine.name)
        assert made.base_url == server.url  # type: ignore[attr-defined]
        made.prepare("unit")  # type: ignore[attr-defined]
        made.close()  # type: ignore[attr-defined]
        monkeypatch.delenv(engine.client.url_variable)
        named = memrank.system(engine.name, base_url=server.url, timeout=5)
        assert named.base_url == server.url  # type: ignore[attr-defined]
        named.close()  # type: ignore[attr-defined]
    assert server.violations == [] and server.log


def test_an_engine_runs_by_name_from_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    case = BY_NAME["hindsight"]
    monkeypatch.setenv("HINDSIGHT_API_KEY", SECRET)
    with case.server() as server:
        outcome = CliRunner().invoke(
            main,
            [
                "run",
                "hindsight",
                "demo",
                "--option",
                f"base_url={server.url}",
                "--option",
                "timeout=5",
            ],
        )
    assert outcome.exit_code == 0, outcome.output
    assert "Hindsight (memory)" in outcome.output and "5 recorded, 0 with errors" in outcome.output
    assert server.violations == []


def test_supermemory_refuses_to_start_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SUPERMEMORY_API_KEY", raising=False)
    with pytest.raises(
        UsageError, match="needs an API key: give api_key= or set SUPERMEMORY_API_KEY"
    ):
        BY_NAME["supermemory"].client("http://127.0.0.1:9")


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    listener.close()


def test_the_timeout_is_set_per_engine(engine: EngineCase, silent_port: int) -> None:
    memory = engine.client(
        f"http://127.0.0.1:{silent_port}", api_key=SECRET, timeout=0.2, attempts=1
    )
    started = time.perf_counter()
    with pytest.raises(EndpointError, match="ReadTimeout"):
        memory.prepare("unit")
    assert time.perf_counter() - started < 2
    memory.close()
    assert engine.client.default_timeout >= 60  # engines extract with an LLM; defaults are patient


def test_units_run_at_once_are_kept_apart(engine: EngineCase) -> None:
    tasks = tuple(
        memrank.Task(
            id=f"q{n}",
            prompt=f"Which city did person {n} visit?",
            group=f"person-{n}",
            context=(
                Document(id=f"d{n}", content=f"Person {n} visited city{n} in spring."),
                Document(id=f"o{n}", content="Weather was mild."),
            ),
            expected=memrank.Expected(required_spans=(f"city{n}",), evidence_doc_ids=(f"d{n}",)),
        )
        for n in range(6)
    )
    evaluation = Evaluation(
        name="people", version="t@1", tasks=tasks, measures=(memrank.WordMatch(),)
    )
    with engine.server() as server:
        memory = engine.connect(server.url)
        result = memrank.run(memory, evaluation, concurrency=4)
        memory.close()
    assert not result.failed and server.violations == []
    for trace in result.traces:
        assert trace.recalled is not None
        told = {str(d.metadata.get("doc_id")) for d in trace.recalled.documents}
        n = trace.task.id[1:]
        # nothing from another unit's namespace: its own documents, and its own canaries'
        assert all(i in (f"d{n}", f"o{n}") or i.startswith(f"person-{n}:canary-") for i in told)
    assert [v.value for v in result.values_of("word-match")] == [1.0] * 6


def test_a_unit_whose_ingest_failed_is_still_cleaned_up(engine: EngineCase) -> None:
    broken = Refusal(500, {"detail": "disk full", "error": "disk full"})  # final for a write
    with engine.server() as server:
        memory = engine.client(server.url, api_key=SECRET, timeout=10, backoff=0.01)
        memory.prepare("unit")
        first = server.log[0]
        server.fail_next(broken)
        with pytest.raises(EndpointError, match="HTTP 500"):
            memory.ingest([Document(id="d1", content="The capital of France is Paris.")])
        memory.cleanup()  # as memrank.run does after every unit, failed or not
        memory.close()
    last = server.log[-1]
    assert (last.method, last.path) == (first.method, first.path)  # the unit's namespace emptied
