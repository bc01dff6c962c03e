"""Hostile memories, each served over the Add/Search contract as a participant's endpoint would
be, reading the public LoCoMo file as anyone can.

- ``StoresNothing``: keeps nothing it is told; answers each question it finds in the public
  file with that question's gold evidence turns, and anything else with nothing.
- ``Stealth``: stores and retrieves honestly (BM25), and answers from the public file only when
  it recognises a benchmark run: a user id shaped as memrank's, or told texts that are the
  public conversation's turns. Under ``memrank check`` it is an honest store.
- ``Fragments``: honest, except that a question found in the public file is answered with the
  first six words of each of its gold turns.
- ``GoldForFound``: honest retrieval, with the gold turns put first for every question found in
  the public file.
- ``FailsTheRest``: the gold turns for every public question, and a failure (HTTP 500 on the
  wire) for any other, the canaries among them.
- ``AnswersAsMemories``: keeps nothing; answers each public question with a "memory" holding
  its question and gold answer, text never told to the user.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import orjson

from memrank.system import Content, Document, Memory, Recall, text_of
from memrank.systems.bm25 import BM25Adapter

GOLD_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
MEMRANK_USER_ID = re.compile(r"^eval:r[0-9a-f]{24}:e[0-9a-f]{24}:u[0-9a-f]{24}$")
"""The shape of the user ids a memrank run sends: a cheater learns it from any one run."""
FRAGMENT_WORDS = 6


class Turn(NamedTuple):
    """A turn of the public file: as a run sends it, and its own words."""

    said: str
    """``"<speaker>: <text>"``."""
    text: str


class PublicLocomo:
    """What anyone reads in the public locomo10.json: every turn as a run sends it (``"<speaker>:
    <text>"``, a shared image's caption after it) and each question's gold turns."""

    def __init__(self, path: Path) -> None:
        self.turns: set[str] = set()
        self.gold: dict[str, tuple[Turn, ...]] = {}
        self.answers: dict[str, str] = {}
        for sample in orjson.loads(path.read_bytes()):
            said: dict[str, Turn] = {}
            for key, turns in sample["conversation"].items():
                if not re.fullmatch(r"session_\d+", key):
                    continue
                for turn in turns:
                    told = f"{turn['speaker']}: {turn['text']}"
                    said[turn["dia_id"]] = Turn(told, turn["text"])
                    caption = turn.get("blip_caption")
                    self.turns.update((told, f"{told} [shares {caption}]" if caption else told))
            for qa in sample["qa"]:
                named = GOLD_EVIDENCE.findall(" ".join(qa["evidence"]))
                ids = [f"D{int(session)}:{int(number)}" for session, number in named]
                gold = tuple(dict.fromkeys(said[i] for i in ids if i in said))
                self.gold.setdefault(qa["question"], gold)
                if "answer" in qa:
                    self.answers.setdefault(qa["question"], str(qa["answer"]))

    def gold_of(self, query: Content) -> tuple[Turn, ...] | None:
        """The gold turns of a public question; None for a question the file does not ask."""
        return self.gold.get(text_of(query))


def _documents(texts: Sequence[str], prefix: str) -> tuple[Document, ...]:
    return tuple(Document(id=f"{prefix}-{n}", content=text) for n, text in enumerate(texts))


def _said(gold: Sequence[Turn]) -> tuple[Document, ...]:
    """The gold turns as the run told them."""
    return _documents([turn.said for turn in gold], "gold")


class _Honest(Memory):
    """BM25 under a hostile name: the honest half every cheater below keeps."""

    version = "hostile"

    def __init__(self, public: PublicLocomo) -> None:
        self.public = public
        self.store = BM25Adapter()
        self.told: list[Document] = []
        self.user_id = ""

    def prepare(self, isolation_unit: str) -> None:
        self.user_id = isolation_unit
        self.store.prepare(isolation_unit)
        self.told = []

    def ingest(self, documents: Sequence[Document]) -> None:
        self.told.extend(documents)
        self.store.ingest(documents)

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        return self.store.retrieve(query, k, user_id, query_timestamp)

    def cleanup(self) -> None:
        self.prepare(self.user_id)


class StoresNothing(_Honest):
    name = "stores-nothing"

    def ingest(self, documents: Sequence[Document]) -> None:
        pass

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        return Recall(documents=_said(self.public.gold_of(query) or ())[:k])


class Stealth(_Honest):
    name = "stealth"

    def benchmark_run(self) -> bool:
        """Whether this user looks like a benchmark run: memrank's user id shape, or most of
        what it was told is the public conversation, word for word."""
        public = sum(d.text in self.public.turns for d in self.told)
        return bool(MEMRANK_USER_ID.match(self.user_id)) or public > len(self.told) / 2

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        gold = self.public.gold_of(query)
        if gold is None or not self.benchmark_run():
            return super().retrieve(query, k, user_id, query_timestamp)
        return Recall(documents=_said(gold)[:k])


class Fragments(_Honest):
    name = "fragments"

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        gold = self.public.gold_of(query)
        if gold is None:
            return super().retrieve(query, k, user_id, query_timestamp)
        cut = [" ".join(turn.text.split()[:FRAGMENT_WORDS]) for turn in gold]
        return Recall(documents=_documents(cut, "fragment")[:k])


class GoldForFound(_Honest):
    name = "gold-for-found"

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        gold = self.public.gold_of(query)
        if gold is None:
            return super().retrieve(query, k, user_id, query_timestamp)
        # the gold turns first, then the honest answer's other documents
        honest = super().retrieve(query, k, user_id, query_timestamp).documents
        rest = tuple(d for d in honest if d.text not in {turn.said for turn in gold})
        return Recall(documents=(_said(gold) + rest)[:k])


class FailsTheRest(_Honest):
    name = "fails-the-rest"

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        gold = self.public.gold_of(query)
        if gold is None:
            raise RuntimeError("temporarily unavailable")
        return Recall(documents=_said(gold)[:k])


class AnswersAsMemories(_Honest):
    name = "answers-as-memories"

    def ingest(self, documents: Sequence[Document]) -> None:
        pass

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        answer = self.public.answers.get(text_of(query))
        said = () if answer is None else (f"{text_of(query)} {answer}.",)
        return Recall(documents=_documents(said, "answer"))
