"""Canary facts and questions, planted in an endpoint run's units from the run's secret.

A canary is a fact nobody could know before the run: a made-up name drawn from the secret, told
as turns of the unit's own sessions (same speakers, the same ``"<speaker>: <text>"`` shape when
the unit's documents have it, the session's own time), and a question about it asked among the
unit's questions at a random position. On the wire it is indistinguishable from the
benchmark's material. Its evidence is stated like a benchmark task's (``evidence_metadata``),
so the evaluation's own measures score it; the run then reports canaries apart and leaves them
out of every benchmark value (``memrank.integrity.verdict``).

The facts carry the benchmark's kinds of difficulty, one kind per canary in turn: a fact said
once and asked in other words, a fact asked about by time ("when"), a fact restated with a
change in a later session (both turns are evidence), and a fact whose question names it only
through a second turn in another session (two hops, both turns evidence). Names are fresh
syllable strings; everything else is everyday words a retriever must match on meaning as much
as on spelling. Most kinds also bring look-alike turns, which share the question's words but
not its answer, in a unit that holds enough turns of its own to hide them among (``CROWD``).

How many: 5% of the evaluation's tasks (at least 24, or as many as there are tasks when fewer),
shared among the units in proportion to
their tasks, each unit's share rounded by the secret's draw.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memrank.measures.evidence import EvidenceTurn, evidence_metadata
from memrank.system import Document
from memrank.task import Expected, Task, Unit

__all__ = ["CANARY_CATEGORY", "SHARE", "is_canary", "plant"]

SHARE = 0.05
"""Canaries per benchmark task, over the whole evaluation."""
FLOOR = 24
"""The fewest canaries a run gets (or as many as it has tasks, if fewer): below about two
dozen the canary test cannot tell a lookup from honest retrieval (docs/integrity.md)."""
CROWD = 10
"""The fewest documents of its own a unit holds per canary for its canaries to bring their
look-alike turns. Look-alikes hide a canary's question words among the unit's own turns; a unit
with fewer (the demo: 3 turns, 5 canaries) has no crowd to hide them in, its canaries' own
turns already outnumber its documents, and look-alikes would only push its own turns out of
the recall. LoCoMo's units hold 17 (its first conversation, 24 canaries) to 42 per canary."""
CANARY_CATEGORY = "canary"
"""The category a canary task carries; its metadata says ``canary: true``."""

_REDRAWS = 20
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "tr", "st")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou")
_ENDINGS = ("", "n", "r", "l", "s", "k")


@dataclass(frozen=True)
class _Fact:
    """A canary before it is placed: its turns (each with how many sessions after the first it
    goes in), its question and answer."""

    turns: tuple[tuple[int, str], ...]
    question: str
    answer: str
    distractors: tuple[str, ...] = ()
    """Turns that share the question's words but not its answer, said in other sessions."""


def _name(rng: random.Random) -> str:
    syllables = [rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.randint(2, 3))]
    return ("".join(syllables) + rng.choice(_ENDINGS)).capitalize()


def _said_once(rng: random.Random, speaker: str) -> _Fact:
    name = _name(rng)
    craft, place = rng.choice(
        [
            ("glassblowing", "the studio by the river"),
            ("beekeeping", "a farm outside town"),
            ("fencing", "the sports hall"),
            ("calligraphy", "the old library"),
            ("archery", "a club near work"),
            ("cheese making", "a dairy up north"),
        ]
    )
    text = (
        f"I finally signed up for {craft} lessons at {place}, my friend {name} talked me into it!"
    )
    return _Fact(((0, text),), f"Who persuaded {speaker} to take up a new hobby?", name)


def _when(rng: random.Random, speaker: str) -> _Fact:
    name = _name(rng)
    animal = rng.choice(["tortoise", "ferret", "hedgehog", "parrot", "chinchilla", "iguana"])
    when = rng.choice(["yesterday", "last weekend", "two days ago", "last Friday"])
    text = f"Big news, we brought home a little {animal} {when} and named it {name}."
    distractors = (
        f"The {animal} next door keeps getting into our garden, it's funny to watch.",
        f"I've always wanted a {animal}, they're so sweet.",
        f"My sister sent me a video of a {animal} doing tricks, I laughed so hard.",
    )
    return _Fact(
        ((0, text),), f"When did {speaker} bring home the new {animal}?", when, distractors
    )


def _restated(rng: random.Random, speaker: str) -> _Fact:
    name = _name(rng)
    first, second = rng.sample(
        ["tandem bike", "camper van", "sidecar motorbike", "vintage scooter", "canoe"], 2
    )
    turns = (
        (0, f"I'm thinking about getting a {first} so I can visit {name} more often."),
        (1, f"I ended up buying a {second} instead, it makes the trips to see {name} easier."),
    )
    distractors = (f"A {first} is so expensive to keep up, but it would be worth it.",)
    return _Fact(turns, f"What did {speaker} get for those trips in the end?", second, distractors)


def _two_hops(rng: random.Random, speaker: str) -> _Fact:
    name = _name(rng)
    job = rng.choice(["carpenter", "nurse", "pilot", "chef", "plumber", "librarian"])
    thing = rng.choice(["fence", "kitchen sink", "garden shed", "front door", "roof"])
    turns = (
        (0, f"My neighbor {name} just started working as a {job}, she's thrilled."),
        (1, f"{name} came over and helped us repair the {thing} on Sunday."),
    )
    question = f"What does the neighbor who helped {speaker} with the {thing} do for work?"
    distractors = (
        f"The {thing} has been acting up for weeks, I keep meaning to look at it.",
        f"Do you know anyone good with a {thing}? Ours is a mess.",
    )
    return _Fact(turns, question, job, distractors)


_KINDS: tuple[Callable[[random.Random, str], _Fact], ...] = (
    _said_once,
    _when,
    _restated,
    _two_hops,
)


def _options(
    rng: random.Random,
    fact: _Fact,
    kind: Callable[[random.Random, str], _Fact],
    offered: tuple[str, ...] | None,
) -> tuple[str, ...] | None:
    """Choices for a canary asked where the benchmark's questions offer them (as many as its
    neighbour offers): its answer among answers of other facts of its kind, in a drawn order."""
    if not offered:
        return None
    choices = {fact.answer}
    for _ in range(8 * len(offered)):  # a kind has few answers: draw until enough differ
        if len(choices) == len(offered):
            break
        choices.add(kind(rng, "").answer)
    ordered = sorted(choices)
    rng.shuffle(ordered)
    return tuple(ordered)


def is_canary(task: Task) -> bool:
    return bool(task.metadata.get(CANARY_CATEGORY))


def counts(units: Sequence[Unit], secret: bytes) -> list[int]:
    """How many canaries each unit gets: ``SHARE`` of all tasks (at least ``FLOOR``, at most as
    many as the tasks when they are fewer), in proportion to
    each unit's tasks, the fractions rounded up or down by a draw from the secret."""
    tasks = sum(len(unit.tasks) for unit in units)
    if not tasks:
        return [0] * len(units)
    total = max(min(FLOOR, tasks), math.ceil(SHARE * tasks))
    rng = _rng(secret, "counts")
    return [
        math.floor(share) + (rng.random() < share - math.floor(share))
        for share in (total * len(unit.tasks) / tasks for unit in units)
    ]


def plant(unit: Unit, secret: bytes, count: int) -> Unit:
    """The unit with ``count`` canaries: their turns (and look-alikes, when the unit holds
    ``CROWD`` documents of its own per canary) among its documents, their questions among its
    tasks, each at a position drawn from the secret."""
    if count <= 0 or not unit.tasks:
        return unit
    rng = _rng(secret, unit.name)
    turns = _Turns(unit)
    tasks = list(unit.tasks)
    asked = {str(task.prompt) for task in unit.tasks}
    crowded = len(unit.documents) >= CROWD * count
    for number in range(count):
        speaker = rng.choice(turns.speakers) if turns.speakers else turns.owner
        kind = _KINDS[number % len(_KINDS)]
        fact = kind(rng, speaker)
        for _ in range(_REDRAWS):  # a question asked twice word for word would mark itself
            if fact.question not in asked:
                break
            fact = kind(rng, speaker)
        asked.add(fact.question)
        first = rng.randrange(len(turns.sessions))
        evidence = []
        for index, (later, text) in enumerate(fact.turns):
            at = min(first + later * rng.randint(1, 3), len(turns.sessions) - 1)
            session = turns.sessions[at]
            doc_id = turns.add(rng, session, f"{unit.name}:canary-{number}:{index}", speaker, text)
            evidence.append(EvidenceTurn(id=doc_id, session=session.name or unit.name, text=text))
        for index, text in enumerate(fact.distractors if crowded else ()):
            said_by = rng.choice(turns.speakers) if turns.speakers else ""
            doc_id = f"{unit.name}:canary-{number}:look-alike-{index}"
            turns.add(rng, rng.choice(turns.sessions), doc_id, said_by, text)
        # never a unit's first question: that trace carries the unit's setup (its ingest
        # timings, and an engine's ingest usage), which belong to the benchmark
        position = rng.randint(1, len(tasks))
        neighbour = tasks[position - 1]
        tasks.insert(
            position,
            Task(
                id=f"{unit.name}:canary-{number}",
                prompt=fact.question,
                options=_options(rng, fact, kind, neighbour.options),
                group=neighbour.group,
                category=CANARY_CATEGORY,
                asked_at=neighbour.asked_at,
                expected=Expected(
                    answers=(fact.answer,),
                    required_spans=(fact.answer,),
                    evidence_doc_ids=tuple(turn.id for turn in evidence),
                ),
                metadata={**evidence_metadata(evidence), CANARY_CATEGORY: True},
            ),
        )
    return Unit(name=unit.name, tasks=tuple(tasks), documents=turns.documents())


class _Turns:
    """A unit's documents and the turns planted among them, placed by index into the unit's
    own documents (so the sessions are found once)."""

    def __init__(self, unit: Unit) -> None:
        self.original = unit.documents
        self.sessions = _sessions(unit.documents)
        self.speakers = sorted(
            {str(d.metadata["speaker"]) for d in unit.documents if "speaker" in d.metadata}
        )
        # without speakers, questions name whom the documents are kept for, as the
        # benchmark's own questions do ("What is Alex's job?")
        owners = sorted({d.user_id.capitalize() for d in unit.documents if d.user_id})
        self.owner = owners[0] if len(owners) == 1 else "the user"
        self.prefixed = bool(self.speakers) and all(
            str(d.content).startswith(f"{d.metadata.get('speaker')}: ")
            for d in unit.documents[:50]
            if isinstance(d.content, str)
        )
        self._planted: list[tuple[int, int, Document]] = []
        self._texts: dict[str, str] = {}

    def add(
        self, rng: random.Random, session: _Session, doc_id: str, speaker: str, text: str
    ) -> str:
        """Plant ``text`` said by ``speaker`` at a random place in ``session``, at the time of
        the turn it follows (or, first in its session, of the one after it); returns the id of
        the document that says it. A text already planted in this unit is not planted again (a
        turn repeated word for word would mark itself): the first one's id is returned."""
        if text in self._texts:
            return self._texts[text]
        self._texts[text] = doc_id
        where = rng.randint(session.start, session.end)
        host = self.original[max(where - 1, session.start)] if self.original else None
        metadata: dict[str, str] = {}
        if session.name is not None:
            metadata["session_id"] = session.name
        if self.speakers:
            metadata["speaker"] = speaker
        document = Document(
            id=doc_id,
            content=f"{speaker}: {text}" if self.prefixed else text,
            timestamp=host.timestamp if host else None,
            metadata=metadata,
        )
        self._planted.append((where, session.start, document))
        return doc_id

    def documents(self) -> tuple[Document, ...]:
        """The unit's documents with the planted turns before the index each was placed at,
        those placed at one index by session, then in the order they were planted."""
        at: dict[int, list[tuple[int, Document]]] = {}
        for where, session_start, document in self._planted:
            at.setdefault(where, []).append((session_start, document))
        merged: list[Document] = []
        for index in range(len(self.original) + 1):
            # the end of one session and the start of the next share an index: the earlier
            # session's turns go first (a stable sort keeps each session's planting order)
            placed = sorted(at.get(index, ()), key=lambda planted: planted[0])
            merged.extend(document for _, document in placed)
            if index < len(self.original):
                merged.append(self.original[index])
        return tuple(merged)


@dataclass(frozen=True)
class _Session:
    name: str | None
    start: int
    """Index of its first document."""
    end: int
    """Index one past its last document: a turn inserted here ends the session."""


def _sessions(documents: Sequence[Document]) -> list[_Session]:
    """The runs of consecutive documents that share a ``session_id`` (one run when none has)."""
    found: list[_Session] = []
    for index, document in enumerate(documents):
        name = document.metadata.get("session_id")
        name = None if name is None else str(name)
        if found and found[-1].name == name:
            found[-1] = _Session(name, found[-1].start, index + 1)
        else:
            found.append(_Session(name, index, index + 1))
    return found or [_Session(None, 0, 0)]


def _rng(secret: bytes, purpose: str) -> random.Random:
    seed = hmac.new(secret, f"canary\x00{purpose}".encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(seed, "big"))
