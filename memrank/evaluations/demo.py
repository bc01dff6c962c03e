"""demo: five questions about one person, small enough to read whole.

Four questions have their answer in one session; one (q_diet) is asked in words the session
never uses, so a word-overlap retriever misses it; one (q_allergy_neg) is never answered by
the material at all.
"""

from __future__ import annotations

import hashlib
from importlib.resources import files
from typing import Any

import orjson

from memrank.evaluation import BundleFile, DatasetBundle, Evaluation, question_counts
from memrank.measures import DemoScore, WordMatch
from memrank.system import Document
from memrank.task import Clearing, Expected, Task

__all__ = ["DEMO_DATA", "HEADLINE", "demo"]

HEADLINE = "word-match"
"""The headline value: the span match the board's demo column reads."""

DEMO_DATA = files("memrank.evaluations") / "data" / "demo.json"


def demo() -> Evaluation:
    """The demo evaluation, version memrank-demo@v1+def0."""
    raw = DEMO_DATA.read_bytes()
    data: dict[str, Any] = orjson.loads(raw)
    sessions = tuple(
        Document(
            id=s["id"], content=s["content"], user_id=data["user_id"], timestamp=s["timestamp"]
        )
        for s in data["sessions"]
    )
    tasks = tuple(
        Task(
            id=t["id"],
            prompt=t["prompt"],
            group=data["group"],
            context=sessions,
            category=t["category"],
            expected=Expected(
                answers=tuple(t["answers"]),
                required_spans=tuple(t["required_spans"]),
                evidence_doc_ids=tuple(t["evidence"]),
                abstain=t.get("abstain", False),
            ),
        )
        for t in data["tasks"]
    )
    return Evaluation(
        name=data["name"],
        version=data["version"],
        tasks=tasks,
        headline=HEADLINE,
        measures=(DemoScore(), WordMatch()),
        clearing=Clearing.PER_GROUP,
        dataset=DatasetBundle(
            sha256=hashlib.sha256(raw).hexdigest(),
            files=(
                BundleFile(name="demo.json", sha256=hashlib.sha256(raw).hexdigest(), size=len(raw)),
            ),
            question_counts=question_counts(tasks),
        ),
    )
