"""Benchmark: memrank's own overhead per task, over 10,000 tasks of a memory that does nothing.

Reported in microseconds per task and as a ratio to constructing the same trace objects alone
(the floor: a run cannot record a task for less than building its Trace). Both are measured in
this process, interleaved, best of several rounds.  Run: uv run python tests/perf/bench_run_overhead.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime

import memrank
from memrank import Document, Evaluation, Recall, Task
from memrank.trace import Given, Trace

TASKS = 10_000
EMPTY = Recall()


class Nothing(memrank.Memory):
    def prepare(self, isolation_unit: str) -> None:
        pass

    def ingest(self, documents: Sequence[Document]) -> None:
        pass

    def retrieve(self, query, k, user_id, query_timestamp=None) -> Recall:  # type: ignore[no-untyped-def]
        return EMPTY

    def cleanup(self) -> None:
        pass


def evaluation() -> Evaluation:
    document = (Document(id="d", content="nothing"),)
    tasks = tuple(
        Task(id=f"t{i}", prompt="q", group=f"g{i // 100}", context=document) for i in range(TASKS)
    )
    return Evaluation(name="overhead", version="bench@1", tasks=tasks)


def traces_alone(tasks: Sequence[Task]) -> None:
    moment = datetime.now(UTC)
    for task in tasks:
        Trace(
            task=task.model_copy(update={"context": ()}),
            given=Given(unit="g", document_ids=("d",)),
            recalled=EMPTY,
            timings_ms={"retrieve": 0.001},
            started=moment,
            finished=moment,
        )


def main(rounds: int) -> None:
    made = evaluation()
    run_times, floor_times = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        result = memrank.run(Nothing(), made)
        run_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        traces_alone(made.tasks)
        floor_times.append(time.perf_counter() - start)
    assert len(result.traces) == TASKS
    run_us, floor_us = min(run_times) / TASKS * 1e6, min(floor_times) / TASKS * 1e6
    print(f"memrank.run: {run_us:.1f} us/task over {TASKS} tasks (100 groups), best of {rounds}")
    print(f"traces alone: {floor_us:.1f} us/task")
    print(f"run overhead / trace construction = {run_us / floor_us:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
