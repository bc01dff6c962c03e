"""Text-only systems told image parts: they read each image's caption, and say that they did."""

from __future__ import annotations

import pytest

import memrank
from memrank.evaluation import Evaluation
from memrank.system import IMAGE_CAPTIONS, Document, ImagePart, ImageURL, TextPart, text_of
from memrank.task import Expected, Task

_IMAGE = ImagePart(image_url=ImageURL(url="data:image/png;base64,iVBORw0KGgo="))


def _pictured(caption: str | None) -> Document:
    metadata = {} if caption is None else {IMAGE_CAPTIONS: [caption]}
    return Document(
        id="shown",
        content=(TextPart(text="look at this"), _IMAGE),
        metadata={"session_id": "s1", **metadata},
    )


def test_text_of_reads_image_parts_as_their_captions() -> None:
    parts = (TextPart(text="a"), _IMAGE, TextPart(text="b"), _IMAGE)
    assert text_of(parts) == "a\nb"
    assert text_of(parts, ["a red kayak"]) == "a\n[image: a red kayak]\nb"
    assert text_of(parts, ["one", "two"]) == "a\n[image: one]\nb\n[image: two]"
    assert text_of("plain", ["ignored"]) == "plain"
    assert _pictured("a red kayak on a lake").text == "look at this\n[image: a red kayak on a lake]"
    assert _pictured(None).text == "look at this"


def _evaluation() -> Evaluation:
    context = (
        _pictured("a red kayak on a lake"),
        Document(id="plain", content="we talked about the weather", metadata={"session_id": "s1"}),
    )
    return Evaluation(
        name="captions",
        version="captions@v1",
        track="multimodal",
        tasks=(
            Task(
                id="q1",
                prompt="what colour was the kayak?",
                group="g",
                context=context,
                expected=Expected(evidence_doc_ids=("shown",)),
            ),
        ),
    )


@pytest.mark.parametrize("name", ["bm25", "word-overlap", "full-context", "fixed-context"])
def test_text_only_systems_find_images_by_caption_and_record_it(name: str) -> None:
    result = memrank.run(memrank.system(name), _evaluation())
    assert not result.failed
    recalled = result.traces[0].recalled
    assert recalled is not None and recalled.documents
    assert "red kayak" in recalled.documents[0].text
    assert result.system.components["images"] == (
        "text-only: 1 image part(s) read as their caption text "
        "(left out where a document gives no caption)"
    )


def test_a_system_told_no_image_records_nothing_about_images() -> None:
    result = memrank.run(memrank.system("bm25"), memrank.evaluation("demo"))
    assert "images" not in result.system.components
