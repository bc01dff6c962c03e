"""How each protocol lays out what a memory recalled: the answer prompt's slot values.

Each ``*_slots`` function gives the values of one protocol's answer prompt from the task and
the documents kept, laid out as the protocol's source lays them out (Mem0's per-speaker JSON
lists, LongMemEval's session blocks, MemoryCode's numbered sessions, Mem-Gallery's numbered
memories between ``[Memory Start]`` and ``[Memory End]``, memrank's LoCoMo lines).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime

from memrank.answer.prompts import Prompt, prompt
from memrank.system import IMAGE_CAPTIONS, Document, text_of
from memrank.task import Task

__all__ = [
    "aml_slots",
    "locomo_slots",
    "longmemeval_slots",
    "mem0_slots",
    "mem_gallery_question",
    "mem_gallery_slots",
    "memorycode_slots",
]


def _when(document: Document) -> str:
    return document.timestamp.strftime("%Y-%m-%d %H:%M") if document.timestamp else "undated"


def _lme_date(moment: datetime | None) -> str:
    """LongMemEval's own date format: ``2023/05/20 (Sat) 02:21``."""
    return moment.strftime("%Y/%m/%d (%a) %H:%M") if moment else "unknown"


def _moment(document: Document) -> float:
    return document.timestamp.timestamp() if document.timestamp else float("-inf")


def _locomo_time(moment: datetime | None) -> str:
    """LoCoMo's own session time, as Mem0 stored it with every memory: ``1:56 pm on 8 May, 2023``."""
    if moment is None:
        return "undated"
    hour = moment.hour % 12 or 12
    noon = "am" if moment.hour < 12 else "pm"
    return f"{hour}:{moment.minute:02d} {noon} on {moment.day} {moment:%B}, {moment.year}"


def _speaker(document: Document) -> str:
    return str(document.metadata.get("speaker") or document.user_id or "user")


def _two_speakers(
    task: Task, kept: Sequence[Document]
) -> tuple[str, list[Document], str, list[Document]]:
    """Speaker A and their memories, then speaker B and theirs, as Mem0 searches each
    speaker apart and always lists speaker A first; rank order within each speaker.

    The task names its speakers (``metadata["speakers"]``, LoCoMo's speaker_a and speaker_b);
    for material that does not, the speakers in order of first appearance stand in."""
    named = task.metadata.get("speakers")
    if isinstance(named, (list, tuple)) and len(named) == 2:
        first, second = str(named[0]), str(named[1])
    else:
        seen = list(dict.fromkeys(_speaker(d) for d in kept))
        first = seen[0] if seen else "user"
        second = ", ".join(seen[1:])
    return (
        first,
        [d for d in kept if _speaker(d) == first],
        second,
        [d for d in kept if _speaker(d) != first],
    )


def _mem0_unit(document: Document) -> str:
    return f"{_locomo_time(document.timestamp)}: {document.text}"


def mem0_slots(task: Task, kept: Sequence[Document], _: Prompt) -> dict[str, str]:
    # Mem0 renders each speaker's memories as json.dumps(list, indent=4) (ASCII-escaped).
    name_1, docs_1, name_2, docs_2 = _two_speakers(task, kept)
    return {
        "speaker_1_user_id": name_1,
        "speaker_1_memories": json.dumps([_mem0_unit(d) for d in docs_1], indent=4),
        "speaker_2_user_id": name_2,
        "speaker_2_memories": json.dumps([_mem0_unit(d) for d in docs_2], indent=4),
        "question": text_of(task.prompt),
    }


def _locomo_unit(document: Document) -> str:
    return f"[{_when(document)}] {document.text}"


def locomo_slots(task: Task, kept: Sequence[Document], _: Prompt) -> dict[str, str]:
    return {
        "context": "\n".join(_locomo_unit(d) for d in kept),
        "question": text_of(task.prompt),
    }


def _lme_turn(document: Document) -> dict[str, str]:
    return {"role": str(document.metadata.get("role", "user")), "content": document.text}


def longmemeval_slots(task: Task, kept: Sequence[Document], _: Prompt) -> dict[str, str]:
    # LongMemEval's history: sessions sorted by date, each '\n### Session {i}:\nSession Date:
    # {date}\nSession Content:\n' + '\n' + json.dumps(turns) + '\n'; here the turns kept.
    sessions: dict[str, list[Document]] = {}
    for document in kept:
        sessions.setdefault(str(document.metadata.get("session_id", "")), []).append(document)
    ordered = sorted(sessions.values(), key=lambda turns: _moment(turns[0]))
    history = "".join(
        f"\n### Session {i}:\nSession Date: {_lme_date(turns[0].timestamp)}\nSession Content:\n"
        f"\n{json.dumps([_lme_turn(d) for d in turns])}\n"
        for i, turns in enumerate(ordered, start=1)
    )
    return {"history": history, "date": _lme_date(task.asked_at), "question": text_of(task.prompt)}


def aml_slots(task: Task, kept: Sequence[Document], _: Prompt) -> dict[str, str]:
    name_1, docs_1, name_2, docs_2 = _two_speakers(task, kept)
    return {
        "speaker_1_name": name_1,
        "speaker_1_memories": "\n".join(d.text for d in docs_1),
        "speaker_2_name": name_2,
        "speaker_2_memories": "\n".join(d.text for d in docs_2),
        "question": text_of(task.prompt),
    }


_SESSION_NUMBER = re.compile(r"session-(\d+)$")


def _session_number(document: Document) -> float:
    """A MemoryCode session's place in its dialogue (a chunk names its session's document)."""
    for name in (document.metadata.get("doc_id"), document.metadata.get("session_id"), document.id):
        found = _SESSION_NUMBER.search(str(name or ""))
        if found:
            return int(found[1])
    return float("inf")


def memorycode_slots(task: Task, kept: Sequence[Document], _: Prompt) -> dict[str, str]:
    # MemoryCode's RAG path: the retrieved sessions in chronological order, numbered from 0
    # as they are listed, each "\n\n Session {i} \n\n" + its text.
    roles = task.metadata.get("roles") or {}
    ordered = sorted(kept, key=_session_number)
    sessions = "".join(f"\n\n Session {i} \n\n" + d.text for i, d in enumerate(ordered))
    return {
        "mentee": str(roles.get("mentee", "")),
        "company": str(roles.get("company", "")),
        "mentor": str(roles.get("mentor", "")),
        "session": sessions,
        "eval_query": str(task.metadata.get("query", text_of(task.prompt))),
    }


_MG_SPEAKER = re.compile(r"(user \([^\n]*?\)): ")
_MG_IMAGE = re.compile(r"^image_id: ([^\n]*)\n\[image: ([^\n]*)\]$", re.M)
_MG_CONSTRAINTS = {"AR": "mem-gallery-ar", "CD": "mem-gallery-cd", "VS": "mem-gallery-vs"}
_MG_IMAGE_MARK = "\n[image: "


def mem_gallery_question(task: Task) -> tuple[str, str | None]:
    """A Mem-Gallery question without its image, and that image's caption (None when it shows
    none): a text-only reader has such a question as ``<question>\n[image: <caption>]``."""
    text = text_of(task.prompt, task.metadata.get(IMAGE_CAPTIONS, ()))
    images = task.metadata.get("images")
    if isinstance(images, dict) and "question" in images:
        question, mark, caption = text.rpartition(_MG_IMAGE_MARK)
        if mark and caption.endswith("]"):
            return question, caption[:-1]
    return text, None


def _mg_speaker(task: Task, kept: Sequence[Document]) -> str:
    """Upstream's speaker_a, ``user (<name>)`` as the conversation's rounds begin; ``user``
    when they name nobody (as upstream has it without a character name)."""
    for document in (*task.context[:1], *kept[:1]):
        found = _MG_SPEAKER.match(document.text)
        if found:
            return found.group(1)
    return "user"


def _mg_unit(document: Document) -> str:
    # a round's image as upstream's text memories hold it: 'image:\nimage_id: <id>\n
    # image_caption: <caption>' (memrank's text reading has 'image_id: <id>\n[image: <caption>]')
    text = _MG_IMAGE.sub(r"image:\nimage_id: \1\nimage_caption: \2", document.text)
    return f"timestamp: {document.timestamp:%Y-%m-%d}\n{text}" if document.timestamp else text


def mem_gallery_slots(task: Task, kept: Sequence[Document], _: Prompt) -> dict[str, str]:
    # run_bench.py's caption (text-memory) path: the memories as its ConcateUtilization joins
    # them, in rank order, 'None' when there is none; the question with its type's format
    # constraint after two newlines; its image (here its caption) after the question.
    units = "\n".join(f"[Memory {i}] {_mg_unit(d)}" for i, d in enumerate(kept))
    question, caption = mem_gallery_question(task)
    constraint = _MG_CONSTRAINTS.get((task.category or "").upper())
    return {
        "memory_context": f"[Memory Start]\n{units or 'None'}\n[Memory End]",
        "speaker_a": _mg_speaker(task, kept),
        "speaker_b": "assistant",
        "observation": question,
        "format_constraint": "" if constraint is None else "\n\n" + prompt(constraint).text,
        "question_image": ""
        if caption is None
        else f"{prompt('mem-gallery-question-image').text}image_caption: {caption}",
    }
