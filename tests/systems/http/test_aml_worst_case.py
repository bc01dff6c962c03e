"""The worst case a run states at its start is what happens: an endpoint whose Search stops
answering is declared down after one deadline when three or more units run at once, a
budget and a deadline when two do, and four budgets and a deadline when one does; one that
answers only errors, after four calls' retries when one unit runs (docs/wire.md gives these at
the defaults; here they are timed at short settings, the breaker's span cut to match)."""

from __future__ import annotations

import functools
import time

import pytest

import memrank
from memrank import Document, Evaluation, Task
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory, _client
from memrank.systems.http._breaker import Breaker
from memrank.wire._service import ContractService
from tests.loopback import Canned
from tests.systems.http.outage import Outage
from tests.systems.http.test_aml_bounds import UNAVAILABLE
from tests.systems.http.test_aml_silence import HungSearch

DEADLINE, BUDGET = 0.5, 1.5


def _units(count: int) -> Evaluation:
    """``count`` units of six questions each, more than a unit's failing calls need."""
    tasks = tuple(
        Task(
            id=f"u{unit}-q{n}",
            prompt=f"What does note {n} of unit {unit} say?",
            group=f"u{unit}",
            context=(Document(id=f"u{unit}-d", content=f"Unit {unit} keeps six notes."),),
        )
        for unit in range(count)
        for n in range(6)
    )
    return Evaluation(name="units", version="t@1", tasks=tasks)


@pytest.mark.parametrize(
    "units,declared_down",
    [(1, 4 * BUDGET + DEADLINE), (2, BUDGET + DEADLINE), (3, DEADLINE)],
)
def test_a_search_that_stops_answering_is_declared_down_when_the_run_says(
    monkeypatch: pytest.MonkeyPatch, units: int, declared_down: float
) -> None:
    monkeypatch.setattr(_client, "Breaker", functools.partial(Breaker, span=0.2))
    with HungSearch() as server:
        memory = AmlMemory(server.url, timeout=DEADLINE, call_budget=BUDGET, backoff=0.01)
        said = memory.time_limits()
        started = time.monotonic()
        result = memrank.run(memory, _units(units), concurrency=units)
        memory.close()
        server.released.set()
    planted = result.integrity.traces if result.integrity is not None else ()
    stopped = [
        trace.finished
        for trace in (*result.traces, *planted)
        if trace.error is not None and "not sent" in trace.error.message
    ]
    assert stopped, "the breaker never opened"
    took = (min(stopped) - result.started).total_seconds()
    print(f"{units} unit(s): declared down after {took:.2f} s (stated {declared_down:g} s)")
    assert declared_down <= took + 0.05 < declared_down + 1.0
    stated = {
        1: f"{4 * BUDGET + DEADLINE:g} s when one does",
        2: f"{BUDGET + DEADLINE:g} s when two",
    }
    assert stated.get(units, f"about {DEADLINE:g} s when three or more") in said
    assert time.monotonic() - started < declared_down + 2 * BUDGET + 2


def test_an_endpoint_answering_only_errors_is_declared_down_after_four_calls_of_one_unit() -> None:
    # each call waits 0.05 + 0.1 + 0.2 s between its four attempts; the fifth call's first
    # failure is the evidence (at the defaults: 4 x 35.5 s, about 142 s)
    waits = 0.05 + 0.1 + 0.2
    with Outage(ContractService(WordOverlap), search=Canned(503, UNAVAILABLE)) as server:
        memory = AmlMemory(server.url, attempts=4, backoff=0.05)
        result = memrank.run(memory, _units(1), concurrency=1)
        memory.close()
    planted = result.integrity.traces if result.integrity is not None else ()
    traces = sorted((*result.traces, *planted), key=lambda trace: trace.started)
    first_stopped = next(t for t in traces if "not sent" in t.error.message)  # type: ignore[union-attr]
    took = (first_stopped.finished - traces[0].started).total_seconds()
    print(f"one unit, only errors: declared down after {took:.2f} s (the rule: {4 * waits:g} s)")
    assert 4 * waits <= took < 4 * waits + 1
    assert "5 calls in a row failed" in first_stopped.error.message  # type: ignore[union-attr]
