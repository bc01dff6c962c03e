"""The answer stage of a run, from the answer and judge options as given.

A judge is named by ``--judge`` or the ``MEMRANK_JUDGE`` environment variable; ``--no-judge``
turns it off. The protocol defaults by evaluation (locomo: mem0, longmemeval: longmemeval,
memorycode: memorycode, mem-gallery: mem-gallery). The answer stage runs when a judge is
configured, or an answer model or a protocol is given. An evaluation whose quality metric is
the judge's (locomo, longmemeval, beam) run without one says so in its result, with the reason.
The command line's options are in memrank.cli._answer; what they configure is decided here,
below it, so a tracked run builds its stage itself.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memrank.errors import JudgeFailed, UsageError

if TYPE_CHECKING:
    from memrank.answer import AnswerStage
    from memrank.evaluation import Evaluation
    from memrank.measure import Measure

__all__ = [
    "ANSWER_MODEL_VARIABLE",
    "JUDGE_VARIABLE",
    "SEED_VARIABLE",
    "AnswerOptions",
    "answer_plan",
    "judge_failure",
    "judge_spec",
]

JUDGE_VARIABLE = "MEMRANK_JUDGE"
ANSWER_MODEL_VARIABLE = "MEMRANK_ANSWER_MODEL"
SEED_VARIABLE = "MEMRANK_SEED"
_DEFAULT_PROTOCOL = {
    "locomo": "mem0",
    "longmemeval": "longmemeval",
    "memorycode": "memorycode",
    "mem-gallery": "mem-gallery",
}
_JUDGED_BY_DEFAULT = ("locomo", "longmemeval", "beam")


@dataclass(frozen=True)
class AnswerOptions:
    """The answer and judge options as given on the command line."""

    judge: str | None = None
    """``--judge PROVIDER:MODEL``; None: ``$MEMRANK_JUDGE`` when set."""
    no_judge: bool = False
    """``--no-judge``: no judge, even one configured."""
    protocol: str | None = None
    """``--protocol NAME``; None: the evaluation's default."""
    answer_model: str | None = None
    """``--answer-model PROVIDER:MODEL``; None: the protocol's."""
    token_budget: int | None = None
    """``--token-budget N`` (o200k_base tokens); None: the evaluation's, else the default."""
    passes: int = 1
    """Judge passes per answer."""
    seed: int | None = None
    """Sent with every answer and judge call where the API takes one."""
    no_cache: bool = False
    """Neither read nor write the model response cache."""


def judge_spec(given: str | None, no_judge: bool) -> str | None:
    """The judge in force: none with --no-judge, else --judge, else $MEMRANK_JUDGE."""
    if no_judge:
        if given:
            raise UsageError("--judge and --no-judge contradict each other; give one")
        return None
    return given or os.environ.get(JUDGE_VARIABLE) or None


def answer_plan(
    options: AnswerOptions, evaluation: Evaluation, system_kind: str
) -> tuple[AnswerStage | None, Evaluation]:
    """The answer stage to run (or None) and the evaluation, marked "not judged" when its
    quality metric is the judge's and no judge will decide."""
    from memrank.answer import NotJudged

    judge = judge_spec(options.judge, options.no_judge)
    name = options.protocol or _DEFAULT_PROTOCOL.get(evaluation.name)
    wanted = judge is not None or options.answer_model or options.protocol
    stage = None
    if wanted:
        if name is None:
            raise UsageError(
                f"evaluation {evaluation.name!r} has no default answer protocol; give --protocol "
                "(mem0, locomo, longmemeval, aml, memorycode, mem-gallery)"
            )
        from memrank.answer import AnswerStage, protocol
        from memrank.systems.models import ResponseCache, model_from_spec

        chosen = protocol(name)
        cache = None if options.no_cache else ResponseCache()
        answers_itself = system_kind in ("model", "assistant")
        stage = AnswerStage(
            protocol=chosen,
            model=None
            if answers_itself
            else model_from_spec(options.answer_model or chosen.answer_model, cache=cache),
            budget_tokens=_budget_tokens(options, evaluation),
            judge=model_from_spec(judge, cache=cache) if judge and chosen.judge else None,
            passes=options.passes,
            seed=options.seed,
        )
    if evaluation.name in _JUDGED_BY_DEFAULT and (stage is None or stage.judge is None):
        reason = _not_judged(options, stage)
        evaluation = evaluation.model_copy(
            update={"measures": (*evaluation.measures, NotJudged(reason))}
        )
    return stage, evaluation


def _budget_tokens(options: AnswerOptions, evaluation: Evaluation) -> int:
    """--token-budget, else the evaluation's own o200k budget, else the default."""
    from memrank.answer import DEFAULT_BUDGET_TOKENS

    if options.token_budget is not None:
        return options.token_budget
    declared = evaluation.budget
    if declared is not None and declared.tokenizer == "o200k" and declared.limit is not None:
        return declared.limit
    return DEFAULT_BUDGET_TOKENS


def _not_judged(options: AnswerOptions, stage: AnswerStage | None) -> str:
    if stage is not None and stage.protocol.judge is None:
        return f"protocol {stage.protocol.id} is decided by a rule, not a judge"
    if options.no_judge:
        return "--no-judge was given; quality here is the retrieval measures only"
    return (
        f"no judge configured (give --judge or set {JUDGE_VARIABLE}); quality here is "
        "the retrieval measures only"
    )


def judge_failure(measures: Sequence[Measure]) -> JudgeFailed | None:
    """The error to exit with when a judge among ``measures`` was asked and failed every call."""
    from memrank.answer import Judge

    for judge in (m for m in measures if isinstance(m, Judge)):
        account = judge.account
        if account.failures and not account.calls:
            return JudgeFailed(
                f"the judge {judge.judge.spec} failed all {account.failures} call(s), so nothing "
                f"was judged; first failure: {account.first_failure}"
            )
    return None
