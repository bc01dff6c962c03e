"""``--retry-failed RUN``: run only the failed tasks of a finished run again, into a new result
that is complete: the run's own traces and values for every task that did not fail, the new
ones for each task that did, and every measure that spans tasks applied again to the whole."""

from __future__ import annotations

from collections.abc import Sequence

from memrank._apply import apply_keeping
from memrank.errors import RefusedRun, UsageError
from memrank.evaluation import Evaluation
from memrank.integrity.verdict import rejudged
from memrank.measure import Measure
from memrank.result import Result
from memrank.runs.registry import RESULT, RunRecord, RunState, run_folder

__all__ = ["earlier_result", "failed_part", "retried"]


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
