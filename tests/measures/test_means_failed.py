"""Failed tasks are counted apart in every mean's why, never silently dropped or lumped in."""

from __future__ import annotations

import memrank
from memrank import Document, Evaluation, Expected, Task
from memrank.measures import (
    DemoScore,
    EvidenceMeans,
    EvidenceRecall,
    EvidenceTurn,
    RecalledWords,
    SessionRecall,
    evidence_metadata,
)
from memrank.systems import WordOverlap


class _Broken(WordOverlap):
    """Word overlap whose retrieve fails for prompts mentioning a storm, as a timeout would."""

    def retrieve(self, query, k, user_id, query_timestamp=None):  # type: ignore[no-untyped-def]
        if "storm" in str(query):
            raise TimeoutError("the endpoint did not answer in full within the deadline")
        return super().retrieve(query, k, user_id, query_timestamp)


def _evaluation() -> Evaluation:
    said = (
        ("d1", "The lighthouse keeper paints the door green."),
        ("d2", "A storm broke the lighthouse window."),
        ("d3", "The keeper's cat sleeps on the stairs."),
    )
    context = tuple(Document(id=i, content=t, metadata={"session_id": "s1"}) for i, t in said)
    asks = (
        ("door", "What colour is the lighthouse door?", "d1"),
        ("storm", "What did the storm break?", "d2"),
        ("cat", "Where does the keeper's cat sleep?", "d3"),
        ("lamp", "What fuel does the lamp burn?", None),
    )
    tasks = tuple(
        Task(
            id=name,
            prompt=prompt,
            group="keeper",
            context=context,
            expected=Expected(
                required_spans=("x",),
                evidence_doc_ids=(doc,) if doc else (),
                abstain=doc is None,
            ),
            metadata=evidence_metadata(
                [EvidenceTurn(id=doc, session="s1", text=dict(said)[doc])] if doc else []
            ),
        )
        for name, prompt, doc in asks
    )
    return Evaluation(
        name="keeper",
        version="t@1",
        tasks=tasks,
        k=20,
        measures=(EvidenceRecall(), SessionRecall(), RecalledWords(), EvidenceMeans(), DemoScore()),
    )


def test_a_mean_says_how_many_failed_apart_from_those_without_a_value() -> None:
    result = memrank.run(_Broken(), _evaluation())
    assert [t.task.id for t in result.failed] == ["storm"]
    (mean,) = [v for v in result.values if v.measure == "evidence-recall@5.mean"]
    assert mean.value == 1.0
    assert mean.why == (
        "mean over 2 task(s) (2 of 2); 1 failed task(s) left out, not counted as 0; "
        "1 without a value left out"
    )
    (demo,) = [v for v in result.values if v.measure == "demo-score"]
    assert "1 of 4 task(s) failed, counted as not recalled" in demo.why
