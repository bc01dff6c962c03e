"""The published files of a run: the deterministic result file and the timings file beside it.

A run file (what ``Result.save`` writes) holds two kinds of fact: what the system did (what it
was told, what it recalled, every value measured from that), which a deterministic system
repeats byte for byte, and what the clock and the machine said (when each step started, how
long it took, the latency values read from that, the host), which no rerun repeats. An
artifact signs them apart, so that a rerun can match the first kind exactly: the **result
file** is the run file without the timing facts, and the **timings file** holds exactly those.
``join`` puts them back together into the run file they came from (docs/artifacts.md).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from memrank.artifacts._canonical import canonical_bytes
from memrank.artifacts._scores import scores_of
from memrank.errors import ResultFileError
from memrank.result import PUBLISHED_RESULT_SCHEMA, RESULT_SCHEMA

__all__ = [
    "TIMINGS_SCHEMA",
    "RunFiles",
    "is_timing_value",
    "join",
    "run_files",
    "split",
]

TIMINGS_SCHEMA = "memrank.timings/v1"
TRACE_TIMINGS = ("started", "finished", "timings_ms")
"""The fields of each trace that the clock wrote."""
TIMING_MEASURE = "latency"
"""The measure whose values are read from the clock (``latency.retrieve.p50`` and the rest)."""


def is_timing_value(value: dict[str, Any]) -> bool:
    """Whether a value (as JSON) was read from the clock: a whole-run value (no task, no
    group) of the latency measure. A task's value of any name stays in the result file."""
    measure = str(value.get("measure", ""))
    return (
        (measure == TIMING_MEASURE or measure.startswith(TIMING_MEASURE + "."))
        and value.get("task_id") is None
        and value.get("group") is None
    )


@dataclass(frozen=True)
class RunFiles:
    """The three files an artifact names, as bytes, with their digests."""

    result: bytes
    """The result file: ``memrank.result/v2``, sorted-key JSON, byte-identical across reruns
    of a deterministic system from one build."""
    timings: bytes
    """The timings file: ``memrank.timings/v1``, canonical JSON."""
    scores: bytes
    """The scores file of the result file (``scores_of``)."""

    @property
    def result_sha256(self) -> str:
        return hashlib.sha256(self.result).hexdigest()

    @property
    def timings_sha256(self) -> str:
        return hashlib.sha256(self.timings).hexdigest()

    @property
    def scores_sha256(self) -> str:
        return hashlib.sha256(self.scores).hexdigest()


def run_files(run_bytes: bytes, *, source: str = "<bytes>") -> RunFiles:
    """The result, timings and scores files of the run file ``run_bytes``.

    ResultFileError when the bytes are not a run file with provenance."""
    try:
        run = orjson.loads(run_bytes)
    except orjson.JSONDecodeError as exc:
        raise ResultFileError(f"{source}: not JSON ({exc})") from None
    result, timings = split(run, source=source)
    result_bytes = orjson.dumps(result, option=orjson.OPT_SORT_KEYS)
    timings["result_sha256"] = hashlib.sha256(result_bytes).hexdigest()
    return RunFiles(
        result=result_bytes,
        timings=canonical_bytes(timings, what="the timings file"),
        scores=scores_of(result_bytes),
    )


def split(run: Any, *, source: str = "<bytes>") -> tuple[dict[str, Any], dict[str, Any]]:
    """The result file and the timings file (without its ``result_sha256``) of a parsed run
    file. The run file is left as it was."""
    if not isinstance(run, dict) or run.get("schema") != RESULT_SCHEMA:
        found = run.get("schema") if isinstance(run, dict) else type(run).__name__
        raise ResultFileError(f"{source}: schema is {found!r}, not a run file ({RESULT_SCHEMA})")
    try:
        provenance = run["provenance"]
        traces = run["traces"]
        result = {key: value for key, value in run.items() if key not in ("started", "finished")}
        result["schema"] = PUBLISHED_RESULT_SCHEMA
        result["provenance"] = {k: v for k, v in provenance.items() if k != "environment"}
        columns: dict[str, list[Any]] = {name: [] for name in TRACE_TIMINGS}
        columns["engine_timings_ms"] = []
        kept_traces = []
        for trace in traces:
            for name in TRACE_TIMINGS:
                columns[name].append(trace[name])
            declared = dict(trace["declared"])
            columns["engine_timings_ms"].append(declared.pop("engine_timings_ms", None))
            kept = {k: v for k, v in trace.items() if k not in TRACE_TIMINGS}
            kept["declared"] = declared
            kept_traces.append(kept)
        result["traces"] = kept_traces
        result["values"] = [v for v in run["values"] if not is_timing_value(v)]
        timings = {
            "schema": TIMINGS_SCHEMA,
            "started": run["started"],
            "finished": run["finished"],
            "environment": provenance["environment"],
            "traces": columns,
            "values": [v for v in run["values"] if is_timing_value(v)],
        }
    except (KeyError, TypeError, AttributeError) as exc:
        raise ResultFileError(f"{source}: not a run file with provenance ({exc!r})") from None
    return result, timings


def join(result: Any, timings: Any, *, source: str = "<bytes>") -> dict[str, Any]:
    """The run file a result file and its timings file were split from: each trace gets its
    clock fields back by position, and the timings' values follow the result's values."""
    try:
        if result["schema"] != PUBLISHED_RESULT_SCHEMA or timings["schema"] != TIMINGS_SCHEMA:
            raise TypeError("schemas are not a result file's and a timings file's")
        columns = timings["traces"]
        count = len(result["traces"])
        if any(len(columns[name]) != count for name in (*TRACE_TIMINGS, "engine_timings_ms")):
            raise TypeError(f"the timings do not hold one entry per trace ({count})")
        traces = []
        for index, trace in enumerate(result["traces"]):
            joined = {**trace, **{name: columns[name][index] for name in TRACE_TIMINGS}}
            joined["declared"] = {
                **trace["declared"],
                "engine_timings_ms": columns["engine_timings_ms"][index],
            }
            traces.append(joined)
        provenance = {**result["provenance"], "environment": timings["environment"]}
        return {
            **result,
            "schema": RESULT_SCHEMA,
            "started": timings["started"],
            "finished": timings["finished"],
            "provenance": provenance,
            "traces": traces,
            "values": [*result["values"], *timings["values"]],
        }
    except (KeyError, TypeError, AttributeError) as exc:
        raise ResultFileError(
            f"{source}: the result and timings files do not join into a run file ({exc})"
        ) from None
