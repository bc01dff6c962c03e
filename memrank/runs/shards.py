"""Shards: one evaluation cut into N parts by isolation unit, so N machines can run it at once.

A shard is named ``I/N`` (1-based). The partition is a pure function of the evaluation's units
in their order: units are taken largest first (most tasks; ties in evaluation order) and each
goes to the shard holding the fewest tasks so far (ties to the lower index). A unit is never
split, because its tasks share what the system was told. A shard's tasks keep evaluation order.

A shard is recorded in the result as a slice named ``shard I/N`` (``SLICE, shard I/N`` for a
shard of a slice), so everything that holds for a slice holds for it: it is never publishable
and pairs only with the same shard. ``memrank merge`` (memrank.runs.merge) puts the shards back
together into the run made in one piece.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memrank.errors import UsageError
from memrank.evaluation import Evaluation

__all__ = ["Shard", "parse_shard", "partition", "shard_of", "shard_in_slice", "whole_slice"]

_SHARD = re.compile(r"^([1-9][0-9]*)/([1-9][0-9]*)$")
_IN_SLICE = re.compile(r"^(?:(?P<slice>.+), )?shard (?P<index>[1-9][0-9]*)/(?P<count>[1-9][0-9]*)$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str, *, option: str = "--shard") -> Shard:
    """``I/N`` as a Shard; a one-line UsageError naming ``option`` otherwise."""
    match = _SHARD.match(text.strip())
    if match is None:
        raise UsageError(f"{option} {text!r}: give I/N with 1 <= I <= N, e.g. {option} 2/3")
    shard = Shard(int(match[1]), int(match[2]))
    if shard.index > shard.count:
        raise UsageError(f"{option} {text!r}: I is above N; shards are numbered 1 to {shard.count}")
    return shard


def partition(unit_sizes: list[int], count: int) -> list[list[int]]:
    """Unit positions per shard (each list in evaluation order), balanced by task count."""
    order = sorted(range(len(unit_sizes)), key=lambda position: (-unit_sizes[position], position))
    loads = [0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    for position in order:
        lightest = min(range(count), key=lambda shard: (loads[shard], shard))
        loads[lightest] += unit_sizes[position]
        members[lightest].append(position)
    return [sorted(positions) for positions in members]


def shard_of(evaluation: Evaluation, shard: Shard) -> Evaluation:
    """The part of ``evaluation`` that shard ``shard`` runs, recorded as a slice."""
    units = list(evaluation.units())
    if shard.count > len(units):
        raise UsageError(
            f"--shard {shard}: {evaluation.name} has {len(units)} isolation unit(s) and a unit is "
            f"never split; use at most {len(units)} shards"
        )
    mine = partition([len(unit.tasks) for unit in units], shard.count)[shard.index - 1]
    kept = {task.id for position in mine for task in units[position].tasks}
    return evaluation.model_copy(
        update={
            "tasks": tuple(task for task in evaluation.tasks if task.id in kept),
            "slice": shard_in_slice(evaluation.slice, shard),
            # the whole evaluation's material, so every shard (and the merge) names the same bundle
            "dataset": evaluation.dataset_bundle(),
        }
    )


def shard_in_slice(slice_name: str | None, shard: Shard) -> str:
    """The slice name a shard is recorded under."""
    return f"{slice_name}, shard {shard}" if slice_name else f"shard {shard}"


def whole_slice(recorded: str | None) -> tuple[str | None, Shard] | None:
    """For a shard's recorded slice, the slice it is a shard of (None: the full evaluation)
    and which shard it is; None when ``recorded`` does not name a shard."""
    match = _IN_SLICE.match(recorded or "")
    if match is None:
        return None
    return match["slice"], Shard(int(match["index"]), int(match["count"]))
