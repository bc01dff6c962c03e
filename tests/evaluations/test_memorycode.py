"""MemoryCode as memrank reads it: fingerprint, pins, governing sessions, lengths and slices."""

from __future__ import annotations

import hashlib
import importlib
from collections import Counter
from pathlib import Path

import pytest

import memrank
from memrank import Evaluation
from memrank.errors import DatasetMismatch, UsageError
from memrank.evaluations import memorycode
from memrank.evaluations._cache import Manifest
from memrank.evaluations.memorycode import CATEGORIES, DIR_VARIABLE, MANIFEST


@pytest.fixture(scope="module")
def full(shared_data: Path) -> Evaluation:
    return memorycode(path=shared_data / "memorycode")


def test_fingerprint_360_dialogues_4182_tasks(full: Evaluation) -> None:
    assert full.track == "coding" and full.k == 20 and full.slice is None
    assert len({t.group for t in full.tasks}) == 360 and len(full.tasks) == 4182
    bundle = full.dataset_bundle()
    assert bundle.sha256 == MANIFEST.bundle_sha256 and full.version == "memorycode@v1+51638298"
    assert len(bundle.files) == 360 and sum(f.size for f in bundle.files) == 27_055_680
    assert bundle.question_counts == {
        "sessions-1": 43, "sessions-10": 152, "sessions-100": 1364, "sessions-15": 244,
        "sessions-2": 45, "sessions-20": 299, "sessions-3": 66, "sessions-30": 424,
        "sessions-4": 79, "sessions-40": 545, "sessions-5": 108, "sessions-50": 813,
    }  # fmt: skip
    lengths = Counter(len(t.context) for t in full.tasks if t.id.endswith(":h1"))
    assert lengths == dict.fromkeys((1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 100), 30)


def test_the_evidence_is_the_session_that_last_stated_each_rule(full: Evaluation) -> None:
    tasks = [t for t in full.tasks if t.group == "dialogue-300"]
    assert len(tasks) == 16 and len(tasks[0].context) == 40
    first = tasks[0]
    assert first.context[0].id == "dialogue-300:session-1"
    assert first.context[0].metadata == {"session_id": "session-1"}
    assert first.context[0].text.startswith("Yuichi: Hi Pablo, it's great to finally meet you!")
    rules = {i["id"]: i for i in first.metadata["instructions"]}
    # variable names: introduced in session 1 ('x_'), updated six times, last in session 40
    assert {k: v for k, v in rules[7].items() if k != "own"} == {
        "id": 7, "object": "variable", "rule": "^y_.*", "session": "session-40"
    }  # fmt: skip
    assert rules[13]["rule"] == ".*_ud$" and rules[13]["session"] == "session-36"
    evidence = first.expected.evidence_doc_ids
    assert "dialogue-300:session-1" not in evidence  # both its rules were superseded
    assert "dialogue-300:session-40" in evidence and "dialogue-300:session-36" in evidence
    assert len(evidence) == len(set(evidence)) == len({i["session"] for i in rules.values()})
    assert all(sum(i["own"] for i in t.metadata["instructions"]) == 1 for t in tasks)
    assert str(first.prompt).startswith(f"Write a {first.metadata['query']}. Do not provide")
    assert all(turn["text"] == "" for turn in first.metadata["evidence"])


def test_a_changed_file_is_refused_with_both_digests(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = shared_data / "memorycode" / "dataset"
    (tmp_path / "dataset").mkdir()
    for file in source.iterdir():
        (tmp_path / "dataset" / file.name).symlink_to(file)
    changed = tmp_path / "dataset" / "dialogue_7.json"
    raw = changed.read_bytes() + b"\n"
    changed.unlink()
    changed.write_bytes(raw)
    monkeypatch.setenv(DIR_VARIABLE, str(tmp_path))
    with pytest.raises(DatasetMismatch) as refused:
        memorycode()
    message = str(refused.value)
    assert "dialogue_7.json is" in message and "longer than the pinned" in message
    assert f"its sha256 is {hashlib.sha256(raw).hexdigest()}" in message
    expected = next(
        line.split()[0]
        for line in (shared_data / "memorycode" / "SHA256SUMS").read_text().splitlines()
        if line.endswith(" dialogue_7.json")
    )
    assert f"the pin expects {expected}" in message


def test_an_edited_manifest_is_refused(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("memrank.evaluations.memorycode")
    wrong = Manifest(**{**MANIFEST.__dict__, "bundle_sha256": "0" * 64})
    monkeypatch.setattr(module, "MANIFEST", wrong)
    with pytest.raises(DatasetMismatch, match="memorycode.sha256: the manifest's digest is 5163"):
        module.memorycode(path=shared_data / "memorycode")


def test_slices_by_length_and_smoke(data_dir: Path) -> None:
    smoke = memrank.evaluation("memorycode:smoke")
    assert smoke.slice == "smoke"
    assert list(dict.fromkeys(t.category for t in smoke.tasks)) == list(CATEGORIES)
    assert len({t.group for t in smoke.tasks}) == 12
    longest = memorycode("sessions-100")
    assert {t.category for t in longest.tasks} == {"sessions-100"} and len(longest.tasks) == 1364
    with pytest.raises(UsageError, match="has no slice 'sessions-6'"):
        memorycode("sessions-6")


def test_bm25_on_smoke_reports_per_length(data_dir: Path) -> None:
    result = memrank.run(memrank.system("bm25"), memrank.evaluation("memorycode:smoke"))
    assert not result.failed
    means = {v.measure: v.value for v in result.values if v.task_id is None}
    assert means["evidence-recall@20.mean.category-sessions-1"] == 1.0
    longest = means["evidence-recall@20.mean.category-sessions-100"]
    assert longest is not None and 0 < longest < 1  # 20 of 100 sessions cannot hold every rule
