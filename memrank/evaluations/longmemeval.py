"""longmemeval: LongMemEval-S (cleaned), 500 questions, each over its own chat history.

Wu et al., "LongMemEval: Benchmarking Chat Assistants on Long-Term Interactive Memory",
ICLR 2025; ``longmemeval_s_cleaned.json`` from the xiaowu0162/longmemeval-cleaned dataset
(MIT), pinned by sha256 and downloaded once into the data dir (277 MB).

How the file becomes tasks:

- one group per question, holding that question's own history (about 50 sessions); the group
  is named ``history-<n>`` (n = position in the file), never by the question id, whose
  ``_abs`` suffix would tell the system which questions cannot be answered;
- one document per turn, id ``session-<j>:<t>``: sessions are renamed by position, because
  the file's session ids (``answer_...``) say which sessions hold the answer; content is the
  turn's text, ``role`` and ``session_id`` are in its metadata, the session's date (no zone
  given: read as UTC) its timestamp; ``has_answer`` is not passed on;
- one task per question, category its ``question_type`` (six types), ``asked_at`` its
  ``question_date``; the evidence is the turns marked ``has_answer``, in the answer sessions;
- the 30 abstention questions (ids ending ``_abs``) abstain and are negative tasks: LongMemEval
  scores no retrieval for them, and evidence recall reports them under the ``-negative`` names.

Measures: LongMemEval's own session-level ``recall-all@k`` and ``ndcg-any@k`` (k 5, 10) over
the questions that have evidence and do not abstain, memrank's evidence recall, word-match
where the answer is verbatim evidence, recalled words, and their means per question type.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from memrank.errors import DatasetMalformed
from memrank.evaluation import Evaluation
from memrank.evaluations._benchmark import check_slice, expected_of, first_per_category, in_format
from memrank.evaluations._cache import Material, Pin, bundle, load, read
from memrank.measures import (
    EvidenceMeans,
    EvidenceRecall,
    EvidenceTurn,
    RankingMeans,
    RecalledWords,
    SessionRanking,
    SessionRecall,
    WordMatch,
    evidence_metadata,
)
from memrank.system import Document
from memrank.task import Clearing, Task

__all__ = [
    "FILE_VARIABLE",
    "HEADLINE",
    "PIN",
    "SLICES",
    "TYPES",
    "longmemeval",
    "longmemeval_file",
]

HEADLINE = "evidence-recall@10"
"""The headline value: evidence recall among the first 10."""

PIN = Pin(
    evaluation="longmemeval",
    name="longmemeval_s_cleaned.json",
    url="https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned/resolve/"
    "98d7416c24c778c2fee6e6f3006e7a073259d48f/longmemeval_s_cleaned.json",
    sha256="d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442",
    size=277_383_467,
)
FILE_VARIABLE = "MEMRANK_LONGMEMEVAL_FILE"
TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
SLICES = {
    "smoke": "the first question of each of the six types (6 questions)",
    "mini": "the first 5 questions of each type (30 questions)",
}
_SLICE_PER_TYPE = {"smoke": 1, "mini": 5}
_FINGERPRINT = {"questions": 500, "abstentions": 30}
_WEEKDAY = re.compile(r"\s*\([A-Za-z]+\)\s*")


def longmemeval(slice: str | None = None, path: str | Path | None = None) -> Evaluation:
    """LongMemEval-S (cleaned), or a stratified slice: ``smoke`` or ``mini``.

    ``path`` (or ``MEMRANK_LONGMEMEVAL_FILE``) names a copy of the file or its folder; without
    one it is read from, or downloaded to, ``<data dir>/longmemeval/``.
    """
    check_slice("longmemeval", slice, SLICES)
    material = load(PIN, path, FILE_VARIABLE)
    tasks = _tasks(material)
    questions = len(tasks)
    abstentions = sum(task.expected.abstain for task in tasks)
    types = {task.category for task in tasks}
    if (questions, abstentions) != tuple(_FINGERPRINT.values()) or types != set(TYPES):
        raise DatasetMalformed(
            f"{material.path}: read {questions} questions, {abstentions} abstentions, types "
            f"{sorted(t or '' for t in types)}; the pinned file holds 500, 30 and {list(TYPES)}"
        )
    return _evaluation(material, tasks, slice)


def longmemeval_file(path: str | Path, slice: str | None = None) -> Evaluation:
    """An evaluation from a file in the official format that is not the pinned one
    (``longmemeval_m``, ``oracle``, or your own); its version carries the file's own digest."""
    check_slice("longmemeval", slice, SLICES)
    material = read(path, Path(path).name)
    return _evaluation(material, _tasks(material), slice)


def _evaluation(material: Material, tasks: tuple[Task, ...], slice: str | None) -> Evaluation:
    if slice is not None:
        tasks = first_per_category(tasks, _SLICE_PER_TYPE[slice])
    return Evaluation(
        name="longmemeval",
        version=f"longmemeval@v1+{material.file.sha256[:8]}",
        tasks=tasks,
        headline=HEADLINE,
        measures=(
            EvidenceRecall(),
            SessionRecall(),
            SessionRanking(),
            WordMatch(),
            RecalledWords(),
            EvidenceMeans(categories=TYPES),
            RankingMeans(categories=TYPES),
        ),
        clearing=Clearing.PER_GROUP,
        k=20,
        slice=slice,
        dataset=bundle([material.file], tasks),
    )


def _tasks(material: Material) -> tuple[Task, ...]:
    with in_format(material.path, "LongMemEval's format"):
        records = orjson.loads(material.raw)
        return tuple(_task(number, record) for number, record in enumerate(records, start=1))


def _task(number: int, record: dict[str, Any]) -> Task:
    group = f"history-{number}"
    answer_sessions = set(record["answer_session_ids"])
    context: list[Document] = []
    evidence: list[EvidenceTurn] = []
    sessions = zip(
        record["haystack_session_ids"],
        record["haystack_dates"],
        record["haystack_sessions"],
        strict=True,
    )
    for position, (original, date, turns) in enumerate(sessions, start=1):
        session = f"session-{position}"
        for index, turn in enumerate(turns, start=1):
            document = Document(
                id=f"{session}:{index}",
                content=turn["content"],
                user_id=group,
                timestamp=_moment(date),
                metadata={"session_id": session, "role": turn["role"]},
            )
            context.append(document)
            if turn.get("has_answer") and original in answer_sessions:
                evidence.append(EvidenceTurn(id=document.id, session=session, text=document.text))
    abstain = str(record["question_id"]).endswith("_abs")
    answer = str(record["answer"])
    return Task(
        id=str(record["question_id"]),
        prompt=record["question"],
        group=group,
        context=tuple(context),
        category=record["question_type"],
        asked_at=_moment(record["question_date"]),
        expected=expected_of(answer, evidence, spans=not abstain, abstain=abstain),
        metadata=evidence_metadata(evidence, negative=abstain),
    )


def _moment(text: str) -> datetime:
    """``2023/05/20 (Sat) 02:21`` as UTC (the weekday is dropped: it restates the date)."""
    return datetime.strptime(_WEEKDAY.sub(" ", text).strip(), "%Y/%m/%d %H:%M").replace(tzinfo=UTC)
