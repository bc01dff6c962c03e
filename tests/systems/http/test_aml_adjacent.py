"""Two adjacent queries the endpoint answers 500 fail the tasks that ask them and nothing more:
one unit's failing queries are not evidence that the endpoint is down."""

from __future__ import annotations

import threading

import orjson

import memrank
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory
from memrank.wire._service import Answer, ContractService
from tests.systems.http.hostile import Rewriting

BROKEN = Answer(500, b'{"detail":{"reason":"this query breaks the index"}}')


class FirstSearchesFail:
    """Answers 500 to the first ``count`` distinct Searches it receives, every time they are
    sent (a retry, or the same query asked again), and every other Search as the service."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.poisoned: list[bytes] = []
        self._lock = threading.Lock()

    def __call__(self, answer: Answer, body: bytes) -> Answer:
        with self._lock:
            if body not in self.poisoned and len(self.poisoned) < self.count:
                self.poisoned.append(body)
            return BROKEN if body in self.poisoned else answer


def test_two_adjacent_queries_answered_500_fail_only_their_tasks() -> None:
    demo = memrank.evaluation("demo")  # one unit: its queries are asked one after another
    poison = FirstSearchesFail(2)
    with Rewriting(ContractService(WordOverlap), poison) as server:
        # 0.5 s doubling: each poisoned call is retried over 3.5 s, the two over 7 s, past the
        # breaker's 5 s span (which opened it on these two before)
        memory = AmlMemory(server.url, attempts=4)
        result = memrank.run(memory, demo)
        memory.close()
    # the demo's tasks and the canaries planted among them (kept apart in the result)
    planted = result.integrity.traces if result.integrity is not None else ()
    traces = (*result.traces, *planted)
    poisoned = {str(orjson.loads(body)["query"]) for body in poison.poisoned}
    assert len(poisoned) == 2
    for trace in traces:
        if str(trace.task.prompt) in poisoned:
            message = trace.error.message  # type: ignore[union-attr]
            assert "HTTP 500 after 4 attempt(s)" in message and "not sent" not in message
        else:
            assert trace.error is None, trace.error
