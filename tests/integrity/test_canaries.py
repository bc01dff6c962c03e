"""Canaries: how many each unit gets, where they go, and what they look like beside the
benchmark's own material (LoCoMo's, and the demo's)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import memrank
from memrank.evaluation import Evaluation
from memrank.evaluations import locomo
from memrank.integrity.canaries import (
    CANARY_CATEGORY,
    CROWD,
    FLOOR,
    SHARE,
    counts,
    is_canary,
    plant,
)
from memrank.task import Unit
from tests.endpoints import SECRET

OTHER = bytes(range(1, 17))
SECRETS = [bytes([n]) * 16 for n in range(12)]


@pytest.fixture(scope="module")
def conversation(smoke: Evaluation) -> Unit:
    (unit,) = smoke.units()
    return unit


@pytest.fixture(scope="module")
def planted(conversation: Unit) -> Unit:
    (count,) = counts([conversation], SECRET)
    return plant(conversation, SECRET, count)


def _canaries(unit: Unit) -> list[memrank.Task]:
    return [task for task in unit.tasks if is_canary(task)]


def _total(tasks: int) -> int:
    """SHARE of the tasks, rounded up, at least FLOOR, at most one per task (the module's rule)."""
    return max(min(FLOOR, tasks), math.ceil(SHARE * tasks))


def test_one_unit_gets_its_share_of_the_tasks_within_the_floor(
    conversation: Unit, demo: Evaluation
) -> None:
    assert FLOOR >= 2 and 0 < SHARE < 0.5
    for secret in SECRETS:
        assert counts([conversation], secret) == [_total(len(conversation.tasks))]
        assert counts(list(demo.units()), secret) == [len(demo.tasks)]  # fewer tasks than FLOOR
    assert counts([], SECRET) == []


def test_units_share_the_canaries_in_proportion_to_their_tasks(shared_data: Path) -> None:
    units = list(locomo(path=shared_data / "locomo").units())
    tasks = sum(len(unit.tasks) for unit in units)
    total = _total(tasks)
    assert total == math.ceil(SHARE * tasks)  # all of LoCoMo is past the floor
    drawn = [counts(units, secret) for secret in SECRETS]
    for each in drawn:
        for unit, count in zip(units, each, strict=True):
            share = total * len(unit.tasks) / tasks
            assert count in (math.floor(share), math.ceil(share)), unit.name
    assert counts(units, SECRET) == counts(units, SECRET)  # the draw is the secret's
    assert len({tuple(each) for each in drawn}) > 1  # and differs across secrets
    # rounded up or down at random, the sum stays near the total
    assert abs(sum(map(sum, drawn)) / len(drawn) - total) < len(units) / 2


def test_planting_is_the_secrets_the_same_for_one_and_new_for_another(
    conversation: Unit, planted: Unit
) -> None:
    assert plant(conversation, SECRET, len(_canaries(planted))) == planted
    other = plant(conversation, OTHER, len(_canaries(planted)))
    assert [t.prompt for t in _canaries(other)] != [t.prompt for t in _canaries(planted)]
    assert [t.id for t in planted.tasks] != [t.id for t in other.tasks]  # other places too
    assert plant(conversation, SECRET, 0) == conversation


def test_the_units_own_documents_and_tasks_keep_their_order(
    conversation: Unit, planted: Unit
) -> None:
    own = {document.id for document in conversation.documents}
    assert [d for d in planted.documents if d.id in own] == list(conversation.documents)
    assert [t for t in planted.tasks if not is_canary(t)] == list(conversation.tasks)
    assert len(_canaries(planted)) == counts([conversation], SECRET)[0]
    positions = [n for n, task in enumerate(planted.tasks) if is_canary(task)]
    assert positions != list(range(len(positions)))  # among the questions, not before them


def test_every_canary_is_a_task_with_its_evidence_among_the_units_documents(
    conversation: Unit, planted: Unit
) -> None:
    told = {document.id: document for document in planted.documents}
    ids = [task.id for task in planted.tasks]
    assert len(set(ids)) == len(ids)  # canary task ids are unique, and clash with none
    canaries = _canaries(planted)
    assert all(task.category == CANARY_CATEGORY for task in canaries)
    for task in canaries:
        evidence = task.metadata["evidence"]
        assert [turn["id"] for turn in evidence] == list(task.expected.evidence_doc_ids)
        for turn in evidence:
            document = told[turn["id"]]  # told to the unit, as the benchmark's turns are
            assert document.content == f"{document.metadata['speaker']}: {turn['text']}"
        (answer,) = task.expected.answers
        assert any(answer.lower() in turn["text"].lower() for turn in evidence), task.id


def test_canary_turns_take_the_shape_of_the_units_own(conversation: Unit, planted: Unit) -> None:
    speakers = {d.metadata["speaker"] for d in conversation.documents}
    times_of: dict[str, set[object]] = {}
    for document in conversation.documents:
        times_of.setdefault(document.metadata["session_id"], set()).add(document.timestamp)
    own = {document.id for document in conversation.documents}
    added = [d for d in planted.documents if d.id not in own]
    assert added
    for document in added:
        speaker = document.metadata["speaker"]
        assert speaker in speakers and document.text.startswith(f"{speaker}: ")
        # in one of the unit's sessions, at that session's time
        assert document.timestamp in times_of[document.metadata["session_id"]]


def test_each_session_stays_one_run_of_turns_in_time_order(planted: Unit) -> None:
    sessions = [d.metadata["session_id"] for d in planted.documents]
    runs = [s for n, s in enumerate(sessions) if n == 0 or sessions[n - 1] != s]
    times = [d.timestamp.isoformat() for d in planted.documents if d.timestamp is not None]
    assert len(times) == len(planted.documents)
    assert times == sorted(times)  # as the conversation's own turns are (all in UTC)
    assert len(runs) == len(set(runs))


def test_a_canary_question_names_its_speaker_never_its_answer(planted: Unit) -> None:
    speakers = {d.metadata["speaker"] for d in planted.documents}
    for task in _canaries(planted):
        question = str(task.prompt)
        assert any(speaker in question for speaker in speakers), question
        (answer,) = task.expected.answers
        assert answer.lower() not in question.lower(), question


def test_in_a_multiple_choice_evaluation_a_canary_offers_options_too(demo: Evaluation) -> None:
    offered = demo.model_copy(
        update={"tasks": tuple(t.model_copy(update={"options": ("A", "B")}) for t in demo.tasks)}
    )
    (unit,) = offered.units()
    canaries = _canaries(plant(unit, SECRET, 2))
    assert canaries and all(task.options for task in canaries)


def test_no_canary_turn_repeats_a_turn_of_its_unit_word_for_word(planted: Unit) -> None:
    said = [document.content for document in planted.documents]
    assert len(set(said)) == len(said), sorted({t for t in said if said.count(t) > 1})


def test_look_alikes_go_only_where_the_unit_has_turns_of_its_own_to_hide_them_among(
    planted: Unit, demo: Evaluation
) -> None:
    def look_alikes(unit: Unit) -> int:
        return sum(1 for d in unit.documents if ":look-alike-" in d.id)

    # LoCoMo's first conversation: 419 turns for its 24 canaries, so they bring look-alikes
    assert look_alikes(planted) > 0
    (unit,) = demo.units()
    assert len(unit.documents) < CROWD * len(demo.tasks)  # 3 turns for 5 canaries
    (count,) = counts([unit], SECRET)
    sparse = plant(unit, SECRET, count)
    assert look_alikes(sparse) == 0
    # the canaries' own turns still go in: 5 canaries of the four kinds bring 7
    assert len(sparse.documents) == len(unit.documents) + 7
    roomy = unit.model_copy(update={"documents": unit.documents * (CROWD * count)})
    assert look_alikes(plant(roomy, SECRET, count)) > 0
