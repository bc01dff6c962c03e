"""A result on one screen: per measure name its plain mean, how many values and how many could
not be decided, plus the headline the run registry shows. Also the same as JSON.

Both name the contract breaches the run's endpoint committed: the breaches the wire client
declared for each answer (``Recall.declared["breaches"]``, memrank.wire.answers) added up over
every answer the run read, the canaries' included.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from memrank.measure import Value
from memrank.result import Result
from memrank.runs.causes import failure_causes, left_out, said
from memrank.wire.answers import BREACHES

__all__ = ["declared_headline", "headline", "measure_rows", "summary_json", "summary_text"]


def measure_rows(result: Result) -> list[dict[str, Any]]:
    """One row per measure name, in the order the run produced them.

    ``mean`` is the plain mean of the values that were decided (absent is not zero; the
    undecided are counted, never averaged in); a run-scope value is its own mean.
    """
    rows: dict[str, dict[str, Any]] = {}
    for value in result.values:
        row = rows.get(value.measure)
        if row is None:  # a measure's first value: the row made once, not once per value
            row = rows[value.measure] = {
                "measure": value.measure,
                "decider": value.decider.value,
                "scope": "task" if value.task_id else "group" if value.group else "run",
                "values": [],
                "undecided": 0,
            }
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


def headline(result: Result, declared: str | None = None) -> tuple[str | None, float | None]:
    """The evaluation's headline value name and its mean: the number every summary shows.

    This is the one place a result's headline is decided: ``memrank run``, the run registry
    (``runs ls``, ``runs show``, ``watch``) and ``memrank view`` all show what it gives.
    ``declared`` is the evaluation's ``headline`` when the caller holds the evaluation; else
    the one the recorded evaluation declares (``declared_headline``), and for any other the
    first value name of its first measure.
    """
    return _headline(result, declared, measure_rows(result))


def declared_headline(result: Result) -> str | None:
    """The headline value name the evaluation ``result`` records declares, read without
    loading it: an evaluation file's (known by its ``file@`` version, whatever the file is
    called), else a shipped evaluation's by name; None for any other."""
    from memrank.catalog import headline_of
    from memrank.evaluations.from_file import HEADLINE as FILE_HEADLINE

    if result.evaluation.version.startswith("file@"):  # memrank.evaluations.from_file's versions
        return FILE_HEADLINE
    return headline_of(result.evaluation.name)


def _headline(
    result: Result, declared: str | None, rows: list[dict[str, Any]]
) -> tuple[str | None, float | None]:
    if result.refusal is not None or not result.evaluation.measures:
        return None, None
    wanted = declared or declared_headline(result)
    if wanted is None:
        first = result.evaluation.measures[0]
        found = next(
            (r for r in rows if r["measure"] == first or _under(r["measure"], first)), None
        )
        return (found["measure"], found["mean"]) if found else (first, None)
    found = next((r for r in rows if r["measure"] == wanted), None)
    return wanted, found["mean"] if found else None


def _under(name: str, measure: str) -> bool:
    return name.startswith((measure + "@", measure + "."))


def summary_text(
    result: Result, declared: str | None = None, *, every_measure: bool = False
) -> str:
    """The one-screen layout: the result's header lines, the headline, then a key value of each
    measure the evaluation applies; ``every_measure``: one line per value name instead."""
    system, evaluation = result.system, result.evaluation
    lines = [
        f"system:     {system.name} ({system.kind}), version {system.version or 'not stated'}",
        f"evaluation: {evaluation.name} at {evaluation.version}, {evaluation.task_count} task(s), "
        f"cleared {evaluation.clearing.value}",
    ]
    if evaluation.slice:
        lines.append(f"slice:      {evaluation.slice} -- a slice is not a measurement")
    if result.refusal is not None:
        lines.append(f"refused:    {result.refusal}")
        return "\n".join(lines)
    rows = measure_rows(result)
    measure, mean = _headline(result, declared, rows)
    if measure is not None:
        lines += _headline_lines(result, measure, mean)
    lines.append("")
    lines += _every_row(result, rows) if every_measure else _key_rows(result, rows, measure)
    lines.append("")
    lines.append(f"traces:     {len(result.traces)} recorded, {len(result.failed)} with errors")
    if result.failed:
        lines.append(f"failures:   {said(failure_causes(result.failed))}")
    breaches = _breach_line(result)
    if breaches is not None:
        lines.append(breaches)
    return "\n".join(lines)


def _every_row(result: Result, rows: list[dict[str, Any]]) -> list[str]:
    """One line per value name: its mean, how many, how many undecided, who decides, scope."""
    width = max([len("measure"), *(len(row["measure"]) for row in rows)])
    lines = [f"  {'measure':<{width}} {'mean':>9} {'n':>6} {'undecided':>9}  decider  scope"]
    for row in rows:
        lines.append(
            f"  {row['measure']:<{width}} {_number(row['mean']):>9} {row['n']:>6} {row['undecided']:>9}  "
            f"{row['decider']:<7}  {row['scope']}"
        )
    # a whole-run value that could not be decided says why here (a run not judged, and the reason)
    return lines + [f"  {v.measure}: {v.why}" for v in _undecided_run_values(result)]


def _key_rows(result: Result, rows: list[dict[str, Any]], headline_name: str | None) -> list[str]:
    """Of each measure the evaluation applies, its first value name other than the headline
    (LoCoMo: 7 lines, not 59), a whole-run value not decided with its reason beside it, and how
    many more ``--values`` lists."""
    key: list[dict[str, Any]] = []
    for name in result.evaluation.measures:
        first = next(
            (
                row
                for row in rows
                if row["measure"] != headline_name
                and (row["measure"] == name or _under(row["measure"], name))
            ),
            None,
        )
        if first is not None and first not in key:
            key.append(first)
    why = {v.measure: v.why for v in _undecided_run_values(result)}
    width = max((len(row["measure"]) for row in key), default=0)
    lines = [
        f"  {row['measure']:<{width}} {_number(row['mean']):>9}"
        + (f"  {why[row['measure']]}" if row["mean"] is None and row["measure"] in why else "")
        for row in key
    ]
    more = sum(row["measure"] != headline_name and row not in key for row in rows)
    if more:
        lines.append(f"  ... and {more} more: --values lists every measure")
    return lines


def _undecided_run_values(result: Result) -> list[Value]:
    return [v for v in result.values if v.task_id is None and v.value is None]


def _headline_lines(result: Result, measure: str, mean: float | None) -> list[str]:
    """The headline, and beside one over fewer tasks than the evaluation has, over how many
    and why the others were left out."""
    line = f"headline:   {measure} {_number(mean)}"
    over = left_out(result, measure)
    if over is None or over[0] >= result.evaluation.task_count:
        return [line]
    decided, reasons = over
    left = sum(n for n, _ in reasons)
    return [
        f"{line} over {decided} of {result.evaluation.task_count} task(s)",
        f"            {left} left out: {said(reasons)}",
    ]


def _number(mean: float | None) -> str:
    return "None" if mean is None else f"{mean:.3f}"


def summary_json(result: Result, declared: str | None = None) -> dict[str, Any]:
    """What ``--json`` prints for a run: the records, failures and the per-measure rows."""
    rows = measure_rows(result)
    measure, mean = _headline(result, declared, rows)
    over = left_out(result, measure) if measure is not None else None
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
        "breaches": _breaches_json(result),
        "headline_over": None
        if over is None
        else {
            "tasks": over[0],
            "of": result.evaluation.task_count,
            "left_out": [{"count": n, "why": why} for n, why in over[1]],
        },
        "failures": [{"count": n, "cause": c} for n, c in failure_causes(result.failed)],
        "measures": rows,
        "started": result.started.isoformat(),
        "finished": result.finished.isoformat(),
    }


def _run_breaches(result: Result) -> tuple[dict[str, int], int]:
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


def _breach_line(result: Result) -> str | None:
    """``breaches:   12 × non-finite score, 3 × duplicate id, in the answers to 9 task(s)``,
    or None when the endpoint committed none."""
    counts, tasks = _run_breaches(result)
    if not counts:
        return None
    named = ", ".join(
        f"{n} × {name}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f"breaches:   {named}, in the answers to {tasks} task(s); each task's in its trace"


def _breaches_json(result: Result) -> dict[str, object]:
    """What ``--json`` states: ``{"counts": {name: n}, "tasks": n}``, empty counts for none."""
    counts, tasks = _run_breaches(result)
    return {"counts": counts, "tasks": tasks}
