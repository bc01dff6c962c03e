"""beam: BEAM conversations and their probing questions over ten memory abilities.

Tavakoli et al., "Beyond a Million Tokens: Benchmarking and Enhancing Long-Term Memory in
LLMs", arXiv:2510.27246; mohammadtavakoli78/BEAM at commit b2a3ee8b. The repository carries no
licence file (the Hugging Face dataset cards are reported as CC BY-SA 4.0), so memrank ships
none of the data: the pinned conversations are downloaded once into the data dir, laid out as
in BEAM's own folder format (``<conversation>/chat.json``, ``probing_questions.json``).
memrank pins one conversation today: ``100K-conv1`` (``chats/100K/1``, 188 messages, 20
questions); ``beam_folders`` reads others, unpinned.

How a conversation becomes tasks:

- one group per conversation; one document per message, id ``<conversation>:<chat id>``,
  content as written, ``role``, ``chat_id`` and ``session_id`` (``batch-<n>``: BEAM's batches
  are its sessions) in its metadata; the timestamp is the latest time anchor stated at or
  before the message (read as UTC), none before the first;
- one task per probing question, id ``<conversation>:<ability>:<n>``, category its ability;
  the evidence is the messages named by ``source_chat_ids`` (a list, or lists by role such as
  ``first_statement``); abstention questions name none and abstain;
- the reference answer is whichever of ``answer``, ``ideal_answer``, ``ideal_response``,
  ``ideal_summary`` or ``expected_compliance`` the question carries.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

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
from memrank.evaluations._cache import Material, Pin, bundle, load, read
from memrank.measures import EvidenceTurn, evidence_metadata
from memrank.system import Document
from memrank.task import Clearing, Task

__all__ = ["ABILITIES", "DIR_VARIABLE", "HEADLINE", "PINNED", "SLICES", "beam", "beam_folders"]

HEADLINE = "evidence-recall@10"
"""The headline value: evidence recall among the first 10."""

_SOURCE = "https://raw.githubusercontent.com/mohammadtavakoli78/BEAM/b2a3ee8ba12d68f83143dda191097dc3e028ddd3/chats"


@dataclass(frozen=True)
class _Pinned:
    chat: Pin
    questions: Pin
    messages: int
    per_ability: int


PINNED = {
    "100K-conv1": _Pinned(
        chat=Pin(
            "beam",
            "100K-conv1/chat.json",
            f"{_SOURCE}/100K/1/chat.json",
            "ea71efd5dcc13f7366d3737b45d532eadb3d1497f3d6f23d1fa1c4004d5ffdf2",
            564_977,
        ),
        questions=Pin(
            "beam",
            "100K-conv1/probing_questions.json",
            f"{_SOURCE}/100K/1/probing_questions.json",
            "047398ff1497674b11585e7b4829c3d64d2d5e63f7f3572c826b73ca1faaf898",
            31_547,
        ),
        messages=188,
        per_ability=2,
    ),
}
DIR_VARIABLE = "MEMRANK_BEAM_DIR"
ABILITIES = (
    "abstention",
    "contradiction_resolution",
    "event_ordering",
    "information_extraction",
    "instruction_following",
    "knowledge_update",
    "multi_session_reasoning",
    "preference_following",
    "summarization",
    "temporal_reasoning",
)
SLICES = {
    "smoke": "the first conversation, its first question of each ability",
    "mini": "the first 3 conversations",
}
_ANSWERS = ("answer", "ideal_answer", "ideal_response", "ideal_summary", "expected_compliance")


def beam(slice: str | None = None, path: str | Path | None = None) -> Evaluation:
    """The pinned BEAM conversations, or a slice: ``smoke`` or ``mini``.

    ``path`` (or ``MEMRANK_BEAM_DIR``) names a folder holding the conversation folders; without
    one they are read from, or downloaded to, ``<data dir>/beam/``.
    """
    check_slice("beam", slice, SLICES)
    files: list[BundleFile] = []
    tasks: list[Task] = []
    for name, pinned in PINNED.items():
        chat = load(pinned.chat, path, DIR_VARIABLE)
        questions = load(pinned.questions, path, DIR_VARIABLE)
        made = _conversation(name, chat, questions)
        counts = Counter(task.category for task in made)
        messages = len(made[0].context) if made else 0
        if messages != pinned.messages or counts != Counter(
            dict.fromkeys(ABILITIES, pinned.per_ability)
        ):
            raise DatasetMalformed(
                f"{chat.path.parent}: read {messages} messages and questions {dict(counts)}; "
                f"the pinned conversation holds {pinned.messages} and {pinned.per_ability} "
                "per ability"
            )
        files += [chat.file, questions.file]
        tasks += made
    return _evaluation(files, tasks, slice)


def beam_folders(path: str | Path, slice: str | None = None) -> Evaluation:
    """Conversations in BEAM's folder format that are not pinned: ``path`` is one conversation
    folder (``chat.json``, ``probing_questions.json``) or a folder of them, read in name order."""
    check_slice("beam", slice, SLICES)
    root = Path(path).expanduser()
    if (root / "chat.json").is_file():
        folders = [root]
    elif root.is_dir():
        folders = sorted(p for p in root.iterdir() if (p / "chat.json").is_file())
    else:
        folders = []
    if not folders:
        raise DatasetMissing(f"{root}: holds no chat.json, nor folders that do")
    files: list[BundleFile] = []
    tasks: list[Task] = []
    for folder in folders:
        chat = read(folder / "chat.json", f"{folder.name}/chat.json")
        questions = read(folder / "probing_questions.json", f"{folder.name}/probing_questions.json")
        files += [chat.file, questions.file]
        tasks += _conversation(folder.name, chat, questions)
    return _evaluation(files, tasks, slice)


def _evaluation(files: list[BundleFile], tasks: list[Task], slice: str | None) -> Evaluation:
    chosen = tuple(tasks)
    if slice == "smoke":
        chosen = first_per_category(first_groups(chosen, 1), 1)
    elif slice == "mini":
        chosen = first_groups(chosen, 3)
    made = bundle(files, chosen)
    return Evaluation(
        name="beam",
        version=f"beam@v1+{made.sha256[:8]}",
        tasks=chosen,
        headline=HEADLINE,
        measures=evidence_measures([a for a in ABILITIES if a != "abstention"]),
        clearing=Clearing.PER_GROUP,
        k=20,
        slice=slice,
        dataset=made,
    )


def _conversation(name: str, chat: Material, questions: Material) -> list[Task]:
    with in_format(chat.path, "BEAM's chat format"):
        context = tuple(_messages(name, orjson.loads(chat.raw)))
    by_id = {document.metadata["chat_id"]: document for document in context}
    # AttributeError too: the probing questions are a mapping, and a list has no .items()
    with in_format(questions.path, "BEAM's probing-question format", also=(AttributeError,)):
        probing = orjson.loads(questions.raw)
        return [
            _task(name, ability, number, question, context, by_id)
            for ability, listed in probing.items()
            for number, question in enumerate(listed, start=1)
        ]


def _messages(name: str, batches: list[dict[str, Any]]) -> Iterator[Document]:
    anchor: datetime | None = None
    for batch in batches:
        anchor = _anchor(batch.get("time_anchor")) or anchor
        for exchange in batch["turns"]:
            for message in exchange:
                anchor = _anchor(message.get("time_anchor")) or anchor
                yield Document(
                    id=f"{name}:{message['id']}",
                    content=message["content"],
                    user_id=name,
                    timestamp=anchor,
                    metadata={
                        "session_id": f"batch-{batch['batch_number']}",
                        "role": message["role"],
                        "chat_id": message["id"],
                    },
                )


def _anchor(text: str | None) -> datetime | None:
    """``March-15-2024`` as midnight UTC."""
    return None if not text else datetime.strptime(text, "%B-%d-%Y").replace(tzinfo=UTC)


def _task(
    name: str,
    ability: str,
    number: int,
    question: dict[str, Any],
    context: tuple[Document, ...],
    by_id: dict[int, Document],
) -> Task:
    named = _source_ids(question.get("source_chat_ids"))
    evidence = [
        EvidenceTurn(id=by_id[i].id, session=by_id[i].metadata["session_id"], text=by_id[i].text)
        for i in named
        if i in by_id
    ]
    answer = next((str(question[key]) for key in _ANSWERS if question.get(key)), None)
    metadata = evidence_metadata(evidence)
    if dropped := [i for i in named if i not in by_id]:
        metadata["evidence_dropped"] = dropped
    return Task(
        id=f"{name}:{ability}:{number}",
        prompt=question["question"],
        group=name,
        context=context,
        category=ability,
        expected=expected_of(answer, evidence, abstain=ability == "abstention"),
        metadata=metadata,
    )


def _source_ids(named: Any) -> list[int]:
    """Chat ids from a list, or from lists keyed by role (``first_statement`` ...), de-duplicated."""
    if named is None:
        return []
    lists = named.values() if isinstance(named, dict) else [named]
    ids: list[int] = []
    for listed in lists:
        for chat_id in listed:
            if int(chat_id) not in ids:
                ids.append(int(chat_id))
    return ids
