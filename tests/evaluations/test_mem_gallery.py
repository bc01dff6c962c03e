"""Mem-Gallery as memrank reads it: fingerprint, pins, captions, images given as parts, slices."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

import memrank
from memrank import Evaluation, Task
from memrank.errors import DatasetMismatch, DatasetMissing
from memrank.evaluations import mem_gallery
from memrank.evaluations.mem_gallery import DIR_VARIABLE, IMAGES_VARIABLE, TYPES
from memrank.system import IMAGE_CAPTIONS, ImagePart, TextPart

FIRST = "AI_Robotics_Automation_Future_Tech"
_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@pytest.fixture(scope="module")
def full(shared_data: Path) -> Evaluation:
    return mem_gallery(path=shared_data / "mem-gallery")


def _task(evaluation: Evaluation, task_id: str) -> Task:
    return next(task for task in evaluation.tasks if task.id == task_id)


def test_fingerprint_20_conversations_1711_questions(full: Evaluation) -> None:
    assert full.track == "multimodal" and full.k == 20 and full.slice is None
    assert len({t.group for t in full.tasks}) == 20 and len(full.tasks) == 1711
    bundle = full.dataset_bundle()
    assert bundle.sha256.startswith("c274264b") and full.version == "mem-gallery@v1+c274264b"
    assert len(bundle.files) == 20 and bundle.files[0].name == f"dialog/{FIRST}.json"
    assert bundle.question_counts == {
        "AR": 184, "CD": 81, "FR": 219, "KR": 81, "MR": 206,
        "TR": 123, "TTL": 337, "VR": 174, "VS": 306,
    }  # fmt: skip
    assert set(bundle.question_counts) == set(TYPES)
    context = full.tasks[0].context
    assert len(context) == 185 and len({d.metadata["session_id"] for d in context}) == 12


def test_rounds_carry_their_captions_as_text_when_no_image_is_given(full: Evaluation) -> None:
    round_ = {d.id: d for d in full.tasks[0].context}["D1:3"]
    assert isinstance(round_.content, str)
    assert round_.content.startswith("user (Julian Vance): Can it play a role in the medical")
    assert "\nimage_id: D1:IMG_001\n[image: Futuristic hospital operating room" in round_.content
    assert round_.metadata == {
        "session_id": "D1",
        "round": "D1:3",
        "images": {"D1:IMG_001": "caption"},
    }
    assert (
        round_.timestamp is not None and round_.timestamp.isoformat() == "2024-06-17T00:00:00+00:00"
    )


def test_evidence_is_the_clue_rounds_and_refusals_abstain(full: Evaluation) -> None:
    first = _task(full, f"{FIRST}:q1")
    assert first.category == "VS" and first.expected.evidence_doc_ids == ("D1:4",)
    assert first.expected.answers == ("D1:IMG_002",)
    # the clue round as a text-only reader has it holds the image id: word-match can decide
    assert "\nimage_id: D1:IMG_002\n[image: " in first.metadata["evidence"][0]["text"]
    assert first.expected.required_spans == ("D1:IMG_002",)
    refusals = [t for t in full.tasks if t.category == "AR"]
    assert len(refusals) == 184
    assert all(t.expected.abstain and not t.metadata["evidence"] for t in refusals)
    assert all(t.metadata["evidence"] for t in full.tasks if t.category != "AR")
    pictured = [t for t in full.tasks if "images" in t.metadata]
    assert len(pictured) == 487 and all(isinstance(t.prompt, str) for t in pictured)
    assert all("\n[image: " in str(t.prompt) for t in pictured)


def _copy(shared: Path, to: Path) -> Path:
    shutil.copytree(shared / "mem-gallery" / "dialog", to / "dialog")
    return to


def test_a_changed_file_is_refused_with_both_digests(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _copy(shared_data, tmp_path)
    changed = folder / "dialog" / f"{FIRST}.json"
    raw = bytearray(changed.read_bytes())
    raw[-2:] = b"  "  # same size, different bytes
    changed.write_bytes(bytes(raw))
    monkeypatch.setenv(DIR_VARIABLE, str(folder))
    with pytest.raises(DatasetMismatch) as refused:
        mem_gallery()
    message = str(refused.value)
    assert "has the pinned size but different bytes" in message
    assert (
        "the pin expects fb51fad8a80b3610d90eaced0bf01bb2250a7f486a8dc67e8e9eee88a4e55b8e"
        in message
    )
    import hashlib

    assert f"its sha256 is {hashlib.sha256(bytes(raw)).hexdigest()}" in message


def test_a_missing_file_or_images_folder_is_named(shared_data: Path, tmp_path: Path) -> None:
    folder = _copy(shared_data, tmp_path)
    (folder / "dialog" / f"{FIRST}.json").unlink()
    with pytest.raises(DatasetMissing, match=f"dialog/{FIRST}.json.*MEMRANK_MEM_GALLERY_DIR"):
        mem_gallery(path=folder)
    with pytest.raises(DatasetMissing, match="no such folder.*MEMRANK_MEM_GALLERY_IMAGES"):
        mem_gallery(path=shared_data / "mem-gallery", images=tmp_path / "nowhere")


def test_images_in_the_folder_are_given_as_parts(
    shared_data: Path, full: Evaluation, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    images = tmp_path / "image" / FIRST
    images.mkdir(parents=True)
    for name in ("D1_IMG_001.jpg", "D1_IMG_002.jpg", "QA_IMG_005.png"):
        (images / name).write_bytes(_PNG)
    monkeypatch.setenv(IMAGES_VARIABLE, str(tmp_path / "image"))
    shown = mem_gallery("smoke", path=shared_data / "mem-gallery")
    rounds = {d.id: d for d in shown.tasks[0].context}
    pictured = rounds["D1:3"]
    assert isinstance(pictured.content, tuple)
    text, label, image = pictured.content
    assert isinstance(text, TextPart) and label == TextPart(text="image_id: D1:IMG_001")
    assert isinstance(image, ImagePart)
    assert image.image_url.url == "data:image/jpeg;base64," + base64.b64encode(_PNG).decode()
    assert pictured.metadata["images"] == {"D1:IMG_001": "file"}
    assert pictured.metadata[IMAGE_CAPTIONS][0].startswith("Futuristic hospital operating room")
    # A text-only reader gets exactly what the caption-only evaluation gives as text.
    captioned = {d.id: d for d in full.tasks[0].context}
    assert all(rounds[i].text == captioned[i].text for i in captioned)
    assert rounds["D2:1"].content == captioned["D2:1"].content  # no file for it: its caption
    files = [f.name for f in shown.dataset_bundle().files]
    assert f"image/{FIRST}/D1_IMG_001.jpg" in files and len(files) == 23
    monkeypatch.delenv(IMAGES_VARIABLE)
    captioned_only = mem_gallery("smoke", path=shared_data / "mem-gallery")
    assert captioned_only.version == "mem-gallery@v1+c274264b" != shown.version


def test_a_question_image_in_the_folder_is_asked_as_a_part(
    shared_data: Path, tmp_path: Path
) -> None:
    images = tmp_path / FIRST
    images.mkdir()
    (images / "QA_IMG_005.png").write_bytes(_PNG)
    shown = mem_gallery(path=shared_data / "mem-gallery", images=tmp_path)
    asked = [t for t in shown.tasks if isinstance(t.prompt, tuple)]
    assert len(asked) == 1 and asked[0].category == "TTL"
    assert asked[0].prompt[0] == TextPart(text="What is the name of the product in the picture?")
    assert asked[0].metadata["images"] == {"question": "file"}


def test_a_text_only_system_reads_captions_and_the_run_records_it(
    shared_data: Path, tmp_path: Path
) -> None:
    images = tmp_path / FIRST
    images.mkdir()
    for name in ("D1_IMG_001.jpg", "D1_IMG_002.jpg"):
        (images / name).write_bytes(_PNG)
    captions = memrank.run(
        memrank.system("bm25"), mem_gallery("smoke", shared_data / "mem-gallery")
    )
    shown = memrank.run(
        memrank.system("bm25"), mem_gallery("smoke", shared_data / "mem-gallery", images=tmp_path)
    )
    assert not captions.failed and not shown.failed
    assert "images" not in captions.system.components
    assert shown.system.components["images"].startswith("text-only: 2 image part(s) read as")

    def recalled(result: memrank.Result) -> list[tuple[str, ...]]:
        return [tuple(d.id for d in t.recalled.documents) for t in result.traces if t.recalled]

    assert recalled(captions) == recalled(shown)


def test_smoke_is_one_question_per_type_and_refusals_score_none(
    full: Evaluation, data_dir: Path
) -> None:
    smoke = memrank.evaluation("mem-gallery:smoke")
    assert smoke.slice == "smoke" and [t.category for t in smoke.tasks] == sorted(
        TYPES, key=[t.category for t in full.tasks[:57]].index
    )
    result = memrank.run(memrank.system("bm25"), smoke)
    refusal = next(t.id for t in smoke.tasks if t.category == "AR")
    values = [
        v for v in result.values if v.task_id == refusal and v.measure == "evidence-recall@10"
    ]
    assert values[0].value is None and "abstention task" in values[0].why
    means = {v.measure: v.value for v in result.values if v.task_id is None}
    assert "evidence-recall@10.mean.category-VS" in means
    assert "evidence-recall@10.mean.category-AR" not in means
