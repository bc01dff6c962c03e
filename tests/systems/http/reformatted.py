"""Servers whose answers are reshaped on the way out, for the evidence credit checks: an honest
bm25 whose every recalled text is reformatted (case, punctuation, whitespace, curly quotes, a
longer speaker prefix, fresh ids, each hit merged with the turn told after it), and a gold
oracle that stores nothing and answers each question with its gold evidence turns (or their
first words), read from the evaluation as a cheater reads the public file.

Each is a Memory served in-process over the Add/Search contract (``memrank.wire.serve``); the
aml client attributes what comes back to what it told, and the evidence measures credit it.
Used by tests/systems/http/test_aml_shown.py and tests/perf/bench_evidence_credit.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from datetime import datetime

import regex

import memrank
from memrank import Document, Evaluation, Memory, Recall
from memrank.measures.evidence import evidence_of
from memrank.system import Content, text_of
from memrank.systems.bm25 import BM25
from memrank.systems.http import AmlMemory
from memrank.wire._service import ContractService
from memrank.wire.serve import serving

Shape = Callable[[str], str]

_PUNCTUATION = regex.compile(r"\p{P}+")
_QUOTES = str.maketrans({"'": "\u2019", '"': "\u201d"})


def _other_punctuation(text: str) -> str:
    """Every run of punctuation swapped for another mark: ``.`` and ``!`` become ``;``, the
    rest ``.``."""
    return _PUNCTUATION.sub(lambda m: ";" if m.group() in {".", "!"} else ".", text)


SHAPES: dict[str, Shape] = {
    "as-is": lambda text: text,
    "upper case": str.upper,
    "other punctuation": _other_punctuation,
    "other whitespace": lambda text: " \n\t".join(text.split()),
    "curly quotes": lambda text: text.translate(_QUOTES),
    "speaker prefix a word longer": lambda text: text.replace(": ", " said: ", 1),
}
"""Reformattings of a recalled text, by name; each keeps what was said."""


class Reformatted(Memory):
    """bm25, each recalled document returned as ``shape`` makes its text; with ``fresh_ids``
    under an id of its own, with ``merged`` followed by the turn told after it."""

    name = "reformatted-bm25"

    def __init__(self, shape: Shape, *, fresh_ids: bool = False, merged: bool = False) -> None:
        self.inner = BM25()
        self.shape, self.fresh_ids, self.merged = shape, fresh_ids, merged
        self.told: list[Document] = []
        self.position: dict[str, int] = {}
        self.records = itertools.count()

    def prepare(self, isolation_unit: str) -> None:
        self.inner.prepare(isolation_unit)

    def ingest(self, documents: Sequence[Document]) -> None:
        for document in documents:
            self.position[document.id] = len(self.told)
            self.told.append(document)
        self.inner.ingest(documents)

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        found = self.inner.retrieve(query, k, user_id, query_timestamp).documents
        return Recall(documents=tuple(self._reshaped(d) for d in found))

    def cleanup(self) -> None:
        self.inner.cleanup()

    def _reshaped(self, document: Document) -> Document:
        text = document.text
        after = self.position[document.id] + 1
        if self.merged and after < len(self.told):
            text = f"{text}\n{self.told[after].text}"
        identifier = f"record-{next(self.records)}" if self.fresh_ids else document.id
        return document.model_copy(update={"id": identifier, "content": self.shape(text)})


def honest_servers() -> dict[str, Callable[[], Memory]]:
    """Every reformatting of the honest server, by name, as factories of its memory."""
    servers: dict[str, Callable[[], Memory]] = {
        name: (lambda shape=shape: Reformatted(shape)) for name, shape in SHAPES.items()
    }
    as_is = SHAPES["as-is"]
    servers["fresh ids"] = lambda: Reformatted(as_is, fresh_ids=True)
    servers["each hit merged with the next turn"] = lambda: Reformatted(as_is, merged=True)
    return servers


class GoldOracle(Memory):
    """Stores nothing; answers a question with its gold evidence turns, looked up by the
    question's text: the first ``words`` words of each (all of it when None), each after
    ``speaker`` when one is given, ``repeat`` times each."""

    name = "gold-oracle"

    def __init__(
        self, gold: dict[str, list[str]], words: int | None = 6, repeat: int = 1, speaker: str = ""
    ) -> None:
        self.gold, self.words, self.repeat, self.speaker = gold, words, repeat, speaker

    def prepare(self, isolation_unit: str) -> None:
        pass

    def ingest(self, documents: Sequence[Document]) -> None:
        pass

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        told = [
            self.speaker + " ".join(turn.split()[: self.words])
            for turn in self.gold.get(text_of(query), ())
        ]
        answer = [text for text in told for _ in range(self.repeat)][:k]
        return Recall(
            documents=tuple(Document(id=f"g{i}", content=t) for i, t in enumerate(answer))
        )

    def cleanup(self) -> None:
        pass


def gold_of(evaluation: Evaluation) -> dict[str, list[str]]:
    """Each question's gold evidence texts, by the question's text, as the public file has
    them (a question asked in two conversations answers with both's evidence)."""
    gold: dict[str, list[str]] = {}
    for task in evaluation.tasks:
        gold.setdefault(text_of(task.prompt), []).extend(t.text for t in evidence_of(task))
    return gold


SECRET = bytes(range(16))
"""One run secret for every run here: the same opaque names and the same canaries told, so
two servers' runs differ only by what the servers answer."""


def over_the_wire(make: Callable[[], Memory], evaluation: Evaluation) -> memrank.Result:
    """``evaluation`` run through the aml client against ``make``'s memory served on loopback."""
    with serving(ContractService(make)) as url:
        memory = AmlMemory(url, timeout=60)
        try:
            result = memrank.run(memory, evaluation, secret=SECRET)
        finally:
            memory.close()
    assert not result.failed, result.failed
    return result
