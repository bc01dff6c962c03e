"""The files a statement names, as docs/artifacts.md defines them, standard library only: the
run file's split into the result and timings files and their join, the scores file derived
from a result file, and the scores file's reader checks."""

from __future__ import annotations

import hashlib
from typing import Any

from .second_verifier_crypto import canonical, jcs, parse, sorted_json

ABSENT = "the result file holds no value of this measure for this task"
RUN_SCHEMA, RESULT_SCHEMA = "memrank.result/v1", "memrank.result/v2"
TIMINGS_SCHEMA, SCORES_SCHEMA = "memrank.timings/v1", "memrank.scores/v1"
CLOCK_FIELDS = ("started", "finished", "timings_ms")
DECIDERS = ("memrank", "rule", "model", "system")


def is_clock_value(value: dict[str, Any]) -> bool:
    measure = value["measure"]
    named = measure == "latency" or measure.startswith("latency.")
    return named and value["task_id"] is None and value["group"] is None


def split(run_bytes: bytes) -> tuple[bytes, bytes]:
    """The result file and the timings file of a run file."""
    run = parse(run_bytes)
    assert run["schema"] == RUN_SCHEMA
    result = {k: v for k, v in run.items() if k not in ("started", "finished")}
    result["schema"] = RESULT_SCHEMA
    result["provenance"] = {k: v for k, v in run["provenance"].items() if k != "environment"}
    columns: dict[str, list[Any]] = {name: [] for name in (*CLOCK_FIELDS, "engine_timings_ms")}
    result["traces"] = []
    for trace in run["traces"]:
        kept = {k: v for k, v in trace.items() if k not in CLOCK_FIELDS}
        kept["declared"] = dict(trace["declared"])
        columns["engine_timings_ms"].append(kept["declared"].pop("engine_timings_ms"))
        for name in CLOCK_FIELDS:
            columns[name].append(trace[name])
        result["traces"].append(kept)
    result["values"] = [v for v in run["values"] if not is_clock_value(v)]
    result_bytes = sorted_json(result).encode()
    timings = {
        "schema": TIMINGS_SCHEMA,
        "result_sha256": hashlib.sha256(result_bytes).hexdigest(),
        "started": run["started"],
        "finished": run["finished"],
        "environment": run["provenance"]["environment"],
        "traces": columns,
        "values": [v for v in run["values"] if is_clock_value(v)],
    }
    return result_bytes, canonical(timings)


def join(result: Any, timings: Any) -> dict[str, Any]:
    """The run file a result file and its timings file make; ValueError when they do not."""
    try:
        if result["schema"] != RESULT_SCHEMA or timings["schema"] != TIMINGS_SCHEMA:
            raise ValueError("not a result file and a timings file")
        columns = timings["traces"]
        count = len(result["traces"])
        for name in (*CLOCK_FIELDS, "engine_timings_ms"):
            if not isinstance(columns[name], list) or len(columns[name]) != count:
                raise ValueError(f"timings {name} do not hold one entry per trace")
        traces = []
        for i, trace in enumerate(result["traces"]):
            joined = {**trace, **{name: columns[name][i] for name in CLOCK_FIELDS}}
            engine = columns["engine_timings_ms"][i]
            joined["declared"] = {**trace["declared"], "engine_timings_ms": engine}
            traces.append(joined)
        return {
            **result,
            "schema": RUN_SCHEMA,
            "started": timings["started"],
            "finished": timings["finished"],
            "provenance": {**result["provenance"], "environment": timings["environment"]},
            "traces": traces,
            "values": [*result["values"], *timings["values"]],
        }
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"the files do not join ({exc!r})") from None


def scores_of(result_bytes: bytes) -> bytes:
    """The scores file of a result file; ValueError when none can be made."""
    result = parse(result_bytes)
    if result.get("schema") != RESULT_SCHEMA:
        raise ValueError("not a memrank.result/v2 file")
    order: dict[str, int] = {}
    tasks: dict[str, list[Any]] = {"id": [], "group": [], "category": []}
    for trace in result["traces"]:
        task = trace["task"]
        if task["id"] not in order:
            order[task["id"]] = len(order)
            for key in ("id", "group", "category"):
                tasks[key].append(task[key])
    n = len(order)
    measures: dict[str, dict[str, Any]] = {}
    for value in result["values"]:
        if value["task_id"] is None:
            continue
        column = measures.setdefault(
            value["measure"],
            {
                "decider": value["decider"],
                "values": [None] * n,
                "whys": [ABSENT] * n,
                "count": [None] * n,
                "total": [None] * n,
                "seen": set(),
            },
        )
        if value["task_id"] not in order:
            raise ValueError(f"a value names task {value['task_id']!r}, which has no trace")
        if value["task_id"] in column["seen"]:
            raise ValueError(f"two values of {value['measure']!r} for one task")
        if value["decider"] != column["decider"]:
            raise ValueError(f"{value['measure']!r} decided by two deciders")
        column["seen"].add(value["task_id"])
        at = order[value["task_id"]]
        column["values"][at] = value["value"]
        column["whys"][at] = value["why"] if value["value"] is None else None
        column["count"][at] = value["count"]
        column["total"][at] = value["total"]
    for column in measures.values():
        del column["seen"]
        groups: dict[str, list[int]] = {}
        for at, why in enumerate(column.pop("whys")):
            if why is not None:
                groups.setdefault(why, []).append(at)
        column["why"] = [[why, at] for why, at in groups.items()]
        if all(count is None for count in column["count"]):
            column["count"] = column["total"] = None
    document = {
        "schema": SCORES_SCHEMA,
        "result_sha256": hashlib.sha256(result_bytes).hexdigest(),
        "result_size": len(result_bytes),
        "evaluation": {
            "name": result["evaluation"]["name"],
            "version": result["evaluation"]["version"],
        },
        "tasks": tasks,
        "measures": measures,
    }
    return jcs(document).encode()


def _number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _count(x: object) -> bool:
    return x is None or (isinstance(x, int) and not isinstance(x, bool))


def _sha(x: object) -> bool:
    return isinstance(x, str) and len(x) == 64 and all(c in "0123456789abcdef" for c in x)


def scores_problem(scores: Any) -> str | None:
    """Why a parsed, canonical scores file is not one a reader accepts (None: it is)."""
    if not isinstance(scores, dict) or set(scores) != {
        "schema", "result_sha256", "result_size", "evaluation", "tasks", "measures"
    }:  # fmt: skip
        return "other keys than a scores file's"
    if scores["schema"] != SCORES_SCHEMA or not _sha(scores["result_sha256"]):
        return "schema or result_sha256"
    size, evaluation, tasks = scores["result_size"], scores["evaluation"], scores["tasks"]
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return "result_size"
    if not isinstance(evaluation, dict) or set(evaluation) != {"name", "version"}:
        return "evaluation"
    if not all(isinstance(evaluation[k], str) for k in evaluation):
        return "evaluation"
    if not isinstance(tasks, dict) or set(tasks) != {"id", "group", "category"}:
        return "tasks"
    if not all(isinstance(tasks[k], list) for k in tasks):
        return "tasks"
    n = len(tasks["id"])
    if any(len(tasks[k]) != n for k in tasks) or not all(isinstance(t, str) for t in tasks["id"]):
        return "not one entry per task"
    if len(set(tasks["id"])) != n:
        return "task ids repeat"
    for key in ("group", "category"):
        if not all(t is None or isinstance(t, str) for t in tasks[key]):
            return f"tasks.{key}"
    if not isinstance(scores["measures"], dict):
        return "measures"
    for column in scores["measures"].values():
        problem = _column_problem(column, n)
        if problem:
            return problem
    return None


def _column_problem(column: Any, n: int) -> str | None:
    keys = {"decider", "values", "why", "count", "total"}
    if not isinstance(column, dict) or set(column) != keys or column["decider"] not in DECIDERS:
        return "a column's keys or decider"
    values, why = column["values"], column["why"]
    if not isinstance(values, list) or len(values) != n:
        return "not one entry per task"
    if not all(v is None or _number(v) for v in values):
        return "a value that is not a number"
    counts = column["count"], column["total"]
    lined_up = all(isinstance(c, list) and len(c) == n and all(map(_count, c)) for c in counts)
    if counts != (None, None) and not lined_up:
        return "count and total"
    if not isinstance(why, list):
        return "why"
    explained: dict[int, str] = {}
    firsts: list[int] = []
    for pair in why:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
            return "why"
        indices = pair[1]
        if not isinstance(indices, list) or not indices:
            return "why"
        if any(not isinstance(i, int) or isinstance(i, bool) for i in indices):
            return "why"
        if indices != sorted(set(indices)) or indices[0] < 0 or indices[-1] >= n:
            return "why indices"
        for i in indices:
            if i in explained:
                return "an index given two reasons"
            explained[i] = pair[0]
        firsts.append(indices[0])
    if firsts != sorted(firsts) or len(set(r for r, _ in why)) != len(why):
        return "reasons not ordered by their first task"
    if set(explained) != {i for i, v in enumerate(values) if v is None}:
        return "a reason not exactly where a value is null"
    return None
