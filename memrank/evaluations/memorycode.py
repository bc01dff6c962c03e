"""memorycode: MemoryCode's 360 mentor-mentee dialogues and the coding tasks asked after them.

Rakotonirina et al., "From Tools to Teammates: Evaluating LLMs in Multi-Session Coding
Interactions", arXiv:2502.13791; Cohere-Labs-Community/MemoryCode at commit 1ab87e11,
``dataset/`` (Apache-2.0). The 360 files are pinned by a manifest (``data/memorycode.sha256``)
and downloaded once into the data dir.

In each dialogue a mentor gives coding instructions ("always start variable names with
'x_'"), updates some of them in later sessions and buries them among filler topics; after the
last session the mentee is asked to write code, and every instruction in force is checked by
a regex over that code. How the files become tasks:

- one group per dialogue (``dialogue-<n>``, 30 each of 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50
  and 100 sessions); one document per session, id ``dialogue-<n>:session-<i>``, content the
  session's text, ``session_id`` in its metadata (no dates: the material gives none);
- one task per history query (what upstream asks after the last session), id
  ``dialogue-<n>:h<j>``, category the dialogue's length ``sessions-<count>``, prompt the
  upstream wording: ``Write a <query>. ...follow all the latest coding guidelines...``;
- the dialogue's mentor, mentee and company are in ``metadata["roles"]`` (MemoryCode's answer
  preamble names them);
- every instruction in force is listed in ``metadata["instructions"]`` (its id, the Python
  object its rule checks, the rule, its governing session, and whether this query is its own);
  the evidence is the sessions that govern them: where each was introduced or last updated,
  an update superseding what came before. Evidence is matched by document id only (a
  session is long; a chunk names it by ``doc_id``), so the result file holds no session text.

The session-level queries upstream also asks (about one session shown alone) test no memory
and are not tasks here.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from memrank.errors import DatasetMalformed
from memrank.evaluation import Evaluation
from memrank.evaluations._benchmark import check_slice, in_format
from memrank.evaluations._cache import Manifest, Material, bundle, load_all
from memrank.measures import (
    EvidenceMeans,
    EvidenceRecall,
    EvidenceTurn,
    RecalledWords,
    SessionRecall,
    evidence_metadata,
)
from memrank.system import Document
from memrank.task import Clearing, Expected, Task

__all__ = ["DIR_VARIABLE", "HEADLINE", "LENGTHS", "MANIFEST", "SLICES", "memorycode"]

HEADLINE = "evidence-recall@10"
"""The headline value: governing-session recall among the first 10: the board's MemoryCode column."""

DIR_VARIABLE = "MEMRANK_MEMORYCODE_DIR"
MANIFEST = Manifest(
    evaluation="memorycode",
    manifest="memorycode.sha256",
    url="https://raw.githubusercontent.com/Cohere-Labs-Community/MemoryCode/"
    "1ab87e119b2f9a498de8075219e1c07f6041b394/",
    bundle_sha256="5163829886a6dcb115e7dccb47cde0aa49fdb22fa901287e39f0753af70d343b",
    variable=DIR_VARIABLE,
)
LENGTHS = (1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 100)
"""The dialogue lengths, in sessions: 30 dialogues each."""
CATEGORIES = tuple(f"sessions-{n}" for n in LENGTHS)
SLICES = {
    "smoke": "the first dialogue of each length (12 dialogues)",
    **{f"sessions-{n}": f"the 30 dialogues of {n} session(s)" for n in LENGTHS},
}
_FINGERPRINT = {
    "dialogues": 360,
    "sessions": 8_400,
    "session queries": 7_339,
    "tasks": {
        "sessions-1": 43,
        "sessions-2": 45,
        "sessions-3": 66,
        "sessions-4": 79,
        "sessions-5": 108,
        "sessions-10": 152,
        "sessions-15": 244,
        "sessions-20": 299,
        "sessions-30": 424,
        "sessions-40": 545,
        "sessions-50": 813,
        "sessions-100": 1_364,
    },
}
_PROMPT = (
    "Write a {query}. Do not provide example usage. You must follow all the latest coding "
    "guidelines provided by your mentor, including any possible updates."
)
_NUMBER = re.compile(r"dialogue_(\d+)\.json")


def memorycode(slice: str | None = None, path: str | Path | None = None) -> Evaluation:
    """MemoryCode (all 360 dialogues), or a slice: ``smoke`` or ``sessions-<count>``.

    ``path`` (or ``MEMRANK_MEMORYCODE_DIR``) names a folder holding ``dataset/``; without one
    the files are read from, or downloaded to, ``<data dir>/memorycode/``.
    """
    check_slice("memorycode", slice, SLICES)
    materials = sorted(load_all(MANIFEST, path), key=_number)
    tasks: list[Task] = []
    counts: Counter[str] = Counter()
    for material in materials:
        with in_format(material.path, "MemoryCode's dialogue format"):
            tasks += _dialogue(_number(material), orjson.loads(material.raw), counts)
    read = {
        "dialogues": len(materials),
        "sessions": counts["sessions"],
        "session queries": counts["session queries"],
        "tasks": {c: n for c in CATEGORIES if (n := sum(t.category == c for t in tasks))},
    }
    if read != _FINGERPRINT:
        raise DatasetMalformed(
            f"{materials[0].path.parent}: read {read}; the pinned files hold {_FINGERPRINT}"
        )
    chosen = tuple(tasks)
    if slice == "smoke":
        firsts = {c: next(t.group for t in tasks if t.category == c) for c in CATEGORIES}
        chosen = tuple(t for t in tasks if t.group == firsts[t.category or ""])
    elif slice is not None:
        chosen = tuple(t for t in tasks if t.category == slice)
    made = bundle([m.file for m in materials], chosen)
    return Evaluation(
        name="memorycode",
        version=f"memorycode@v1+{made.sha256[:8]}",
        tasks=chosen,
        headline=HEADLINE,
        measures=(
            EvidenceRecall(),
            SessionRecall(),
            RecalledWords(),
            EvidenceMeans(categories=CATEGORIES),
        ),
        clearing=Clearing.PER_GROUP,
        track="coding",
        k=20,
        slice=slice,
        dataset=made,
    )


def _number(material: Material) -> int:
    found = _NUMBER.fullmatch(material.path.name)
    return int(found[1]) if found else 0


def _dialogue(number: int, data: dict[str, Any], counts: Counter[str]) -> list[Task]:
    group = f"dialogue-{number}"
    sessions = data["sessions"]
    context: list[Document] = []
    governing: dict[int, dict[str, Any]] = {}
    """Instruction id -> its rule as last stated, and the session that stated it."""
    for index, (session, introduced) in enumerate(
        zip(sessions, data["instructions"], strict=True), start=1
    ):
        name = f"session-{index}"
        context.append(
            Document(
                id=f"{group}:{name}",
                content=session["text"],
                user_id=group,
                metadata={"session_id": name},
            )
        )
        counts["sessions"] += 1
        counts["session queries"] += len(session["session_eval_query"])
        if introduced == [-1]:
            continue
        rules = zip(
            introduced, session["session_regex"], session["session_eval_query"], strict=True
        )
        for (instruction, _variant), (target, rule), query in rules:
            governing[instruction] = {
                "id": instruction,
                "object": target,
                "rule": rule,
                "session": name,
                "document": f"{group}:{name}",
                "query": query,
            }
    last = sessions[-1]
    # The sessions derived here must state exactly the rules upstream checks after the last one.
    stated = sorted(orjson.dumps([g["object"], g["rule"]]) for g in governing.values())
    if stated != sorted(orjson.dumps(rule) for rule in last["history_regex"]):
        raise ValueError(f"{group}: its sessions do not state the rules its last session checks")
    evidence: list[EvidenceTurn] = []
    for held in sorted(governing.values(), key=lambda g: int(g["session"].split("-")[1])):
        if all(turn.id != held["document"] for turn in evidence):
            evidence.append(EvidenceTurn(id=held["document"], session=held["session"], text=""))
    documents = tuple(context)
    roles = {role: str(data["context"][role]) for role in ("mentor", "mentee", "company")}
    return [
        _task(group, position, query, documents, governing, evidence, len(sessions), roles)
        for position, query in enumerate(last["history_eval_query"], start=1)
    ]


def _task(
    group: str,
    position: int,
    query: str,
    context: tuple[Document, ...],
    governing: dict[int, dict[str, Any]],
    evidence: list[EvidenceTurn],
    length: int,
    roles: dict[str, str],
) -> Task:
    metadata = evidence_metadata(evidence)
    metadata["query"] = query
    metadata["roles"] = roles  # mentor, mentee, company: MemoryCode's answer preamble names them
    metadata["instructions"] = [
        {key: held[key] for key in ("id", "object", "rule", "session")}
        | {"own": held["query"] == query}
        for held in governing.values()
    ]
    return Task(
        id=f"{group}:h{position}",
        prompt=_PROMPT.format(query=query),
        group=group,
        context=context,
        category=f"sessions-{length}",
        expected=Expected(evidence_doc_ids=tuple(turn.id for turn in evidence)),
        metadata=metadata,
    )
