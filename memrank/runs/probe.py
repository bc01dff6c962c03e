"""The fixed probe: the same few facts told and the same questions asked of a memory reached
over the network at the end of every tracked run that had no failed task, its answers
recorded in the result as a digest among the system's components (``probe``), so two results
can be read as one configuration on evidence (memrank.reruns).

From memrank's side, an endpoint that names no version looks the same whatever runs behind
its address; how it answers the same questions about the same facts is what tells. The digest
is of the texts recalled, in rank order (the ids an endpoint gives its items may be fresh per
run). It is evidence of sameness only as far as the probe reaches: two systems that rank these
ten facts alike are read as one. A system that answers the probe differently from run to run
is never read as one configuration by it. A probe that fails, or takes longer than a minute,
records nothing (a run with failed tasks is not probed: its endpoint may be what failed), and
absence is never evidence either way.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import threading
from datetime import UTC, datetime, timedelta

import orjson

from memrank._inflight import Abandoned, stopped_by
from memrank.reruns import PROBE
from memrank.result import Result
from memrank.system import Document, Memory, text_of

__all__ = ["PROBE_VERSION", "probed", "with_probe"]

PROBE_VERSION = "probe/1"
"""Named in every digest: a changed probe never matches the answers to an earlier one."""
_WITHIN_S = 60.0
_K = 3
_SAID = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
_FACTS = (
    "Mara keeps three hens called Pepper, Olive and Dot.",
    "The hen called Dot lays blue eggs every other day.",
    "Mara's brother Ivo repairs clocks in a shop near the harbour.",
    "Ivo's oldest clock was built in 1894 and still chimes at noon.",
    "Mara planted garlic in October and harvested it in July.",
    "The garden shed is painted green and its door sticks in the rain.",
    "Ivo sails a small boat called Heron on Sunday mornings.",
    "Mara learned to make cheese from her grandmother in Porto.",
    "The harbour market sells Ivo's repaired clocks on Saturdays.",
    "Pepper is the oldest hen and refuses to leave the shed in winter.",
)
_QUESTIONS = (
    "What colour are the eggs Dot lays?",
    "Where does Ivo repair clocks?",
    "When was the garlic harvested?",
    "Which hen stays in the shed in winter?",
)


def _facts() -> list[Document]:
    return [
        Document(
            id=f"f{n}",
            content=text,
            timestamp=_SAID + timedelta(hours=n),
            metadata={"speaker": "Mara", "session_id": "s1"},
        )
        for n, text in enumerate(_FACTS)
    ]


def probed(memory: Memory) -> str | None:
    """The digest of ``memory``'s answers to the probe, asked on a unit of its own (told once,
    cleaned up); None when a call of it failed or it took past a minute (then abandoned)."""
    found: list[str] = []
    stop = threading.Event()

    def ask() -> None:
        # a probe that fails is no evidence, and no failure of the run
        with stopped_by(stop), contextlib.suppress(Exception, Abandoned):
            found.append(_answers(memory))

    asking = threading.Thread(target=ask, name="memrank-probe", daemon=True)
    asking.start()
    asking.join(_WITHIN_S)
    stop.set()
    return found[0] if found and not asking.is_alive() else None


def _answers(memory: Memory) -> str:
    # names as opaque as an endpoint run's (memrank.integrity): nothing sent says "probe"
    scope, unit = secrets.token_hex(12), secrets.token_hex(12)
    handle = memory.for_unit(f"run_{secrets.token_hex(6)}", scope)
    handle.prepare(unit)
    try:
        handle.ingest(_facts())
        answers = [
            [text_of(d.content) for d in handle.retrieve(q, _K, unit).documents] for q in _QUESTIONS
        ]
    finally:
        handle.cleanup()
    digest = hashlib.sha256(orjson.dumps([PROBE_VERSION, answers])).hexdigest()
    return f"{PROBE_VERSION} sha256:{digest}"


def with_probe(system: object, result: Result) -> Result:
    """For a memory reached over the network whose run had no failed task, ``result`` with
    its answers to the probe among its system's components; any other result as it is."""
    if not isinstance(system, Memory) or system.transport == "in-process":
        return result
    if result.refusal is not None or result.failed:
        return result
    digest = probed(system)
    if digest is None:
        return result
    record = result.system.model_copy(
        update={"components": {**result.system.components, PROBE: digest}}
    )
    return result.model_copy(update={"system": record})
