"""BEAM in its own folder format, on the one conversation shared beside the repository."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import memrank
from memrank.evaluations import beam, beam_folders
from memrank.evaluations.beam import ABILITIES


def test_the_pinned_conversation(data_dir: Path) -> None:
    evaluation = beam()
    assert len(evaluation.tasks) == 20 and evaluation.k == 20
    assert {t.category for t in evaluation.tasks} == set(ABILITIES)
    bundle = evaluation.dataset_bundle()
    assert [f.name for f in bundle.files] == [
        "100K-conv1/chat.json",
        "100K-conv1/probing_questions.json",
    ]
    assert bundle.question_counts == dict.fromkeys(ABILITIES, 2)
    context = evaluation.tasks[0].context
    assert len(context) == 188 and context[0].id == "100K-conv1:0"
    assert context[0].metadata == {"session_id": "batch-1", "role": "user", "chat_id": 0}
    assert context[0].timestamp == datetime(2024, 3, 15, tzinfo=UTC)
    assert {d.metadata["session_id"] for d in context} == {"batch-1", "batch-2", "batch-3"}


def test_evidence_comes_from_source_chat_ids(data_dir: Path) -> None:
    tasks = {t.id: t for t in beam().tasks}
    contradiction = tasks["100K-conv1:contradiction_resolution:1"]  # {"first_statement": [58], ...}
    assert contradiction.expected.evidence_doc_ids == ("100K-conv1:58", "100K-conv1:24")
    assert tasks["100K-conv1:event_ordering:1"].expected.evidence_doc_ids == (
        "100K-conv1:4",
        "100K-conv1:60",
        "100K-conv1:116",
    )
    abstaining = tasks["100K-conv1:abstention:1"]
    assert abstaining.expected.abstain and abstaining.metadata["evidence"] == []
    assert tasks["100K-conv1:information_extraction:1"].expected.answers == (
        "My first sprint ends on March 29.",
    )


def test_smoke_is_one_question_per_ability(shared_data: Path) -> None:
    smoke = beam("smoke", path=shared_data / "beam")
    assert smoke.slice == "smoke" and len(smoke.tasks) == 10
    assert [t.category for t in smoke.tasks] == list(ABILITIES)
    result = memrank.run(memrank.system("bm25"), smoke)
    assert not result.failed
    abstaining = [v for v in result.values if v.task_id == "100K-conv1:abstention:1"]
    assert any("abstention task" in v.why for v in abstaining if v.value is None)


def test_unpinned_folders_read_the_same_way(shared_data: Path) -> None:
    folder = beam_folders(shared_data / "beam" / "100K-conv1")
    pinned = beam(path=shared_data / "beam")
    assert [t.id for t in folder.tasks] == [t.id for t in pinned.tasks]
    assert folder.version == pinned.version
