"""Writing the viewer's pages for one result: ``index.html``, ``tasks/<n>.html``, ``static/``."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memrank._files import write_atomic
from memrank.errors import BoardConfigError
from memrank.measure import Value
from memrank.result import Result
from memrank.runs.summary import headline, measure_rows
from memrank.trace import Trace

if TYPE_CHECKING:
    from jinja2 import Environment

__all__ = ["Category", "write_view"]

TEMPLATES = Path(__file__).parent / "templates"
"""The viewer's own page templates; everything else comes from the board's theme."""
_THEME_STATIC = ("board.css", "favicon.svg")


@dataclass(frozen=True)
class Category:
    """The headline on one category's tasks."""

    name: str
    tasks: int
    decided: int
    mean: float | None


@dataclass(frozen=True)
class TaskRow:
    """One task as the index lists it."""

    position: int
    id: str
    category: str
    headline: float | None
    error: str | None


def write_view(result: Result, out: Path, declared: str | None = None) -> Path:
    """Write the pages of ``result`` into ``out``; returns the index page's path."""
    environment = _environment()
    measure, mean = headline(result, declared)
    by_task: dict[str, list[Value]] = defaultdict(list)
    for value in result.values:
        if value.task_id is not None:
            by_task[value.task_id].append(value)
    rows = [
        TaskRow(
            position=position,
            id=trace.task.id,
            category=trace.task.category or "uncategorised",
            headline=_of(by_task[trace.task.id], measure),
            error=None if trace.error is None else f"{trace.error.step}: {trace.error.message}",
        )
        for position, trace in enumerate(result.traces, start=1)
    ]
    pages = {
        "index.html": _render(
            environment,
            "view_index.html",
            result=result,
            headline_measure=measure,
            headline_mean=mean,
            measures=measure_rows(result),
            categories=_categories(rows),
            tasks=rows,
            run_values=[v for v in result.values if v.task_id is None],
            root="",
        )
    }
    for row, trace in zip(rows, result.traces, strict=True):
        pages[f"tasks/{row.position}.html"] = _render(
            environment,
            "view_task.html",
            result=result,
            row=row,
            trace=trace,
            documents=_documents(trace),
            values=by_task[trace.task.id],
            root="../",
        )
    for name in _THEME_STATIC:
        pages[f"static/{name}"] = (_theme() / "static" / name).read_bytes()
    for path, data in pages.items():
        write_atomic(out / path, data)
    return out / "index.html"


def _of(values: list[Value], measure: str | None) -> float | None:
    return next((v.value for v in values if v.measure == measure), None)


def _categories(rows: list[TaskRow]) -> list[Category]:
    grouped: dict[str, list[float | None]] = defaultdict(list)
    for row in rows:
        grouped[row.category].append(row.headline)
    made = []
    for name in sorted(grouped):
        decided = [v for v in grouped[name] if v is not None]
        mean = sum(decided) / len(decided) if decided else None
        made.append(Category(name, len(grouped[name]), len(decided), mean))
    return made


def _documents(trace: Trace) -> list[dict[str, Any]]:
    if trace.recalled is None:
        return []
    kept = trace.cut.kept if trace.cut is not None else None
    return [
        {
            "rank": rank,
            "id": document.id,
            "text": document.text,
            "within_budget": kept is None or rank <= kept,
        }
        for rank, document in enumerate(trace.recalled.documents, start=1)
    ]


def _theme() -> Path:
    from memrank.board.render import DEFAULT_TEMPLATES

    return DEFAULT_TEMPLATES


def _environment() -> Environment:
    """The board theme's loader and filters, with the viewer's templates looked up first."""
    from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined

    from memrank.board._compiled import COMPILED_IN_THIS_PROCESS
    from memrank.board.render import FILTERS

    environment = Environment(
        loader=ChoiceLoader([FileSystemLoader(TEMPLATES), FileSystemLoader(_theme())]),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=COMPILED_IN_THIS_PROCESS,
    )
    environment.filters.update(FILTERS)
    return environment


def _render(environment: Environment, template: str, **context: Any) -> bytes:
    from jinja2 import TemplateError

    try:
        return environment.get_template(template).render(**context).encode("utf-8")
    except TemplateError as exc:
        raise BoardConfigError(f"template {template}: {exc}") from None
