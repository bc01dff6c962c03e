"""What a result records of an endpoint run's integrity: the secret, the canaries, the verdict."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from memrank._basics import FROZEN
from memrank.measure import Value
from memrank.trace import Trace

__all__ = ["VERDICT", "CanaryTest", "ForeignCount", "IntegrityRecord"]

VERDICT = "integrity-suspect"
"""The run-scope value that states the verdict where the board and the verifier read it (the
signed summary): 1 suspect, 0 clean."""


class CanaryTest(BaseModel):
    """The one-sided comparison of benchmark and canary recall (memrank.integrity.verdict)."""

    model_config = FROZEN
    measure: str
    """The value name compared."""
    benchmark_tasks: int
    canary_tasks: int
    benchmark_mean: float | None
    canary_mean: float | None
    margin: float
    """How far benchmark recall may exceed canary recall before it counts as evidence."""
    level: float
    """Suspect below this p-value."""
    clusters: int = 0
    """Units holding both benchmark and canary values."""
    statistic: float | None = None
    p_value: float | None = None
    """One-sided: the chance of a gap this large from a run whose true gap is the margin."""
    why: str


class ForeignCount(BaseModel):
    """Recalled documents never told to the unit they were recalled for."""

    model_config = FROZEN
    documents: int
    """Foreign documents over every task, benchmark and canary."""
    tasks: int
    """Tasks with at least one."""
    recalled: int
    """Documents recalled in all, for scale."""


class IntegrityRecord(BaseModel):
    """The integrity of an endpoint run: what was planted, what was found, and the verdict."""

    model_config = FROZEN
    secret: str
    """The run's secret, hex: every opaque name sent and every canary derive from it
    (memrank.integrity.names, memrank.integrity.canaries), revealed only now the run is over."""
    verdict: Literal["clean", "suspect"]
    reasons: tuple[str, ...] = ()
    """Why the run is suspect; empty when clean."""
    test: CanaryTest | None
    """None when the evaluation has no measure that scores canaries."""
    foreign: ForeignCount
    traces: tuple[Trace, ...] = ()
    """The canary tasks' traces, apart from the benchmark's."""
    values: tuple[Value, ...] = ()
    """The canary tasks' values, by the evaluation's own measures; in no benchmark value."""

    def summary(self) -> dict[str, object]:
        """The verdict and its evidence as JSON, without the canary traces and values."""
        return self.model_dump(mode="json", exclude={"traces", "values", "secret"})

    @property
    def line(self) -> str:
        """The verdict in one line: ``integrity: clean`` or ``integrity: suspect — <reason>``."""
        if self.verdict == "clean":
            return "integrity: clean"
        return "integrity: suspect — " + "; ".join(self.reasons)
