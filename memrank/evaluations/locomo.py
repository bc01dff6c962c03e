"""locomo: LoCoMo's ten very long conversations and their 1,986 questions.

Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL 2024;
snap-research/locomo ``data/locomo10.json``, CC BY-NC 4.0 (non-commercial evaluation, with
attribution). The file is pinned by sha256 and downloaded once into the data dir.

How the file becomes tasks:

- one group per conversation (``conv-26`` ...), so its turns are given once and cleared after
  its last question;
- one document per turn, id = the turn's ``dia_id`` (``D3:5``), content ``"<speaker>: <text>"``
  plus ``" [shares <caption>]"`` when the turn shared an image, the session's date as timestamp
  (the file gives no zone: read as UTC), and ``session_id``, ``speaker`` and ``dia_id`` in its
  metadata; sessions in numeric order (``session_10`` after ``session_9``);
- one task per question, id ``<conversation>:q<n>``, category the file's integer as a string.
  Two label sets for those integers are in use and they disagree: the benchmark's evaluation
  code (and most memory-system papers) read 1 multi-hop, 2 temporal, 3 open-domain,
  4 single-hop, 5 adversarial; the paper's table order reads 1 single-hop, 2 multi-hop,
  3 temporal, 4 open-domain, 5 adversarial. memrank keys by the number only.
- evidence ids are normalised (``"D8:6; D9:17"`` split, ``D:11:26`` read as ``D11:26``); ids
  naming no turn of the conversation are dropped and listed in ``metadata["evidence_dropped"]``;
- every task names the conversation's two speakers, speaker_a first, in ``metadata["speakers"]``
  (Mem0's answer prompt lists speaker_a's memories first);
- category 5 is adversarial: its questions (answer in ``adversarial_answer``) are negative
  tasks, reported under the ``-negative`` names and never in a headline mean.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from memrank.budget import Budget
from memrank.errors import DatasetMalformed
from memrank.evaluation import Evaluation
from memrank.evaluations._benchmark import (
    check_slice,
    evidence_measures,
    expected_of,
    first_groups,
    in_format,
)
from memrank.evaluations._cache import Material, Pin, bundle, load
from memrank.measures import EvidenceTurn, evidence_metadata
from memrank.measures.budget import held_to
from memrank.system import Document
from memrank.task import Clearing, Task

__all__ = ["CATEGORIES", "FILE_VARIABLE", "HEADLINE", "PIN", "SLICES", "locomo"]

HEADLINE = "evidence-recall@500w"
"""The headline value: evidence recall within the 500-word budget: the board's LoCoMo column."""

PIN = Pin(
    evaluation="locomo",
    name="locomo10.json",
    url="https://raw.githubusercontent.com/snap-research/locomo/"
    "3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376/data/locomo10.json",
    sha256="79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4",
    size=2_805_274,
)
FILE_VARIABLE = "MEMRANK_LOCOMO_FILE"
VERSION = f"locomo10@v1+{PIN.sha256[:8]}"
SLICES = {
    "smoke": "the first conversation",
    "mini": "the first 3 conversations",
    "images": "the questions citing an image turn (one that shared an image; its caption is "
    "in the text): a view for the multimodal track, not a measurement",
}
_SLICE_GROUPS = {"smoke": 1, "mini": 3}
CATEGORIES = {
    "1": "multi-hop (evaluation code) / single-hop (paper order)",
    "2": "temporal (evaluation code) / multi-hop (paper order)",
    "3": "open-domain (evaluation code) / temporal (paper order)",
    "4": "single-hop (evaluation code) / open-domain (paper order)",
    "5": "adversarial (both): negative tasks",
}
NEGATIVE_CATEGORY = "5"
_FINGERPRINT = {"groups": 10, "tasks": {"1": 282, "2": 321, "3": 96, "4": 841, "5": 446}}
BUDGET = Budget.words(500)
"""The context budget LoCoMo declares: what every system's recall is also read at."""
_SESSION = re.compile(r"session_(\d+)")
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def locomo(slice: str | None = None, path: str | Path | None = None) -> Evaluation:
    """LoCoMo (all 10 conversations), or a slice: ``smoke`` (the first), ``mini`` (the first 3),
    ``images`` (the questions citing an image turn).

    ``path`` (or ``MEMRANK_LOCOMO_FILE``) names a copy of ``locomo10.json`` or its folder;
    without one the file is read from, or downloaded to, ``<data dir>/locomo/``.
    """
    check_slice("locomo", slice, SLICES)
    material = load(PIN, path, FILE_VARIABLE)
    tasks = _tasks(material)
    if slice == "images":
        tasks = _citing_images(material, tasks)
    elif slice is not None:
        tasks = first_groups(tasks, _SLICE_GROUPS[slice])
    # Every arm is held to one budget (issue: budget-matched comparisons): 500 words, the
    # fixed-context control's own, read beside @k as evidence-recall@500w.
    return held_to(
        Evaluation(
            name="locomo",
            version=VERSION,
            tasks=tasks,
            headline=HEADLINE,
            measures=evidence_measures([c for c in CATEGORIES if c != NEGATIVE_CATEGORY]),
            clearing=Clearing.PER_GROUP,
            k=20,
            slice=slice,
            dataset=bundle([material.file], tasks),
        ),
        BUDGET,
    )


def _tasks(material: Material) -> tuple[Task, ...]:
    with in_format(material.path, "LoCoMo's format"):
        conversations = orjson.loads(material.raw)
        tasks = tuple(task for sample in conversations for task in _conversation(sample))
    groups = len({task.group for task in tasks})
    counts = dict(sorted(Counter(task.category or "" for task in tasks).items()))
    if groups != _FINGERPRINT["groups"] or counts != _FINGERPRINT["tasks"]:
        raise DatasetMalformed(
            f"{material.path}: read {groups} conversations and questions per category {counts}; "
            f"the pinned file holds {_FINGERPRINT['groups']} and {_FINGERPRINT['tasks']}"
        )
    return tasks


def _citing_images(material: Material, tasks: tuple[Task, ...]) -> tuple[Task, ...]:
    """The tasks whose evidence names a turn that shared an image (has a ``blip_caption``)."""
    shared = {
        (str(sample["sample_id"]), turn["dia_id"])
        for sample in orjson.loads(material.raw)
        for key, turns in sample["conversation"].items()
        if _SESSION.fullmatch(key)
        for turn in turns
        if turn.get("blip_caption")
    }
    return tuple(
        task
        for task in tasks
        if any((task.group, i) in shared for i in task.expected.evidence_doc_ids)
    )


def _conversation(sample: dict[str, Any]) -> list[Task]:
    group = str(sample["sample_id"])
    conversation = sample["conversation"]
    turns: dict[str, tuple[Document, EvidenceTurn]] = {}
    numbers = sorted(int(m[1]) for key in conversation if (m := _SESSION.fullmatch(key)))
    for number in numbers:
        session = f"session_{number}"
        when = datetime.strptime(conversation[f"{session}_date_time"], "%I:%M %p on %d %B, %Y")
        for turn in conversation[session]:
            document = _document(group, session, when.replace(tzinfo=UTC), turn)
            evidence = EvidenceTurn(id=document.id, session=session, text=turn["text"])
            turns[document.id] = (document, evidence)
    context = tuple(document for document, _ in turns.values())
    speakers = [str(conversation["speaker_a"]), str(conversation["speaker_b"])]
    return [
        _task(group, number, question, context, turns, speakers)
        for number, question in enumerate(sample["qa"], start=1)
    ]


def _document(group: str, session: str, when: datetime, turn: dict[str, Any]) -> Document:
    content = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        content += f" [shares {turn['blip_caption']}]"
    return Document(
        id=turn["dia_id"],
        content=content,
        user_id=group,
        timestamp=when,
        metadata={"session_id": session, "speaker": turn["speaker"], "dia_id": turn["dia_id"]},
    )


def _task(
    group: str,
    number: int,
    question: dict[str, Any],
    context: tuple[Document, ...],
    turns: dict[str, tuple[Document, EvidenceTurn]],
    speakers: list[str],
) -> Task:
    category = str(question["category"])
    named = _evidence_ids(question["evidence"])
    evidence = [turns[i][1] for i in named if i in turns]
    answer = None if question.get("answer") is None else str(question["answer"])
    negative = category == NEGATIVE_CATEGORY
    metadata = evidence_metadata(evidence, negative=negative)
    if dropped := [i for i in named if i not in turns]:
        metadata["evidence_dropped"] = dropped
    if negative:
        metadata["adversarial_answer"] = str(question["adversarial_answer"])
    metadata["speakers"] = speakers  # speaker_a, speaker_b: answer prompts list A first
    return Task(
        id=f"{group}:q{number}",
        prompt=question["question"],
        group=group,
        context=context,
        category=category,
        expected=expected_of(answer, evidence, spans=not negative),
        metadata=metadata,
    )


def _evidence_ids(entries: list[str]) -> list[str]:
    """Turn ids as named, normalised: split where several share one string, ``D:11:26`` mended,
    duplicates dropped; an entry naming no turn id at all (``"D"``) yields nothing."""
    ids: list[str] = []
    for entry in entries:
        for session, turn in _EVIDENCE.findall(entry):
            normal = f"D{int(session)}:{int(turn)}"
            if normal not in ids:
                ids.append(normal)
    return ids
