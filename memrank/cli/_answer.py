"""The answer and judge options of `memrank run` (and `merge`, `measure`): click's side only.

What they configure, the answer stage, is decided below the command line, in
memrank.runs.answering (the judge in force, the protocol by evaluation, "not judged" marks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from memrank.runs.answering import ANSWER_MODEL_VARIABLE, JUDGE_VARIABLE, SEED_VARIABLE

__all__ = ["answer_options", "no_cache_option", "passes_option", "seed_option"]

passes_option = click.option(
    "--passes",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Judge passes per answer; above 1 the spread over passes is reported.",
)
no_cache_option = click.option(
    "--no-cache", is_flag=True, help="Do not read or write the model response cache."
)
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
        passes_option,
        seed_option,
        no_cache_option,
    ]
    for option in reversed(options):
        command = option(command)
    return command
