"""The answer and judge options of `memrank run`, and the stage they configure.

A judge is named by ``--judge`` or the ``MEMRANK_JUDGE`` environment variable; ``--no-judge``
turns it off. ``--answer-model`` and ``--seed`` default to ``MEMRANK_ANSWER_MODEL`` and
``MEMRANK_SEED`` (so a sweep's shards and its merge are configured alike). The protocol defaults
by evaluation (locomo: mem0, longmemeval: longmemeval, memorycode: memorycode, mem-gallery:
mem-gallery).
The answer stage runs when a judge is configured, or ``--answer-model`` or ``--protocol`` is
given. An evaluation whose quality metric is the judge's (locomo, longmemeval, beam) run
without one says so in its result, with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

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
    "answer_options",
    "check_judged",
    "judge_spec",
    "plan",
    "seed_option",
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

    judge: str | None
    no_judge: bool
    protocol: str | None
    answer_model: str | None
    token_budget: int | None
    passes: int
    seed: int | None
    no_cache: bool


seed_option = click.option(
    "--seed",
    type=int,
    envvar=SEED_VARIABLE,
    help="Seed for every answer and judge call: sent where the API takes one (OpenAI and "
    f"compatible endpoints; not Anthropic's), recorded always (default: ${SEED_VARIABLE}).",
)


def answer_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the answer and judge option block to a command."""
    options = [
        click.option(
            "--judge",
            metavar="PROVIDER:MODEL",
            help="Judge answers with this model: openai:MODEL, anthropic:MODEL or "
            f"openai-compatible:URL:MODEL (default: ${JUDGE_VARIABLE} when set).",
        ),
        click.option(
            "--no-judge", is_flag=True, help="Do not judge, even when a judge is configured."
        ),
        click.option(
            "--protocol",
            metavar="NAME",
            help="Answer protocol: mem0, locomo, longmemeval, aml, memorycode, mem-gallery "
            "(default by evaluation).",
        ),
        click.option(
            "--answer-model",
            metavar="PROVIDER:MODEL",
            envvar=ANSWER_MODEL_VARIABLE,
            help="The model that answers from recalled documents (default: "
            f"${ANSWER_MODEL_VARIABLE} when set, else the protocol's).",
        ),
        click.option(
            "--token-budget",
            type=click.IntRange(min=1),
            help="Context budget in o200k_base tokens for the answer model (default: the "
            "evaluation's o200k budget when it declares one, else 5000).",
        ),
        click.option(
            "--passes",
            default=1,
            show_default=True,
            type=click.IntRange(min=1),
            help="Judge passes per answer; above 1 the spread over passes is reported.",
        ),
        seed_option,
        click.option(
            "--no-cache", is_flag=True, help="Do not read or write the model response cache."
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def judge_spec(given: str | None, no_judge: bool) -> str | None:
    """The judge in force: none with --no-judge, else --judge, else $MEMRANK_JUDGE."""
    if no_judge:
        if given:
            raise UsageError("--judge and --no-judge contradict each other; give one")
        return None
    return given or os.environ.get(JUDGE_VARIABLE) or None


def plan(
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


def check_judged(measures: Sequence[Measure]) -> None:
    """Raise JudgeFailed when a judge among ``measures`` was asked and failed every call."""
    from memrank.answer import Judge

    for judge in (m for m in measures if isinstance(m, Judge)):
        account = judge.account
        if account.failures and not account.calls:
            raise JudgeFailed(
                f"the judge {judge.judge.spec} failed all {account.failures} call(s), so nothing "
                f"was judged; first failure: {account.first_failure}"
            )
