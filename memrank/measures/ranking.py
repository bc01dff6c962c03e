"""recall-all@k and ndcg-any@k: LongMemEval's session-level retrieval measures.

The recalled documents are mapped to the sessions they come from and de-duplicated in rank
order, as LongMemEval's own turn-to-session evaluation does; the first k distinct sessions are
scored against the sessions holding the evidence. ``recall-all@k`` is 1 when every evidence
session is among them; ``ndcg-any@k`` is their nDCG with binary relevance and LongMemEval's
discount (ranks 1 and 2 both weigh 1, rank r > 2 weighs 1/log2(r)).

A recalled document that names no session and holds no evidence turn occupies a rank as a
session of its own that holds no evidence. Abstention questions are not scored: LongMemEval
leaves them out of its retrieval evaluation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from memrank.measure import Decider, Measure, Scope, Value
from memrank.measures.evidence import EvidenceTurn, evidence_of, first_ranks, session_of
from memrank.system import Document
from memrank.trace import Trace

__all__ = ["RANKING_KS", "SessionRanking", "ndcg"]

RANKING_KS = (5, 10)
"""The cut-offs LongMemEval reports its session-level measures at."""


def ndcg(relevant: Sequence[bool], wanted: int, k: int) -> float:
    """nDCG@k of a ranked list of binary relevances when ``wanted`` items are relevant."""
    ideal = _dcg([True] * min(wanted, k))
    return _dcg(relevant[:k]) / ideal if ideal else 0.0


def _dcg(relevant: Sequence[bool]) -> float:
    return sum(1.0 / max(1.0, math.log2(rank)) for rank, r in enumerate(relevant, 1) if r)


class SessionRanking(Measure):
    """``recall-all@k`` and ``ndcg-any@k`` over sessions, k in 5 and 10."""

    name, scope, reads, decider = "session-ranking", Scope.TASK, ("recalled",), Decider.RULE
    produces = tuple(f"{m}@{k}" for k in RANKING_KS for m in ("recall-all", "ndcg-any"))

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        produced = []
        for trace in traces:
            turns = evidence_of(trace.task)
            if trace.task.expected.abstain:
                produced += self._all(
                    trace, None, "an abstention question: LongMemEval scores no retrieval for it"
                )
                continue
            if not turns:
                produced += self._all(
                    trace, None, "no evidence session is known, so the ranking cannot be scored"
                )
                continue
            documents = trace.credited
            wanted = {turn.session for turn in turns}
            ranked: list[str] = []
            for position, (document, rank) in enumerate(
                zip(documents, _evidence_at(turns, documents), strict=True)
            ):
                session = session_of(document) or rank or f"unnamed document {position + 1}"
                if session not in ranked:
                    ranked.append(session)
            relevant = [session in wanted for session in ranked]
            for k in RANKING_KS:
                found = wanted & set(ranked[:k])
                why = (
                    f"{len(found)} of {len(wanted)} evidence session(s) among the first {k} "
                    f"of the {len(ranked)} session(s) recalled"
                )
                produced.append(self._value(trace, f"recall-all@{k}", float(found == wanted), why))
                produced.append(
                    self._value(trace, f"ndcg-any@{k}", ndcg(relevant, len(wanted), k), why)
                )
        return produced

    def _all(self, trace: Trace, value: float | None, why: str) -> list[Value]:
        return [self._value(trace, name, value, why) for name in self.names()]

    def _value(self, trace: Trace, name: str, value: float | None, why: str) -> Value:
        return Value(
            measure=name, decider=self.decider, task_id=trace.task.id, value=value, why=why
        )


def _evidence_at(turns: Sequence[EvidenceTurn], documents: Sequence[Document]) -> list[str | None]:
    """For each document, the session of the first evidence turn it holds, if any."""
    held: list[str | None] = [None] * len(documents)
    for turn, found in zip(turns, first_ranks(turns, documents), strict=True):
        if found is not None and held[found.rank - 1] is None:
            held[found.rank - 1] = turn.session
    return held
