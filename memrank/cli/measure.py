"""memrank measure: judge a stored run again, without touching the system that made it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memrank.cli._answer import JUDGE_VARIABLE, judge_spec
from memrank.errors import UsageError

if TYPE_CHECKING:
    from memrank.result import Result

__all__ = ["measure_command"]


@click.command("measure")
@click.argument("result_path", metavar="RESULT", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--judge",
    metavar="PROVIDER:MODEL",
    help="The judge: openai:MODEL, anthropic:MODEL or openai-compatible:URL:MODEL "
    f"(default: ${JUDGE_VARIABLE}).",
)
@click.option(
    "--protocol",
    metavar="NAME",
    help="Answer protocol (default: the one the stored answers were made under).",
)
@click.option(
    "--passes",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Judge passes per answer; above 1 the spread over passes is reported.",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the model response cache.")
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the re-judged result file here.",
)
def measure_command(
    result_path: Path,
    judge: str | None,
    protocol: str | None,
    passes: int,
    no_cache: bool,
    save_path: Path | None,
) -> None:
    """Judge the answers of the stored run RESULT (a result file) and print it.

    Values of the same judge and protocol already in the file are replaced; the system is
    never called. With a warm response cache, re-judging with the same judge makes no calls.
    Exits 4 when RESULT cannot be read, 3 when it holds no answers to judge.
    """
    from memrank.answer import answer_measures, spent
    from memrank.answer import protocol as protocol_named
    from memrank.answer.stage import categories_of
    from memrank.result import Result
    from memrank.run import measure
    from memrank.systems.models import ResponseCache, model_from_spec

    spec = judge_spec(judge, no_judge=False)
    if spec is None:
        raise UsageError(f"no judge: give --judge PROVIDER:MODEL or set {JUDGE_VARIABLE}")
    result = Result.load(result_path)
    chosen = protocol_named(protocol or _protocol_of(result, result_path))
    if chosen.judge is None:
        raise UsageError(f"protocol {chosen.id} is decided by a rule and has no judge")
    model = model_from_spec(spec, cache=None if no_cache else ResponseCache())
    measures = answer_measures(
        chosen, categories_of([t.task for t in result.traces]), model, passes, rules=False
    )
    replaced = {name for m in measures for name in m.names()}
    kept = tuple(v for v in result.values if v.measure not in replaced)
    judged = measure(result.model_copy(update={"values": kept}), *measures)
    click.echo(str(judged))
    click.echo(spent((), judged.values))
    if save_path is not None:
        judged.save(save_path)
        click.echo(f"saved:      {save_path}")


def _protocol_of(result: Result, path: Path) -> str:
    for trace in result.traces:
        if trace.answered is not None and trace.answered.answering is not None:
            return trace.answered.answering.protocol
    raise UsageError(
        f"{path}: no answer in it was made by memrank's answer stage, so its protocol is not "
        "recorded; give --protocol"
    )
