"""Bounds under outages: the health probe answers once and fast, a dead endpoint is no longer
sent to (the breaker), an Add rides out a run of failures with its request id, and
`memrank run` says with exit 7 that tasks failed."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import memrank
from memrank.cli import main
from memrank.result import Result
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory, _aml_service
from memrank.wire._service import ContractService
from tests.endpoints import SECRET, AsEndpoint
from tests.loopback import Canned
from tests.systems.http.outage import Outage
from tests.systems.http.raw import Raw, hang
from tests.systems.http.test_aml_faults import _evaluation

UNAVAILABLE = b'{"detail":{"reason":"unavailable"}}'


def test_a_hung_health_check_is_probed_once_with_its_own_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_aml_service, "HEALTH_TIMEOUT", 0.5)
    with Raw(hang) as server:
        memory = AmlMemory(server.url, timeout=60)  # the request deadline is not the probe's
        started = time.monotonic()
        result = memrank.run(memory, _evaluation(), concurrency=4)
        took = time.monotonic() - started
        memory.close()
    assert took < 2 * 0.5  # a hung probe is not repeated
    assert server.requests == 1  # remembered: not probed again by each of the 8 units
    assert len(result.failed) == len(result.traces) == 24
    message = result.failed[-1].error.message  # type: ignore[union-attr]
    assert "health check" in message and "within the 0.5 s deadline" in message


def test_a_dead_search_is_no_longer_sent_to_and_the_rest_fail_at_once() -> None:
    with Outage(ContractService(WordOverlap), search=Canned(503, UNAVAILABLE)) as server:
        memory = AmlMemory(server.url)  # the defaults: 8 attempts, 0.5 s doubling
        started = time.monotonic()
        result = memrank.run(memory, _evaluation(), concurrency=4)
        took = time.monotonic() - started
        memory.close()
    searches = len(server.logged("/search"))
    print(f"always-503 Search: {took:.1f} s, {searches} Search requests for 24 tasks")
    assert len(result.failed) == 24 and took < 10
    assert searches < 10 + 4 * 8  # the breaker opened; without it, 24 tasks x 8 attempts
    last = result.failed[-1].error.message  # type: ignore[union-attr]
    assert "not sent" in last and "HTTP 503" in last
    assert "nothing succeeded for 5 s while 4 calls failed" in last  # calls, not retries


def test_an_add_rides_out_failures_with_its_request_id_and_is_stored_once() -> None:
    evaluation = _evaluation()
    # the same canaries at the same places: WordOverlap driven as an endpoint is, in-process
    clean = memrank.run(AsEndpoint(WordOverlap()), evaluation, secret=SECRET)
    with Outage(ContractService(WordOverlap), failed_adds=5) as server:
        memory = AmlMemory(server.url, backoff=0.01)  # the default 8 attempts
        result = memrank.run(memory, evaluation, concurrency=1, secret=SECRET)
        memory.close()
    assert not result.failed
    adds = [entry.body for entry in server.logged("/add")]
    assert len(adds) == len(set(adds)) + 5 and adds[:6] == [adds[0]] * 6  # one body, repeated
    assert [v.value for v in result.values_of("word-match")] == [
        v.value for v in clean.values_of("word-match")
    ]


def test_memrank_run_against_an_always_503_endpoint_exits_7_quickly(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    # the command never closes its client: "Connection: close" lets the server stop at once
    down = Canned(503, UNAVAILABLE, (("Connection", "close"),))
    with Outage(ContractService(WordOverlap), health=down) as server:
        started = time.monotonic()
        outcome = CliRunner().invoke(
            main, ["run", "aml", "demo", "--option", f"base_url={server.url}", "--save", str(path)]
        )
        took = time.monotonic() - started
    assert outcome.exit_code == 7, outcome.output
    assert took < 30
    assert "5 of 5 task(s) failed" in outcome.output
    # said before anything was sent: the defaults' deadline, budget and worst case
    said = "Add and Search: each request's deadline 1800 s; each call's budget 1920 s"
    assert said in outcome.stderr
    assert outcome.stderr.index(said) < outcome.stderr.index("running:")
    assert len(Result.load(path).failed) == 5  # saved first, then the exit


def test_the_demo_score_of_a_dead_endpoint_is_zero() -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
    demo = memrank.evaluation("demo")
    assert any(task.expected.abstain for task in demo.tasks)  # the case that scored 0.2
    memory = AmlMemory(url, backoff=0.01)
    result = memrank.run(memory, demo)
    memory.close()
    assert len(result.failed) == len(result.traces)
    scores = result.values_of("demo-score")
    assert scores and all(v.value == 0.0 for v in scores), scores
    assert all("counted as not recalled" in v.why for v in scores)
