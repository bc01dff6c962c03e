"""Results put back together: N results of ``memrank run --shard I/N`` into the run made in one
piece, and a finished run with its failed tasks run again (``--retry-failed RUN``).

The merge refuses anything that is not exactly the N shards of one run: each must be a shard
(``shard I/N`` in its slice), unrefused, of one system (same record, components included), one
evaluation (name, version, k, clearing, track, slice), one pipeline (code hash and install) and
one dataset bundle, measured with the same measures; every index 1..N present once; each
shard holding exactly the tasks the partition gives it. Then the traces are laid out in
evaluation order; each task's values are the ones its shard measured (so a judge is never asked
twice), and every measure that spans tasks (means, latency, failure rate) is applied again to
the whole, as ``memrank.run`` does, so the merged result equals a run made on one machine value
for value and trace for trace; only timings (and the latency values read from them) differ, as
they do between any two runs.

A retry runs only the failed tasks of a finished run again, into a new result that is
complete: the run's own traces and values for every task that did not fail, the new ones for
each task that did, and every measure that spans tasks applied again to the whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from memrank._apply import apply_keeping, measures_of
from memrank._drive import UnitOutcome, clearing_record
from memrank.errors import MergeRefused, RefusedRun, UsageError
from memrank.evaluation import Evaluation
from memrank.integrity.verdict import rejudged
from memrank.measure import Measure
from memrank.result import ClearingRecord, EvaluationRecord, Result
from memrank.runs.registry import RESULT, RunRecord, RunState, run_folder
from memrank.runs.shards import Shard, partition, whole_slice

__all__ = ["earlier_result", "failed_part", "merge", "retried", "whole_evaluation_name"]


def whole_evaluation_name(shards: Sequence[Result], sources: Sequence[str]) -> str:
    """The catalog name of the evaluation the shards cut (``name`` or ``name:slice``)."""
    first = _shard_of(shards[0], sources[0])
    whole, _ = first
    name = shards[0].evaluation.name
    return f"{name}:{whole}" if whole else name


def merge(
    shards: Sequence[Result],
    evaluation: Evaluation,
    sources: Sequence[str],
    measures: Sequence[Measure] | None = None,
) -> Result:
    """The one result the ``shards`` of ``evaluation`` make; ``sources`` names each for errors.

    ``measures`` are those the shards' runs applied (``memrank._apply.measures_of``: the
    evaluation's, an answer stage's, memrank's bookkeeping); by default the evaluation's own.
    """
    if not shards:
        raise MergeRefused("no shards given; name the N result files of one sharded run")
    placed = _placed(shards, sources)
    first = shards[0]
    for result, source in zip(shards[1:], sources[1:], strict=True):
        _same_run(first, sources[0], result, source)
    if first.evaluation.version != evaluation.version:
        raise MergeRefused(
            f"{sources[0]}: the shards are of {first.evaluation.version}, the evaluation here is "
            f"{evaluation.version}; merge with the memrank and data that ran them"
        )
    units = list(evaluation.units())
    expected = partition([len(unit.tasks) for unit in units], len(shards))
    for (result, source), positions in zip(placed, expected, strict=True):
        wanted = [task.id for position in positions for task in units[position].tasks]
        got = [trace.task.id for trace in result.traces]
        if sorted(got) != sorted(wanted):
            raise MergeRefused(
                f"{source}: holds {len(got)} task(s), not the {len(wanted)} its shard of "
                f"{evaluation.name} is made of; was it run on other data or another evaluation?"
            )
    order = {task.id: position for position, task in enumerate(evaluation.tasks)}
    traces = sorted(
        (trace for result, _ in placed for trace in result.traces),
        key=lambda trace: order[trace.task.id],
    )
    measures = tuple(measures) if measures is not None else measures_of(evaluation, None)
    if tuple(m.name for m in measures) != first.evaluation.measures:
        raise MergeRefused(
            f"{sources[0]}: the shards applied {', '.join(first.evaluation.measures)}; merge "
            "with the options they ran with (an answer stage or judge adds measures)"
        )
    kept = [value for result, _ in placed for value in result.values if value.task_id]
    provenance = first.provenance
    if provenance is not None:
        provenance = provenance.model_copy(update={"dataset_bundle": evaluation.dataset_bundle()})
    return Result(
        system=first.system,
        evaluation=EvaluationRecord.of(evaluation, measures),
        clearing=_clearing([result.clearing for result, _ in placed], len(units), evaluation),
        traces=tuple(traces),
        values=tuple(apply_keeping(measures, traces, kept)),
        started=min(result.started for result in shards),
        finished=max(result.finished for result in shards),
        provenance=provenance,
    )


def earlier_result(record: RunRecord) -> Result:
    """The result of finished run ``record``, which must have failed tasks to retry."""
    path = run_folder(record.id) / RESULT
    if record.state is not RunState.DONE or not path.is_file():
        raise UsageError(
            f"--retry-failed {record.id}: the run is {record.state.value}, not done; resume it "
            "instead (`memrank runs show` prints how)"
        )
    result = Result.load(path)
    if not result.failed:
        raise UsageError(f"--retry-failed {record.id}: no task of it failed; nothing to retry")
    return result


def failed_part(evaluation: Evaluation, earlier: Result) -> Evaluation:
    """Only the tasks that failed in ``earlier``, in evaluation order (not a slice: the result
    made from it is complete)."""
    if earlier.evaluation.version != evaluation.version:
        raise UsageError(
            f"--retry-failed: the run was of {earlier.evaluation.version}, the evaluation is now "
            f"{evaluation.version}; start a new run"
        )
    failed = {trace.task.id for trace in earlier.failed}
    return evaluation.model_copy(
        update={"tasks": tuple(task for task in evaluation.tasks if task.id in failed)}
    )


def retried(earlier: Result, fresh: Result, measures: Sequence[Measure]) -> Result:
    """``earlier`` with the traces and task values of ``fresh`` in place of its failed ones
    (an endpoint run's integrity verdict read again over the whole)."""
    if fresh.refusal is not None:
        raise RefusedRun(fresh.refusal)
    if tuple(m.name for m in measures) != earlier.evaluation.measures:
        raise UsageError(
            f"--retry-failed: the run applied {', '.join(earlier.evaluation.measures)}; retry "
            "it with the answer and judge options it ran with"
        )
    again = {trace.task.id: trace for trace in fresh.traces}
    traces = [again.get(trace.task.id, trace) for trace in earlier.traces]
    kept = [v for v in earlier.values if v.task_id is not None and v.task_id not in again]
    kept += [v for v in fresh.values if v.task_id is not None]
    merged = earlier.model_copy(
        update={
            "traces": tuple(traces),
            "values": tuple(apply_keeping(measures, traces, kept)),
            "finished": fresh.finished,
        }
    )
    # an endpoint run's verdict is read again over what now stands, against its own canaries
    return rejudged(merged)


def _shard_of(result: Result, source: str) -> tuple[str | None, Shard]:
    found = whole_slice(result.evaluation.slice)
    if found is None:
        kind = f"the slice {result.evaluation.slice!r}" if result.evaluation.slice else "in full"
        raise MergeRefused(
            f"{source}: a run of {result.evaluation.name} {kind}, not a shard; merge only the "
            "results of `memrank run ... --shard I/N`"
        )
    if result.refusal is not None:
        raise MergeRefused(
            f"{source}: the run was refused ({result.refusal}); run that shard again"
        )
    return found


def _placed(shards: Sequence[Result], sources: Sequence[str]) -> list[tuple[Result, str]]:
    """The shards in index order, refusing a count that differs, a repeat or a gap."""
    by_index: dict[int, tuple[Result, str]] = {}
    count = None
    for result, source in zip(shards, sources, strict=True):
        _, shard = _shard_of(result, source)
        if count is not None and shard.count != count:
            raise MergeRefused(
                f"{source}: shard {shard} of a run cut in {shard.count}, the others in {count}; "
                "merge the shards of one sharded run"
            )
        count = shard.count
        if shard.index in by_index:
            raise MergeRefused(
                f"{source}: shard {shard} is given twice (also {by_index[shard.index][1]}); "
                "give each shard once"
            )
        by_index[shard.index] = (result, source)
    assert count is not None
    missing = [str(index) for index in range(1, count + 1) if index not in by_index]
    if missing:
        raise MergeRefused(
            f"shard(s) {', '.join(missing)} of {count} missing; a merge needs every shard"
        )
    return [by_index[index] for index in range(1, count + 1)]


def _same_run(first: Result, first_source: str, other: Result, source: str) -> None:
    """Refuse a shard that is not of the same system, evaluation, pipeline and material."""
    checks = [
        ("system", first.system, other.system),
        (
            "evaluation",
            _evaluation_identity(first.evaluation),
            _evaluation_identity(other.evaluation),
        ),
        (
            "pipeline",
            first.provenance and first.provenance.pipeline.code_sha256,
            other.provenance and other.provenance.pipeline.code_sha256,
        ),
        (
            "install",
            first.provenance and first.provenance.pipeline.install,
            other.provenance and other.provenance.pipeline.install,
        ),
        (
            "dataset bundle",
            first.provenance and first.provenance.dataset_bundle.sha256,
            other.provenance and other.provenance.dataset_bundle.sha256,
        ),
    ]
    for what, mine, theirs in checks:
        if mine != theirs:
            raise MergeRefused(
                f"{source}: its {what} differs from {first_source}'s; shards merge only when "
                "one system, evaluation, pipeline and dataset bundle ran them all"
            )


def _evaluation_identity(record: EvaluationRecord) -> tuple[object, ...]:
    whole = whole_slice(record.slice)
    return (
        record.name,
        record.version,
        record.k,
        record.clearing,
        record.track,
        record.measures,
        whole[0] if whole else record.slice,
    )


def _clearing(
    records: list[ClearingRecord | None], units: int, evaluation: Evaluation
) -> ClearingRecord | None:
    """The shards' clearing records as one, read as the single run reads its units' cleanups."""
    present = [record for record in records if record is not None]
    if not present:
        return None
    if all(record.observed is None for record in present):
        return present[0].model_copy(update={"units": units})  # the same reason in every shard
    outcomes = [
        UnitOutcome([], record.observed, record.why if record.observed is False else None)
        for record in present
    ]
    return clearing_record(evaluation, units, outcomes)
