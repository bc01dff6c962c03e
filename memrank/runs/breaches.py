"""The contract breaches a run's endpoint committed, in all and named: the breaches the wire
client declared for each answer (``Recall.declared["breaches"]``, memrank.wire.answers)
added up over every answer the run read, the canaries' included."""

from __future__ import annotations

from collections import Counter

from memrank.result import Result
from memrank.wire.answers import BREACHES

__all__ = ["breach_line", "breaches_json", "run_breaches"]


def run_breaches(result: Result) -> tuple[dict[str, int], int]:
    """Each breach's count over every answer the run read, and how many tasks' answers
    committed any."""
    counts: Counter[str] = Counter()
    tasks = 0
    planted = result.integrity.traces if result.integrity is not None else ()
    for trace in (*result.traces, *planted):
        declared = trace.recalled.declared.get(BREACHES) if trace.recalled else None
        if isinstance(declared, dict) and declared:
            tasks += 1
            counts.update({str(name): int(n) for name, n in declared.items()})
    return dict(counts), tasks


def breach_line(result: Result) -> str | None:
    """``breaches:   12 × non-finite score, 3 × duplicate id, in the answers to 9 task(s)``,
    or None when the endpoint committed none."""
    counts, tasks = run_breaches(result)
    if not counts:
        return None
    named = ", ".join(
        f"{n} × {name}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f"breaches:   {named}, in the answers to {tasks} task(s); each task's in its trace"


def breaches_json(result: Result) -> dict[str, object]:
    """What ``--json`` states: ``{"counts": {name: n}, "tasks": n}``, empty counts for none."""
    counts, tasks = run_breaches(result)
    return {"counts": counts, "tasks": tasks}
