"""memrank measure and memrank view: a stored run judged again, without touching the system that
made it, or shown as a local static page."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memrank.cli._answer import no_cache_option, passes_option, seed_option
from memrank.errors import UsageError
from memrank.runs.answering import JUDGE_VARIABLE, judge_failure, judge_spec

if TYPE_CHECKING:
    from memrank.result import Result

__all__ = ["measure_command", "view_command"]


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
@passes_option
@seed_option
@no_cache_option
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
    seed: int | None,
    no_cache: bool,
    save_path: Path | None,
) -> None:
    """Judge the answers of the stored run RESULT (a result file) and print it.

    Values of the same judge, protocol and answer model already in the file are replaced; the
    system is never called. The cost estimate is printed before judging and the real cost
    after. With a warm response cache, re-judging with the same judge makes no calls.
    Exits 4 when RESULT cannot be read, 3 when it holds no answers to judge, 8 when the
    judge failed every call (after printing the result).
    """
    from memrank.answer import AnswerStage, answer_measures, estimate, spent
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
    answered = [t.task for t in result.traces if t.answered is not None]
    stage = AnswerStage(protocol=chosen, model=None, judge=model, passes=passes, seed=seed)
    click.echo(estimate(stage, answered).line())
    measures = answer_measures(
        chosen,
        categories_of([t.task for t in result.traces]),
        model,
        passes,
        answerer=_answerer_of(result, result_path),
        seed=seed,
        rules=False,
    )
    replaced = {name for m in measures for name in m.names()}
    kept = tuple(v for v in result.values if v.measure not in replaced)
    judged = measure(result.model_copy(update={"values": kept}), *measures)
    click.echo(str(judged))
    click.echo(spent((), judged.values))
    if save_path is not None:
        judged.save(save_path)
        click.echo(f"saved:      {save_path}")
    failure = judge_failure(measures)
    if failure is not None:
        raise failure


@click.command("view")
@click.argument("source", metavar="RESULT|RUN_ID")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the pages here (default: beside the result file as RESULT.view/, or the "
    "run's folder of the run registry for a run id).",
)
def view_command(source: str, out: Path | None) -> None:
    """Render any result (unsigned, a development run, a slice) as a local static page with
    the board's theme (the headline, each measure, per category, a page per task with what
    was recalled and every value with its why), and print the page's path."""
    from memrank._files import check_writable
    from memrank.result import Result
    from memrank.runs.registry import RESULT, find, run_folder
    from memrank.view import write_view

    path = Path(source)
    declared = None
    if not path.is_file() and not _looks_like_a_file(source):
        record = find(source)
        path = run_folder(record.id) / RESULT
        if not path.is_file():
            raise UsageError(
                f"run {record.id} is {record.state.value} and has no result yet; resume it "
                "first (`memrank runs show` prints how)"
            )
        declared = record.headline_measure
        out = out or run_folder(record.id) / "view"
    result = Result.load(path)  # exits 4 naming the file when it cannot be read
    out = out or path.with_name(path.name + ".view")
    check_writable(out, option="--out", folder=True)
    index = write_view(result, out, declared)
    click.echo(str(index))


def _protocol_of(result: Result, path: Path) -> str:
    for trace in result.traces:
        if trace.answered is not None and trace.answered.answering is not None:
            return trace.answered.answering.protocol
    raise UsageError(
        f"{path}: no answer in it was made by memrank's answer stage, so its protocol is not "
        "recorded; give --protocol"
    )


def _answerer_of(result: Result, path: Path) -> str:
    """Who answered the stored run: its one answer model, or ``system`` when the system
    answered on its own; value names carry it."""
    from memrank.answer import SYSTEM_ANSWERS

    answered = [t.answered for t in result.traces if t.answered is not None]
    models = {a.answering.model if a.answering else SYSTEM_ANSWERS for a in answered}
    if not models:  # nothing answered: measuring refuses, saying what the run lacks
        return SYSTEM_ANSWERS
    if len(models) > 1:
        raise UsageError(
            f"{path}: its answers come from {len(models)} answerers ({', '.join(sorted(models))}); "
            "a column has one answer model, so judge each run apart"
        )
    return models.pop()


def _looks_like_a_file(source: str) -> bool:
    return "/" in source or source.endswith(".json")
