"""The run loop: refusals, units and clearing, timing, one trace per task, failures recorded."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import memrank
from memrank import (
    Clearing,
    Decider,
    Document,
    Evaluation,
    Expected,
    Measure,
    Recall,
    Scope,
    Task,
    Value,
)
from memrank.trace import Step, Trace

from .conftest import SpyMemory


class ReadsNothingThere(Measure):
    name, scope, reads, decider = "reads-answer", Scope.TASK, ("answered",), Decider.RULE

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        raise AssertionError("never called")


class LacksRetrieve(memrank.Memory):
    def __init__(self) -> None:
        self.calls: list[str] = []

    def prepare(self, isolation_unit: str) -> None:
        self.calls.append("prepare")

    def ingest(self, documents: Sequence[Document]) -> None:
        self.calls.append("ingest")

    def cleanup(self) -> None:
        self.calls.append("cleanup")


class Echo(memrank.Model):
    def __init__(self) -> None:
        self.calls: list[str] = []

    def complete(self, prompt: object) -> str:
        self.calls.append("complete")
        return f"you asked: {prompt}"


# -- refusals: one per reason, each leaving the system untouched ---------------------------------


def test_refuses_an_object_that_is_not_a_kind(demo: Evaluation) -> None:
    class NotASystem:
        calls: list[str] = []

        def retrieve(self, *args: object) -> None:
            self.calls.append("retrieve")

    thing = NotASystem()
    result = memrank.run(thing, demo)
    assert result.refusal is not None and "NotASystem is not a kind memrank knows" in result.refusal
    assert result.traces == () and result.values == ()
    assert thing.calls == []
    assert "refused:" in str(result)


def test_refuses_a_memory_missing_a_verb(demo: Evaluation) -> None:
    system = LacksRetrieve()
    result = memrank.run(system, demo)
    assert result.refusal is not None
    assert "does not implement retrieve" in result.refusal
    assert system.calls == [] and result.traces == ()


def test_refuses_a_measure_reading_what_the_run_never_produces(demo: Evaluation) -> None:
    system = SpyMemory()
    evaluation = demo.model_copy(update={"measures": (ReadsNothingThere(),)})
    result = memrank.run(system, evaluation)
    assert result.refusal is not None
    assert (
        "'answered'" in result.refusal and "recalled" in result.refusal
    )  # names what is available
    assert system.calls == [] and result.traces == ()


def test_refuses_documents_for_a_kind_that_cannot_be_told(demo: Evaluation) -> None:
    system = Echo()
    result = memrank.run(system, demo)
    assert result.refusal is not None and "has no verb to be told things" in result.refusal
    assert system.calls == [] and result.traces == ()


# -- failures are rows -------------------------------------------------------------------------


def test_a_raising_retrieve_is_one_recorded_trace_and_the_run_goes_on(demo: Evaluation) -> None:
    result = memrank.run(SpyMemory(raise_on="sister"), demo)
    assert len(result.traces) == 5
    (failed,) = result.failed
    assert failed.task.id == "q_visit"
    assert failed.error is not None and failed.error.step is Step.RETRIEVE
    assert failed.error.message == "engine went away" and failed.error.type == "ConnectionError"
    (rate,) = result.values_of("failure-rate")
    assert rate.value == pytest.approx(0.2)
    assert rate.why == "1 of 5 traces carry an error (retrieve: 1)"
    match = {v.task_id: v for v in result.values_of("word-match")}
    assert match["q_visit"].value is None
    assert match["q_visit"].why == "the task failed at retrieve: engine went away"
    assert [v.task_id for v in result.values_of("word-match")] == [t.id for t in demo.tasks]
    assert match["q_job"].value == 1.0


def test_a_failed_ingest_fails_every_task_of_its_group(demo: Evaluation) -> None:
    system = SpyMemory(raise_at="ingest")
    result = memrank.run(system, demo)
    assert len(result.traces) == 5
    assert all(t.error is not None and t.error.step is Step.INGEST for t in result.traces)
    assert not any(c.startswith("retrieve") for c in system.calls)
    assert system.calls[-1] == "cleanup"


def test_returning_more_than_k_is_a_recorded_failure() -> None:
    class Greedy(SpyMemory):
        def retrieve(self, query, k, user_id, query_timestamp=None):  # type: ignore[no-untyped-def]
            return Recall(documents=tuple(self._documents[0][0] for _ in range(k + 1)))

    result = memrank.run(Greedy(), memrank.evaluation("demo"))
    assert all(t.error is not None for t in result.traces)
    assert "returned 11 documents for k=10" in result.traces[0].error.message  # type: ignore[union-attr]


# -- units, clearing, timing -----------------------------------------------------------------------


def _evaluation(clearing: Clearing) -> Evaluation:
    a = (
        Document(id="a1", content="apples are red"),
        Document(id="a2", content="bananas are yellow"),
    )
    b = (Document(id="b1", content="the sky is blue"),)
    tasks = (
        Task(
            id="t1",
            prompt="what colour are apples",
            group="ga",
            context=a,
            expected=Expected(required_spans=("red",)),
        ),
        Task(
            id="t2",
            prompt="what colour are bananas",
            group="ga",
            context=a,
            expected=Expected(required_spans=("yellow",)),
        ),
        Task(
            id="t3",
            prompt="what colour is the sky",
            group="gb",
            context=b,
            expected=Expected(required_spans=("blue",)),
        ),
    )
    return Evaluation(
        name="colours",
        version="t@1",
        tasks=tasks,
        measures=(memrank.WordMatch(),),
        clearing=clearing,
    )


def test_per_group_gives_each_group_its_documents_once() -> None:
    system = SpyMemory()
    result = memrank.run(system, _evaluation(Clearing.PER_GROUP))
    assert system.calls == [
        "prepare:ga",
        "ingest:2",
        "retrieve:ga",
        "retrieve:ga",
        "cleanup",
        "prepare:gb",
        "ingest:1",
        "retrieve:gb",
        "cleanup",
    ]
    assert [v.value for v in result.values_of("word-match")] == [1.0, 1.0, 1.0]
    assert result.clearing is not None and result.clearing.rule is Clearing.PER_GROUP
    assert result.clearing.units == 2 and result.clearing.observed is True
    # the ingest is timed once per group, on the group's first trace
    assert ["ingest" in t.timings_ms for t in result.traces] == [True, False, True]
    assert all("retrieve" in t.timings_ms for t in result.traces)
    assert result.traces[1].given is not None and result.traces[1].given.document_ids == (
        "a1",
        "a2",
    )
    assert result.traces[0].task.context == ()


def test_per_task_clears_between_every_task() -> None:
    system = SpyMemory()
    result = memrank.run(system, _evaluation(Clearing.PER_TASK))
    assert system.calls.count("cleanup") == 3 and system.calls.count("ingest:2") == 2
    assert result.clearing is not None and result.clearing.units == 3


def test_at_end_keeps_one_store_for_the_whole_run() -> None:
    system = SpyMemory()
    result = memrank.run(system, _evaluation(Clearing.AT_END))
    assert system.calls == [
        "prepare:colours",
        "ingest:3",
        "retrieve:colours",
        "retrieve:colours",
        "retrieve:colours",
        "cleanup",
    ]
    assert "cleared at-end" in str(result)


def test_clearing_is_not_observed_without_a_fingerprint_and_false_when_it_differs() -> None:
    class Quiet(SpyMemory):
        def state_fingerprint(self) -> None:
            return None

    class Sticky(SpyMemory):
        def cleanup(self) -> None:
            self.calls.append("cleanup")  # forgets to clear

    quiet = memrank.run(Quiet(), _evaluation(Clearing.PER_GROUP))
    assert quiet.clearing is not None and quiet.clearing.observed is None
    sticky = memrank.run(Sticky(), _evaluation(Clearing.PER_GROUP))
    assert sticky.clearing is not None and sticky.clearing.observed is False
    assert "state fingerprint was '2 document(s)'" in sticky.clearing.why


def test_declarations_are_none_until_a_system_states_them(demo: Evaluation) -> None:
    class Billed(SpyMemory):
        version = "2.1"

        def declared_version(self) -> str:
            return "2.1.3"

        def usage(self) -> dict[str, float]:
            return {"input_tokens": 12.0}

    quiet = memrank.run(SpyMemory(), demo)
    assert quiet.system.declared_version is None
    assert all(
        t.declared.usage is None and t.declared.engine_timings_ms is None for t in quiet.traces
    )
    billed = memrank.run(Billed(), demo)
    assert billed.system.declared_version == "2.1.3" and billed.system.version == "2.1"
    assert all(t.declared.usage == {"input_tokens": 12.0} for t in billed.traces)


def test_a_model_answers_without_being_told() -> None:
    evaluation = Evaluation(
        name="quiz",
        version="q@1",
        tasks=(Task(id="q", prompt="2+2?", expected=Expected(answers=("4",))),),
    )
    system = Echo()
    result = memrank.run(system, evaluation)
    assert result.refusal is None and system.calls == ["complete"]
    assert (
        result.traces[0].answered is not None
        and result.traces[0].answered.text == "you asked: 2+2?"
    )
    assert result.clearing is not None and result.clearing.observed is None
    # no retrieve happened, so latency says so rather than inventing a number
    assert all(v.value is None and "nothing to time" in v.why for v in result.values_of("latency"))


def test_a_retriever_is_handed_the_unit_documents() -> None:
    class FirstTwo(memrank.Retriever):
        def rank(self, query, documents, k):  # type: ignore[no-untyped-def]
            return Recall(documents=tuple(documents[:2]))

    result = memrank.run(FirstTwo(), _evaluation(Clearing.PER_GROUP))
    assert [v.value for v in result.values_of("word-match")] == [1.0, 1.0, 1.0]
    assert all("rank" in t.timings_ms for t in result.traces)


def test_bookkeeping_measures_are_not_added_twice(demo: Evaluation) -> None:
    evaluation = demo.model_copy(update={"measures": (memrank.Latency(), memrank.WordMatch())})
    result = memrank.run(SpyMemory(), evaluation)
    assert result.evaluation.measures == ("latency", "word-match", "failure-rate")
    assert len(result.values_of("latency")) == 4
