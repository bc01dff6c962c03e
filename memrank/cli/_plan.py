"""From `memrank run`'s options to the run they ask for, shared by a single run and a run set.

The options given (not defaulted) are kept as command-line words, so a resume repeats them;
``--resume`` alone fills every option not given now from the stopped run's record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from memrank.runs.answering import AnswerOptions
from memrank.runs.request import Request, evaluation_argument

__all__ = ["answering_of", "request_of", "with_earlier_options"]

_NOT_REPEATED = frozenset({"resume", "run_id", "as_json", "every_value", "progress"})
"""Options a resume does not repeat: which run, and how its output is shown."""

_FILLED = "memrank.filled"
"""Where the context keeps the names of the options a resume took from the stopped run."""


def request_of(context: click.Context, given: dict[str, Any]) -> Request:
    """The run ``memrank run`` was asked for, with its options as words for a resume."""
    from memrank.runs.narrow import parse_task_ids
    from memrank.runs.shards import parse_shard

    shard, task_ids = given["shard"], given["task_ids"]
    return Request(
        target=given["system_name"],
        evaluation=evaluation_argument(given["evaluation_name"]),
        options=given["options"],
        concurrency=given["concurrency"],
        save=given["save_path"],
        place=given["place"],
        shard=parse_shard(shard) if shard is not None else None,
        limit=given["limit"],
        task_ids=parse_task_ids(task_ids) if task_ids is not None else None,
        max_failures=given["max_failures"],
        retry_failed=given["retry_failed"],
        arguments=_words(context, given),
    )


def answering_of(given: dict[str, Any]) -> AnswerOptions:
    """The answer and judge options among ``given``."""
    return AnswerOptions(**{name: given[name] for name in AnswerOptions.__dataclass_fields__})


def with_earlier_options(context: click.Context, given: dict[str, Any]) -> dict[str, Any]:
    """On ``--resume``: every option the stopped run was started with that is not given now."""
    from memrank.runs.request import stopped_run

    record = stopped_run(request_of(context, given), given["resume"])
    earlier = context.command.make_context(
        "run", [record.target, record.evaluation, *record.arguments], resilient_parsing=True
    )
    filled = dict(given)
    taken = []
    for name, value in earlier.params.items():
        if (
            name not in _NOT_REPEATED
            and context.get_parameter_source(name) is ParameterSource.DEFAULT
            and earlier.get_parameter_source(name) is not ParameterSource.DEFAULT
        ):
            filled[name] = value
            taken.append(name)
    context.meta[_FILLED] = tuple(taken)
    return filled


def _words(context: click.Context, given: dict[str, Any]) -> tuple[str, ...]:
    """The options given (not defaulted) as command-line words, paths made absolute."""
    words: list[str] = []
    for parameter in context.command.params:
        name = parameter.name
        if (
            not isinstance(parameter, click.Option)
            or name is None
            or name in _NOT_REPEATED
            or given.get(name) is None
            or context.get_parameter_source(name) is ParameterSource.DEFAULT
            and name not in context.meta.get(_FILLED, ())
        ):
            continue
        value, flag = given[name], parameter.opts[0]
        if parameter.is_flag:
            if value:
                words.append(flag)
            elif parameter.secondary_opts:
                words.append(parameter.secondary_opts[0])
        elif parameter.multiple:
            for one in value:
                words += [flag, str(one)]
        else:
            words += [flag, str(value.absolute() if isinstance(value, Path) else value)]
    return tuple(words)
