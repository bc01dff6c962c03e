"""Faults: a loopback server failing 20% of calls (seeded) with 429, 503, stalls past the
client's timeout and connection resets. Every task ends with its correct values or a failure
naming the step; no trace is lost or duplicated; a retried Add repeats its body exactly."""

from __future__ import annotations

from collections import defaultdict

import orjson
import pytest

import memrank
from memrank import Document, Evaluation, Expected, Task
from memrank.result import Result
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory
from memrank.trace import Step
from memrank.wire._service import ContractService
from tests.endpoints import SECRET, AsEndpoint
from tests.loopback import FAULTS, Faulty

PEOPLE = ("ada", "bo", "cy", "di", "ed", "flo", "gus", "hal")
JOBS = ("baker", "pilot", "nurse", "judge", "miner", "tailor", "welder", "sailor")
CITIES = ("oslo", "lima", "quito", "hanoi", "dakar", "perth", "cork", "riga")


def _evaluation() -> Evaluation:
    tasks = []
    for n, person in enumerate(PEOPLE):
        job, city = JOBS[n], CITIES[(n + 3) % len(CITIES)]
        context = (
            Document(id=f"{person}-1", content=f"{person} trained for years to become a {job}."),
            Document(id=f"{person}-2", content=f"Last spring {person} moved to {city} for good."),
            Document(id=f"{person}-3", content=f"{person} keeps a small garden of tomatoes."),
        )
        asks = (
            ("job", f"What did {person} train to become?", job),
            ("city", f"Where did {person} move last spring?", city),
            ("garden", f"What grows in the garden {person} keeps?", "tomatoes"),
        )
        tasks += [
            Task(
                id=f"{person}-{topic}",
                prompt=prompt,
                group=person,
                context=context,
                expected=Expected(required_spans=(span,)),
            )
            for topic, prompt, span in asks
        ]
    return Evaluation(
        name="faults", version="t@1", tasks=tuple(tasks), measures=(memrank.WordMatch(),)
    )


def _run(seed: int, attempts: int) -> tuple[Result, Faulty]:
    with Faulty(ContractService(WordOverlap), seed=seed, rate=0.2, stall_seconds=0.8) as server:
        memory = AmlMemory(server.url, timeout=0.5, attempts=attempts, backoff=0.01)
        # one secret: the same canaries, so the same requests and faults, on every run
        result = memrank.run(memory, _evaluation(), concurrency=4, secret=SECRET)
        memory.close()
    return result, server


@pytest.mark.parametrize("seed,attempts", [(7, 4), (11, 2)])
def test_every_task_ends_correct_or_failed_at_a_named_step(seed: int, attempts: int) -> None:
    evaluation = _evaluation()
    in_process = memrank.run(AsEndpoint(WordOverlap()), evaluation, secret=SECRET)
    expected = {v.task_id: v.value for v in in_process.values_of("word-match")}
    result, server = _run(seed, attempts)

    # no trace lost or duplicated, in task order
    assert [t.task.id for t in result.traces] == [t.id for t in evaluation.tasks]
    values = {v.task_id: v for v in result.values_of("word-match")}
    for trace in result.traces:
        if trace.ok:
            assert values[trace.task.id].value == expected[trace.task.id], trace.task.id
        else:
            assert trace.error is not None
            assert trace.error.step in (Step.PREPARE, Step.INGEST, Step.RETRIEVE)
            assert trace.error.type == "EndpointError" and "attempt(s)" in trace.error.message
            assert values[trace.task.id].value is None
            assert values[trace.task.id].why.startswith(
                f"the task failed at {trace.error.step.value}"
            )

    faults = [entry.fault for entry in server.log if entry.method == "POST"]
    assert set(faults) == {"ok", *FAULTS}  # every kind of fault was met
    assert 0.6 < faults.count("ok") / len(faults) < 0.95
    if attempts == 4:
        assert not result.failed  # four attempts see every call of this seed through
    else:
        assert result.failed  # two do not: the failure branch is exercised too


def test_a_retried_add_carries_the_identical_body_and_is_stored_once() -> None:
    result, server = _run(seed=7, attempts=4)
    bodies: dict[str, list[bytes]] = defaultdict(list)
    for entry in server.logged("/add"):
        bodies[orjson.loads(entry.body)["request_id"]].append(entry.body)
    retried = {rid: sent for rid, sent in bodies.items() if len(sent) > 1}
    assert retried, "the seed must make at least one Add retry"
    assert all(len(set(sent)) == 1 for sent in retried.values())
    stalled = [e for e in server.logged("/add") if e.fault == "stall"]
    assert stalled  # an Add that was stored, then timed out, then retried ...
    # ... is stored once: no recalled document appears twice in any trace
    for trace in result.traces:
        ids = [d.metadata.get("doc_id") for d in trace.recalled.documents]  # type: ignore[union-attr]
        assert len(ids) == len(set(ids)), trace.task.id
