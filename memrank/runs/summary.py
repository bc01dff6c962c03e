"""A result on one screen: per measure name its plain mean, how many values and how many could
not be decided, plus the headline the run registry shows. Also the same as JSON."""

from __future__ import annotations

from typing import Any

from memrank.result import Result

__all__ = ["headline", "measure_rows", "summary_json", "summary_text"]


def measure_rows(result: Result) -> list[dict[str, Any]]:
    """One row per measure name, in the order the run produced them.

    ``mean`` is the plain mean of the values that were decided (absent is not zero; the
    undecided are counted, never averaged in); a run-scope value is its own mean.
    """
    rows: dict[str, dict[str, Any]] = {}
    for value in result.values:
        row = rows.setdefault(
            value.measure,
            {
                "measure": value.measure,
                "decider": value.decider.value,
                "scope": "task" if value.task_id else "group" if value.group else "run",
                "values": [],
                "undecided": 0,
            },
        )
        if value.value is None:
            row["undecided"] += 1
        else:
            row["values"].append(value.value)
    out = []
    for row in rows.values():
        numbers = row.pop("values")
        row["n"] = len(numbers)
        row["mean"] = sum(numbers) / len(numbers) if numbers else None
        out.append(row)
    return out


def headline(result: Result) -> tuple[str | None, float | None]:
    """The evaluation's first measure and its mean: the number `memrank runs ls` shows."""
    if result.refusal is not None or not result.evaluation.measures:
        return None, None
    first = result.evaluation.measures[0]
    for row in measure_rows(result):
        if row["measure"] == first or row["measure"].startswith(first + "."):
            return row["measure"], row["mean"]
    return first, None


def summary_text(result: Result) -> str:
    """The one-screen layout: the result's header lines, then one line per measure name."""
    system, evaluation = result.system, result.evaluation
    lines = [
        f"system:     {system.name} ({system.kind}), version {system.version or 'not stated'}",
        f"evaluation: {evaluation.name} at {evaluation.version}, {evaluation.task_count} task(s)",
    ]
    if evaluation.slice:
        lines.append(f"slice:      {evaluation.slice} -- a slice is not a measurement")
    if result.refusal is not None:
        lines.append(f"refused:    {result.refusal}")
        return "\n".join(lines)
    rows = measure_rows(result)
    width = max([len("measure"), *(len(row["measure"]) for row in rows)])
    lines.append("")
    lines.append(f"  {'measure':<{width}} {'mean':>9} {'n':>6} {'undecided':>9}  decider  scope")
    for row in rows:
        mean = "None" if row["mean"] is None else f"{row['mean']:.3f}"
        lines.append(
            f"  {row['measure']:<{width}} {mean:>9} {row['n']:>6} {row['undecided']:>9}  "
            f"{row['decider']:<7}  {row['scope']}"
        )
    lines.append("")
    lines.append(f"traces:     {len(result.traces)} recorded, {len(result.failed)} with errors")
    return "\n".join(lines)


def summary_json(result: Result) -> dict[str, Any]:
    """What ``--json`` prints for a run: the records, failures and the per-measure rows."""
    measure, mean = headline(result)
    return {
        "system": result.system.name,
        "kind": result.system.kind,
        "evaluation": result.evaluation.name,
        "version": result.evaluation.version,
        "slice": result.evaluation.slice,
        "tasks": result.evaluation.task_count,
        "refusal": result.refusal,
        "traces": len(result.traces),
        "failed": len(result.failed),
        "headline": {"measure": measure, "mean": mean},
        "measures": measure_rows(result),
        "started": result.started.isoformat(),
        "finished": result.finished.isoformat(),
    }
