"""Whether a run's numbers lie where their measures say they lie: finite, 0 or 1 for a
binary-declared name, within [0, 1] for a share, and within the range the measures declare for
the name (``memrank.measures.kinds``), else within ``MAGNITUDE_LIMIT``.

The checks of a statement and a scores file (``_semantic``) and of a result file's values at
verification (``_subjects``: a group's value, such as a ``demo-score``, is in no other file)
share them, so one range is held everywhere.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from memrank.errors import ShareInconsistent, ValueNotBinary, ValueNotFinite, ValueOutOfRange
from memrank.measures import kinds

__all__ = ["MAGNITUDE_LIMIT", "UNIT", "check_group_values", "check_numbers", "declared_range"]

MAGNITUDE_LIMIT = 1e12
"""No value is larger in magnitude: the mean of 200,000 of them stays exact enough, and a sum
of squares never overflows a double."""
UNIT = (0.0, 1.0)
"""A share's range."""
_ZERO_OR_ONE = frozenset({0.0, 1.0})


@functools.lru_cache(maxsize=4096)
def declared_range(name: str) -> tuple[float, float]:
    """The closed range the value name ``name`` is declared to hold: the measures' own, its
    open ends (and an undeclared name's) at ``MAGNITUDE_LIMIT``."""
    low, high = kinds.declared_range(name)
    return (
        -MAGNITUDE_LIMIT if low is None else low,
        MAGNITUDE_LIMIT if high is None else high,
    )


def check_numbers(
    where: str,
    name: str,
    values: Sequence[float | None],
    binary: frozenset[str],
    *,
    share: bool,
) -> None:
    """The values of the value name ``name`` (None where undecided), whole: each distinct
    value is checked once, and a refusal names the first value, in order, that fails."""
    distinct = set(values)
    distinct.discard(None)
    if not distinct:
        return
    numbers = np.fromiter(distinct, dtype=np.float64, count=len(distinct))
    lowest, highest = float(numbers.min()), float(numbers.max())  # NaN, if any, wins both
    if not (math.isfinite(lowest) and math.isfinite(highest)):
        raise ValueNotFinite(
            f"{where} holds {_first(values, lambda v: not math.isfinite(v))}; a value is a "
            "finite number, or null with a reason"
        )
    if name in binary and not distinct <= _ZERO_OR_ONE:
        raise ValueNotBinary(
            f"{where} is declared binary but holds {_first(values, lambda v: v not in (0, 1))}; "
            "a binary measure's values are 0 or 1"
        )
    low, high = UNIT if share else declared_range(name)
    if lowest < low or highest > high:
        kind = ShareInconsistent if share else ValueOutOfRange
        raise kind(
            f"{where} holds {_first(values, lambda v: not low <= v <= high)}, outside its "
            f"declared range [{low:g}, {high:g}]"
        )


def _first(values: Sequence[float | None], fails: Callable[[float], bool]) -> str:
    """The first of ``values`` (None aside) that ``fails``, as the refusal names it."""
    return repr(float(next(v for v in values if v is not None and fails(v))))


def check_group_values(values: Iterable[Any], where: str) -> None:
    """The group-scope values of a result file's ``values`` (parsed JSON), each a number within
    its name's declared range (a share's within [0, 1]) or null: the scores file holds the
    task values and the statement the run's, each checked there."""
    by_name: dict[tuple[str, bool], list[float | None]] = defaultdict(list)
    for value in values:
        if not isinstance(value, dict) or value.get("group") is None or value.get("task_id"):
            continue
        name, number = str(value.get("measure")), value.get("value")
        if number is not None and (isinstance(number, bool) or not isinstance(number, int | float)):
            raise ValueNotFinite(
                f"{where}: {name!r} holds {number!r}; a value is a finite number, or null with "
                "a reason"
            )
        by_name[name, value.get("count") is not None].append(number)
    for (name, share), numbers in by_name.items():
        check_numbers(f"{where}: {name!r}", name, numbers, frozenset(), share=share)
