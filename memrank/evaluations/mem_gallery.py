"""mem-gallery: Mem-Gallery's 20 multimodal conversations and their 1,711 questions.

Bei et al., "Mem-Gallery: Benchmarking Multimodal Long-Term Conversational Memory for MLLM
Agents", arXiv:2601.03515; ma-xueqian/Mem-Gallery at commit c0a04545, ``benchmark/data/dialog``
(MIT). The 20 files are pinned by a manifest (``data/mem-gallery.sha256``) and downloaded once
into the data dir. The 1,492 images are Git LFS objects upstream and are not downloaded: each
image turn and image question carries a caption, so the evaluation runs on captions unless a
folder of the images is given (``images=`` or ``MEMRANK_MEM_GALLERY_IMAGES``, laid out as the
upstream ``image/`` folder: ``<conversation>/<file>``).

How the files become tasks:

- one group per conversation (its file name); one document per round, id the round
  (``D1:3``), content ``user (<name>): <user>`` and ``assistant: <assistant>`` on two lines
  as the upstream harness writes them, the session's date (midnight UTC) as timestamp,
  ``session_id`` and ``round`` in its metadata;
- a round that showed an image adds ``image_id: <id>`` and then the image: with the image file
  at hand, an ``image_url`` part (a ``data:`` URI) whose caption is kept in the document's
  ``image_captions`` (what a text-only system reads instead); without it, the caption as text,
  ``[image: <caption>]``. ``metadata["images"]`` records which each image was (``file`` or
  ``caption``), and every image file read is listed in the dataset bundle with its own digest;
- one task per question, id ``<conversation>:q<n>``, category its type (``point``); a question
  with an image asks with it (its file as an ``image_url`` part, its caption kept in the task's
  ``image_captions``; else its caption as text);
- the evidence is the rounds its ``clue`` names. The 184 ``AR`` questions name none (their
  answer is that it was never said): they abstain and have no evidence recall.
"""

from __future__ import annotations

import base64
import os
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from memrank.budget import Budget
from memrank.errors import DatasetMalformed, DatasetMissing
from memrank.evaluation import BundleFile, Evaluation
from memrank.evaluations._benchmark import (
    check_slice,
    evidence_measures,
    expected_of,
    first_groups,
    first_per_category,
    in_format,
)
from memrank.evaluations._cache import Manifest, bundle, load_all, read
from memrank.measures import EvidenceTurn, evidence_metadata
from memrank.measures.budget import held_to
from memrank.system import (
    IMAGE_CAPTIONS,
    Content,
    ContentPart,
    Document,
    ImagePart,
    ImageURL,
    TextPart,
)
from memrank.task import Clearing, Task

__all__ = [
    "DIR_VARIABLE",
    "HEADLINE",
    "IMAGES_VARIABLE",
    "MANIFEST",
    "SLICES",
    "TYPES",
    "mem_gallery",
]

HEADLINE = "evidence-recall@500w"
"""The headline value: evidence recall within the 500-word budget: the board's Mem-Gallery column."""

DIR_VARIABLE = "MEMRANK_MEM_GALLERY_DIR"
IMAGES_VARIABLE = "MEMRANK_MEM_GALLERY_IMAGES"
MANIFEST = Manifest(
    evaluation="mem-gallery",
    manifest="mem-gallery.sha256",
    url="https://raw.githubusercontent.com/ma-xueqian/Mem-Gallery/"
    "c0a045454850be4db8ded067105c81f998b9d457/benchmark/data/",
    bundle_sha256="c274264b00d7348b0a33422a8434e8ee555c0737e7884c51b0a53eb7c7a86ea4",
    variable=DIR_VARIABLE,
)
TYPES = {
    "FR": "factual retrieval (memory extraction)",
    "VS": "visual search: which image shown (answer an image id)",
    "TTL": "test-time learning: learn from images shown, apply to a question's image",
    "MR": "memory reasoning over several rounds",
    "TR": "temporal reasoning",
    "VR": "visual reasoning over images shown",
    "KR": "knowledge resolution: the latest of changing statements",
    "CD": "conflict detection",
    "AR": "answer refusal: never said (abstains, no evidence)",
}
ABSTAINING = "AR"
SLICES = {
    "smoke": "the first conversation, its first question of each type (9 questions)",
    "mini": "the first 3 conversations",
}
_PER_TYPE = {
    "AR": 184,
    "CD": 81,
    "FR": 219,
    "KR": 81,
    "MR": 206,
    "TR": 123,
    "TTL": 337,
    "VR": 174,
    "VS": 306,
}
_FINGERPRINT = {
    "conversations": 20,
    "sessions": 240,
    "rounds": 3_962,
    "image rounds": 1_003,
    "types": _PER_TYPE,
}
_MEDIA = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}
_IMAGE_PREFIX = "../image/"


BUDGET = Budget.words(500)
"""The context budget Mem-Gallery declares: every recall is also read cut to 500 words."""


def mem_gallery(
    slice: str | None = None,
    path: str | Path | None = None,
    images: str | Path | None = None,
) -> Evaluation:
    """Mem-Gallery (all 20 conversations), or a slice: ``smoke`` or ``mini``.

    ``path`` (or ``MEMRANK_MEM_GALLERY_DIR``) names a folder holding ``dialog/``; without one
    the files are read from, or downloaded to, ``<data dir>/mem-gallery/``. ``images`` (or
    ``MEMRANK_MEM_GALLERY_IMAGES``) names a folder of the images (``<conversation>/<file>``):
    an image found there is given as an image part, any other as its caption.
    """
    check_slice("mem-gallery", slice, SLICES)
    materials = load_all(MANIFEST, path)
    folder = _images_folder(images)
    reader = _Reader(folder)
    tasks: list[Task] = []
    counts: Counter[str] = Counter()
    for material in materials:
        with in_format(material.path, "Mem-Gallery's dialogue format"):
            tasks += reader.conversation(Path(material.file.name).stem, material.raw, counts)
    _check_fingerprint(materials[0].path.parent, tasks, counts)
    chosen = tuple(tasks)
    if slice == "smoke":
        chosen = first_per_category(first_groups(chosen, 1), 1)
    elif slice == "mini":
        chosen = first_groups(chosen, 3)
    images_read = list({f.name: f for f in reader.files}.values())  # an image shown twice: once
    made = bundle([m.file for m in materials] + images_read, chosen)
    # every arm held to the same 500 words (as LoCoMo): returning more cannot buy recall
    return held_to(
        Evaluation(
            name="mem-gallery",
            version=f"mem-gallery@v1+{made.sha256[:8]}",
            tasks=chosen,
            headline=HEADLINE,
            measures=evidence_measures([t for t in TYPES if t != ABSTAINING]),
            clearing=Clearing.PER_GROUP,
            track="multimodal",
            k=20,
            slice=slice,
            dataset=made,
        ),
        BUDGET,
    )


def _images_folder(given: str | Path | None) -> Path | None:
    if given is None and os.environ.get(IMAGES_VARIABLE):
        given = os.environ[IMAGES_VARIABLE]
    if given is None:
        return None
    folder = Path(given).expanduser()
    if not folder.is_dir():
        raise DatasetMissing(
            f"{folder}: no such folder (the Mem-Gallery images); point {IMAGES_VARIABLE} at "
            "the dataset's image/ folder, or leave it unset to run on captions"
        )
    return folder


def _check_fingerprint(where: Path, tasks: Sequence[Task], counts: Counter[str]) -> None:
    types = dict(sorted(Counter(task.category or "" for task in tasks).items()))
    read = {
        "conversations": len({task.group for task in tasks}),
        "sessions": counts["sessions"],
        "rounds": counts["rounds"],
        "image rounds": counts["image rounds"],
        "types": types,
    }
    if read != _FINGERPRINT:
        raise DatasetMalformed(f"{where}: read {read}; the pinned files hold {_FINGERPRINT}")
    clueless = sum(1 for task in tasks if not task.metadata["evidence"])
    if clueless != _PER_TYPE[ABSTAINING] or any(
        task.metadata["evidence"] for task in tasks if task.category == ABSTAINING
    ):
        raise DatasetMalformed(
            f"{where}: {clueless} questions name no clue round; the pinned files have exactly "
            f"the {_PER_TYPE[ABSTAINING]} {ABSTAINING} questions without one"
        )


class _Reader:
    """Reads conversations, giving each image as a part when its file is in the folder."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.files: list[BundleFile] = []
        """The image files read, each with its own digest, for the dataset bundle."""

    def conversation(self, group: str, raw: bytes, counts: Counter[str]) -> list[Task]:
        data = orjson.loads(raw)
        speaker = f"user ({data['character_profile']['name']})"
        rounds: dict[str, tuple[Document, EvidenceTurn]] = {}
        for session in data["multi_session_dialogues"]:
            counts["sessions"] += 1
            when = datetime.strptime(session["date"], "%Y-%m-%d").replace(tzinfo=UTC)
            for turn in session["dialogues"]:
                counts["rounds"] += 1
                counts["image rounds"] += bool(turn.get("image_id"))
                text = f"{speaker}: {turn['user']}\nassistant: {turn['assistant']}"
                document = self._document(group, session["session_id"], when, turn, text)
                # The round as a text-only reader has it (image ids and captions included),
                # the same whether or not its images were given as parts.
                evidence = EvidenceTurn(
                    id=document.id, session=session["session_id"], text=document.text
                )
                rounds[document.id] = (document, evidence)
        context = tuple(document for document, _ in rounds.values())
        return [
            self._task(group, number, question, context, rounds)
            for number, question in enumerate(data["human-annotated QAs"], start=1)
        ]

    def _document(
        self, group: str, session: str, when: datetime, turn: dict[str, Any], text: str
    ) -> Document:
        parts: list[ContentPart] = [TextPart(text=text)]
        captions: list[str] = []
        shown: dict[str, str] = {}
        images = zip(
            turn.get("image_id", ()),
            turn.get("input_image", ()),
            turn.get("image_caption", ()),
            strict=True,
        )
        for image_id, where, caption in images:
            parts.append(TextPart(text=f"image_id: {image_id}"))
            image = self._image(where)
            if image is None:
                parts.append(TextPart(text=f"[image: {caption}]"))
                shown[image_id] = "caption"
            else:
                parts.append(image)
                captions.append(caption)
                shown[image_id] = "file"
        metadata: dict[str, Any] = {"session_id": session, "round": turn["round"]}
        if shown:
            metadata["images"] = shown
        if captions:
            metadata[IMAGE_CAPTIONS] = captions
        # With no image part left, the content is the very string a text-only reader would get.
        content: Content = (
            tuple(parts)
            if captions
            else "\n".join(p.text for p in parts if isinstance(p, TextPart))
        )
        return Document(
            id=turn["round"],
            content=content,
            user_id=group,
            timestamp=when,
            metadata=metadata,
        )

    def _image(self, where: str) -> ImagePart | None:
        """The image as a ``data:`` URI part when its file is in the folder, else None."""
        if self.folder is None or not where.startswith(_IMAGE_PREFIX):
            return None
        relative = where.removeprefix(_IMAGE_PREFIX)
        path = self.folder / relative
        media = _MEDIA.get(path.suffix.lower())
        if media is None or not path.is_file():
            return None
        material = read(path, f"image/{relative}")
        self.files.append(material.file)
        encoded = base64.b64encode(material.raw).decode("ascii")
        return ImagePart(image_url=ImageURL(url=f"data:{media};base64,{encoded}"))

    def _task(
        self,
        group: str,
        number: int,
        question: dict[str, Any],
        context: tuple[Document, ...],
        rounds: dict[str, tuple[Document, EvidenceTurn]],
    ) -> Task:
        kind = str(question["point"])
        evidence = [rounds[r][1] for r in question["clue"]]
        abstain = kind == ABSTAINING
        metadata = evidence_metadata(evidence)
        prompt: Content = question["question"]
        if question.get("question_image"):
            image = self._image(question["question_image"])
            metadata["images"] = {"question": "caption" if image is None else "file"}
            if image is None:
                prompt = f"{prompt}\n[image: {question['image_caption']}]"
            else:
                prompt = (TextPart(text=str(prompt)), image)
                metadata[IMAGE_CAPTIONS] = [str(question["image_caption"])]
        return Task(
            id=f"{group}:q{number}",
            prompt=prompt,
            group=group,
            context=context,
            category=kind,
            expected=expected_of(
                str(question["answer"]), evidence, spans=not abstain, abstain=abstain
            ),
            metadata=metadata,
        )
