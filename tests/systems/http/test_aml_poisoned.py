"""One query the service never answers costs one task, within the call's budget: its retries
do not open the endpoint's breaker, and the units around it run on."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import orjson

import memrank
from memrank.evaluations.locomo import locomo
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory
from memrank.wire._service import ContractService
from tests.loopback import Canned, Logged, _Handler, _Loopback

BUDGET = 10.0


class Poisoned(_Loopback):
    """A real ContractService, except that a Search for ``poison`` is never answered (held
    until the test ends, then dropped)."""

    def __init__(self, service: ContractService, poison: str) -> None:
        super().__init__()
        self.service, self.poison = service, poison
        self.released = threading.Event()

    def answer(self, handler: _Handler, body: bytes) -> None:
        self.record(Logged(handler.command, handler.path, handler.lowered_headers(), body))
        if handler.command == "GET":
            handler.reply(Canned(200, b'{"status":"ok"}'))
            return
        if handler.path == "/search" and orjson.loads(body)["query"] == self.poison:
            self.released.wait(120)
            handler.reset()
            return
        call = self.service.add if handler.path == "/add" else self.service.search
        answer = call(body, handler.lowered_headers())
        handler.reply(Canned(answer.status, answer.body))


def test_one_poisoned_query_on_locomo_mini_fails_one_task_within_the_budget(
    shared_data: Path,
) -> None:
    evaluation = locomo("mini", path=shared_data / "locomo")
    poisoned = evaluation.tasks[40]
    server = Poisoned(ContractService(WordOverlap), str(poisoned.prompt))
    with server:
        memory = AmlMemory(server.url, timeout=BUDGET / 2.5, call_budget=BUDGET)
        started = time.monotonic()
        result = memrank.run(memory, evaluation, concurrency=4)
        took = time.monotonic() - started
        server.released.set()
        memory.close()
    held = [e for e in server.logged("/search") if poisoned.prompt in e.body.decode()]
    print(f"locomo:mini with one poisoned query: {took:.1f} s, {len(held)} attempts at it")
    assert [trace.task.id for trace in result.failed] == [poisoned.id]
    assert len(result.traces) == len(evaluation.tasks) == 497
    assert took < 3 * BUDGET
    message = result.failed[0].error.message  # type: ignore[union-attr]
    assert f"within the call's {BUDGET:g} s budget" in message and "not sent" not in message
