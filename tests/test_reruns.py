"""A reading of a run against a rerun of one configuration says so when they differ."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from click.testing import CliRunner

import memrank
from memrank import Document, Recall
from memrank.cli import main
from memrank.evaluations import locomo
from memrank.measures.budget import RecalledWords
from memrank.reruns import differing_tasks, is_rerun, rerun_note, systems_differ
from memrank.run import measure
from memrank.runs.probe import with_probe
from memrank.systems import WordOverlap
from memrank.systems.bm25 import BM25Adapter
from memrank.systems.http import AmlMemory
from memrank.wire._service import ContractService
from memrank.wire.serve import serving


class Dice(memrank.Memory):
    """Recalls one told document chosen by the operating system's randomness: not repeatable."""

    name = "dice"
    version = "1"  # declared: what makes two of its runs one configuration (memrank.reruns)

    def prepare(self, isolation_unit: str) -> None:
        self.documents: list[Document] = []

    def ingest(self, documents: Sequence[Document]) -> None:
        self.documents.extend(documents)

    def retrieve(self, query, k, user_id, query_timestamp=None) -> Recall:  # type: ignore[no-untyped-def]
        if not self.documents:
            return Recall()
        pick = self.documents[os.urandom(1)[0] % len(self.documents)]
        return Recall(documents=(pick,))

    def cleanup(self) -> None:
        self.documents = []


class Forgetful(WordOverlap):
    """Told everything, recalls nothing: another system behind the same contract."""

    def retrieve(self, query, k, user_id, query_timestamp=None) -> Recall:  # type: ignore[no-untyped-def]
        return Recall()


def test_two_reruns_that_differ_are_called_not_deterministic() -> None:
    demo = memrank.evaluation("demo")
    runs = [memrank.run(Dice(), demo) for _ in range(8)]
    differing = [(a, b) for a in runs for b in runs if a is not b and differing_tasks(a, b)[0]]
    assert differing, "eight dice runs never differed"
    a, b = differing[0]
    assert is_rerun(a, b)
    reading = memrank.paired(a, b)
    assert reading.rerun is not None and "not deterministic" in reading.rerun
    assert "rerun: A and B ran one configuration" in str(reading)


def test_identical_reruns_and_different_systems_carry_no_note() -> None:
    demo = memrank.evaluation("demo")
    a = memrank.run(memrank.system("bm25"), demo)
    b = memrank.run(memrank.system("bm25"), demo)
    assert is_rerun(a, b) and rerun_note(a, b) is None
    other = memrank.run(memrank.system("word-overlap"), demo)
    assert not is_rerun(a, other) and rerun_note(a, other) is None
    assert memrank.paired(a, other).rerun is None


def test_bookkeeping_values_are_not_scores_and_make_no_rerun_note() -> None:
    demo = memrank.evaluation("demo")
    a = measure(memrank.run(memrank.system("bm25"), demo), RecalledWords())
    recounted = tuple(
        v.model_copy(update={"value": (v.value or 0) + 1}) if v.measure == "recalled-words" else v
        for v in a.values
    )
    b = a.model_copy(update={"values": recounted})
    assert any(v.measure == "recalled-words" for v in a.values)
    assert differing_tasks(a, b) == (0, len(demo.tasks)) and rerun_note(a, b) is None
    rescored = tuple(
        v.model_copy(update={"value": 1 - (v.value or 0)})
        if v.measure == "word-match" and v.task_id == demo.tasks[0].id
        else v
        for v in recounted
    )
    note = rerun_note(a, a.model_copy(update={"values": rescored}))
    assert note is not None and f"1 of {len(demo.tasks)} task(s) have different scores" in note


def test_runs_of_one_class_against_two_endpoints_are_two_systems_not_a_rerun() -> None:
    demo = memrank.evaluation("demo")
    with serving(ContractService(WordOverlap)) as one, serving(ContractService(Forgetful)) as two:
        runs = []
        for url in (one, two):
            memory = AmlMemory(url)
            runs.append(memrank.run(memory, demo))
            memory.close()
    a, b = runs
    assert a.system.components["endpoint"] == one and b.system.components["endpoint"] == two
    assert differing_tasks(a, b)[0] > 0
    assert not is_rerun(a, b) and rerun_note(a, b) is None
    reading = memrank.paired(a, b)
    assert reading.rerun is None and reading.differ is not None
    assert f"endpoint: {one!r} vs {two!r}" in reading.differ
    assert "not a rerun: A and B both ran AmlMemory, but the systems differ" in str(reading)
    assert systems_differ(a, a) is None


def test_a_rerun_whose_integrity_checks_planted_other_canaries_says_so(
    shared_data: Path, tmp_path: Path
) -> None:
    # BM25 served over the contract ranks the same told documents the same way every time, so
    # every score that moves between these runs moved because of what the checks planted.
    smoke = locomo("smoke", path=shared_data / "locomo")
    with serving(ContractService(BM25Adapter)) as url:
        runs = []
        for secret, canaries in ((b"a" * 16, True), (b"b" * 16, True), (b"a" * 16, True)):
            memory = AmlMemory(url)
            planted = memrank.run(memory, smoke, secret=secret, canaries=canaries)
            runs.append(with_probe(memory, planted))  # the evidence of one configuration
            memory.close()
        memory = AmlMemory(url)
        unplanted = memrank.run(memory, smoke, canaries=False)
        # a run of the endpoint before memrank guarded endpoint runs: no integrity record
        before = with_probe(memory, unplanted).model_copy(update={"integrity": None})
        memory.close()
    first, other, again = runs
    assert is_rerun(first, other) and is_rerun(first, before)
    assert differing_tasks(first, again)[0] == 0 and rerun_note(first, again) is None
    assert differing_tasks(first, other)[0] > 0
    both = rerun_note(first, other)
    assert both is not None and "not deterministic" not in both
    assert "planted 24 canary facts in A's run and 24 others in B's" in both
    assert "inside the budget of 500 words" in both
    assert differing_tasks(before, first)[0] > 0
    one = rerun_note(before, first)
    assert one is not None and "planted 24 canary facts in B's run and none in A's" in one
    # memrank pair reads the checks from the saved files, not from the objects
    a, b = before.save(tmp_path / "a.json"), first.save(tmp_path / "b.json")
    outcome = CliRunner().invoke(main, ["pair", str(a), str(b)])
    assert outcome.exit_code == 0, outcome.output
    assert f"  rerun: {one}" in outcome.output
