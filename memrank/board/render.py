"""The Board as HTML pages, laid out by the jinja2 templates of a templates folder.

Autoescaping is on for every template and undefined names are errors, so artifact text can
only ever arrive on a page as text. No template needs ``|safe``: the two pieces of trusted HTML,
a rendered docs page (``memrank.board.docs``) and a run page's comparison rows (made of escaped
parts here, ``comparison_rows``), are marked safe where they are made.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from markupsafe import Markup, escape
from pydantic import BaseModel

from memrank.board import urls
from memrank.board.citations import PAPERS
from memrank.board.compare import NEAREST
from memrank.board.folder import Part
from memrank.board.memo import NO_MEMO, Memo, folder_digest
from memrank.board.model import Board, Comparison, Frame
from memrank.board.svg import MATRIX_MOST
from memrank.board.text import isolated, plain, short, visible
from memrank.errors import BoardConfigError

try:  # the escaping escape() does, as markupsafe itself picks it (markupsafe >= 3.0)
    from markupsafe._speedups import _escape_inner
except ImportError:  # installed without its C part
    from markupsafe._native import _escape_inner

if TYPE_CHECKING:
    from jinja2 import Environment, Template

__all__ = ["DEFAULT_TEMPLATES", "page_parts", "static_files"]

DEFAULT_TEMPLATES = Path(__file__).parent / "templates"
"""The default theme, shipped inside the package so an installed wheel can build a board."""
_STATIC = "static"
HOME_ROWS = 25
"""Rows of each track the home page shows, best first (the track's page has them all)."""


def page_parts(board: Board, templates: Path, memo: Memo = NO_MEMO) -> list[Part]:
    """Every HTML page of the board, each a part of the site making it, heaviest first.

    Every page sees the frame (``site``). The index, track and changelog pages also see the
    whole ``board``, so they are made afresh; every other page sees only its own model, so
    ``memo`` can give back the page an earlier build made of the same model, frame and theme.
    """
    environment = _environment(templates, memo)
    site = board.frame()
    theme = (
        memo.entry("theme", folder_digest(templates), site.model_dump_json()) if memo.active else ""
    )

    def made(page: _Page) -> bytes:
        if page.whole:
            return _render(
                environment, page.template, page.path, site, None, {"board": board, **page.context}
            )
        if not page.kept:
            return _render(environment, page.template, page.path, site, page.root, page.context)

        def parts() -> tuple[str, ...]:
            # a run or evaluation page says what it is made from; any other is known by its model
            shown = page.made_from or "".join(
                f"{name}={model.model_dump_json()}" for name, model in page.context.items()
            )
            return ("page", theme, page.template, page.path, page.root or "", shown)

        return memo.through(
            parts,
            lambda: _render(environment, page.template, page.path, site, page.root, page.context),
        )

    # The pages that see the whole board first: each costs many run pages.
    return [partial(_part, made, page) for page in (*_whole_pages(board), *_own_pages(board))]


def _part(made: Callable[[_Page], bytes], page: _Page) -> dict[str, bytes]:
    """A page as a part of the site."""
    return {page.path: made(page)}


@dataclass(frozen=True)
class _Page:
    """A page to render: its template and the models it sees (besides the frame)."""

    path: str
    template: str
    context: Mapping[str, BaseModel]
    root: str | None = None
    """The prefix of its links (None: relative, as deep as the page)."""
    made_from: str = ""
    """What a run or evaluation page is made from, for the memo (others are known by their
    models)."""
    whole: bool = False
    """Whether it also sees the whole board (the index, track and changelog pages): then it is
    made afresh, never taken from the memo."""
    kept: bool = True
    """Whether the memo keeps it. A system's history page shows each run's rank "of N", so a
    run added to a column changes the history of every system on it: keeping a thousand such
    small pages costs a rebuild more file writes than rendering them again costs it."""


def _whole_pages(board: Board) -> list[_Page]:
    pages = [_Page(urls.INDEX, "index.html", {}, whole=True)]
    pages += [_Page(t.path, "track.html", {"track": t}, whole=True) for t in board.tracks]
    pages.append(_Page(urls.CHANGELOG, "changes.html", {}, whole=True))
    return pages


def _own_pages(board: Board) -> list[_Page]:
    pages = [
        _Page(run.path, "run.html", {"run": run}, made_from=run.made_from) for run in board.runs
    ]
    pages += [
        _Page(page.path, "evaluation.html", {"evaluation": page}, made_from=page.made_from)
        for page in board.evaluations
    ]
    pages += [
        _Page(page.path, "history.html", {"history": page}, kept=False) for page in board.histories
    ]
    if board.field is not None:
        pages.append(_Page(board.field.path, "field.html", {"field": board.field}))
    pages += [_Page(doc.path, "doc.html", {"doc": doc}) for doc in board.docs]
    # Served for a missing path at any depth, so its links start at the site's own path.
    pages.append(_Page(urls.NOT_FOUND, "404.html", {}, root=urlsplit(board.base_url).path))
    return pages


def static_files(templates: Path) -> dict[str, bytes]:
    """The templates folder's static/ assets, by their path on the site."""
    folder = templates / _STATIC
    if not folder.is_dir():
        raise BoardConfigError(f"{folder}: the templates have no static/ folder (board.css, ...)")
    return {
        urls.static(path.relative_to(folder).as_posix()): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _environment(templates: Path, memo: Memo = NO_MEMO) -> Environment:
    from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader, StrictUndefined

    from memrank.board._compiled import COMPILED_IN_THIS_PROCESS

    if not templates.is_dir():
        raise BoardConfigError(
            f"{templates}: no templates folder here; pass --templates DIR holding the theme, "
            "or leave --templates out for the default one"
        )
    environment = Environment(
        loader=FileSystemLoader(templates),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Compiling the theme is a tenth of a rebuild; jinja2 keeps each template's code by
        # its name and the sha1 of its source, so an edited template is compiled again.
        bytecode_cache=FileSystemBytecodeCache(str(memo.folder / "templates"))
        if memo.folder is not None and _made(memo.folder / "templates")
        else COMPILED_IN_THIS_PROCESS,
    )
    environment.template_class = _escaping_template()
    environment.filters.update(FILTERS)
    environment.globals["urls"] = urls
    environment.globals["nearest"] = NEAREST
    environment.globals["matrix_most"] = MATRIX_MOST
    environment.globals["home_rows"] = HOME_ROWS
    environment.globals["papers"] = PAPERS
    environment.globals["fragment"] = _Fragments(environment)
    return environment


def _escape(value: object) -> Markup:
    """markupsafe's ``escape``, giving the same Markup without calling Markup's constructor
    in Python: autoescaping calls it for each of the some 200 values a run page shows, and
    that call was half its cost."""
    if type(value) is str:
        return _as_markup(Markup, _escape_inner(value))
    if type(value) is Markup:
        return value
    if hasattr(value, "__html__"):
        return Markup(value.__html__())
    return _as_markup(Markup, _escape_inner(str(value)))


_as_markup = str.__new__


@functools.cache
def _escaping_template() -> type[Template]:
    """jinja2's Template, its compiled code made to escape with ``_escape``."""
    from jinja2 import Template

    class _EscapingTemplate(Template):
        @classmethod
        def from_code(cls, *args: Any, **kwargs: Any) -> Template:
            made = super().from_code(*args, **kwargs)
            made.root_render_func.__globals__["escape"] = _escape  # every block's globals too
            return made

    return _EscapingTemplate


class _Fragments:
    """``fragment(template, **values)``: a piece of a page made of ``values`` alone (strings,
    numbers, tuples: hashable), rendered once per distinct values and the same HTML every
    time after. It sees none of the page's own names (``page``, ``href``), so it cannot differ
    from page to page. A run page's list of installed distributions is the same on every run
    one pipeline built: thousands of runs, a few lists."""

    def __init__(self, environment: Environment) -> None:
        self._environment = environment
        self._made: dict[tuple[object, ...], Markup] = {}

    def __call__(self, template: str, **values: object) -> Markup:
        key = (template, *sorted(values.items()))
        try:
            found = self._made.get(key)
        except TypeError:
            from jinja2 import TemplateRuntimeError

            raise TemplateRuntimeError(
                f"fragment({template!r}): its values must be hashable (text, numbers, tuples)"
            ) from None
        if found is None:
            # autoescaped when rendered, so marked safe as it is
            found = Markup(self._environment.get_template(template).render(**values))
            self._made[key] = found
        return found


def _render(
    environment: Environment,
    template: str,
    path: str,
    site: Frame,
    root: str | None,
    context: Mapping[str, Any],
) -> bytes:
    from jinja2 import TemplateError

    prefix = "../" * path.count("/") if root is None else root
    try:
        text = environment.get_template(template).render(
            site=site, page=path, href=lambda target: prefix + target, **context
        )
    except TemplateError as exc:
        raise BoardConfigError(f"template {template} (rendering {path}): {exc}") from None
    return text.encode("utf-8")


def _made(folder: Path) -> bool:
    """Whether ``folder`` is there (made now if need be) and can be written: a memo that
    cannot be written only makes the build slower, never fails it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def _number(value: float | None) -> str:
    """Three decimals, or "none" for a value that could not be decided (never 0)."""
    return "none" if value is None else f"{value:.3f}"


def _signed(value: float | None) -> str:
    """A gap with its sign: the sign says which way it runs (B minus A), never which is better."""
    return "none" if value is None else f"{value:+.3f}"


_LONG_DIGITS = re.compile(r"[0-9a-fA-F]{17,}")


def _brief(text: str) -> str:
    """``text`` with each run of more than 16 hex digits (a commit as a version) cut to its
    first 12 and "…": a table's narrow column then wraps between words and never breaks one.
    The run page shows the text whole; any other text is left as it is."""
    return _LONG_DIGITS.sub(lambda found: found.group()[:12] + "…", text)


def _milliseconds(value: float | None) -> str:
    """A duration in ms as measured (three significant figures), or "none" when not recorded."""
    if value is None:
        return "none"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _count(value: float | None) -> str:
    """A count as a whole number with thousands separated, or "none" when not recorded."""
    return "none" if value is None else f"{value:,.0f}"


def _dollars(value: float | None) -> str:
    """US dollars to the cent (a fraction of a cent to four decimals), or "none" when the
    cost is not known (never $0 for a price nobody listed)."""
    if value is None:
        return "none"
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def _p(value: float | None) -> str:
    """A p value as a reader takes it: "< 0.001" below a thousandth, never a printed 0."""
    if value is None:
        return "none"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d")


def _moment(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _percent(share: float) -> str:
    return f"{share * 100:.1f}"


def _label(name: str) -> str:
    """An enum value as words: ``endpoint_observation`` -> ``endpoint observation``."""
    return name.replace("_", " ")


_VERDICT_HEADINGS = {
    "better": "Significantly better",
    "worse": "Significantly worse",
    "tie": "Not separated (a tie)",
}


def _comparison_rows(comparisons: Sequence[Comparison], page: str) -> Markup:
    """A run page's comparisons as the rows of its table, a heading row before each verdict's,
    one line each, each system with its version (two versions of one system are two rows).
    Made here, not by a loop in the template: at 1,000 systems x 3 evaluations the run pages
    hold some 84,000 of these rows, and jinja2's own work per row (attribute lookups, escaping,
    joining) took a sixth of every run page. Artifact text is escaped and isolated as the
    ``text`` filter does it; the numbers are formatted floats."""
    rows = []
    verdict = ""
    for c in comparisons:
        if c.verdict != verdict:
            verdict = c.verdict
            rows.append(
                f'<tr class="verdict"><th colspan="4" scope="rowgroup">'
                f"<span>{_VERDICT_HEADINGS[verdict]}</span>"
            )
        rows.append(
            f'<tr><th scope="row"><a href="{escape(urls.beside(c.other.path, page))}">'
            f"{isolated(short(c.other.display))}</a> "
            f'<span class="system-version">{isolated(_brief(short(c.other.version_shown)))}</span>'
            f"<td>{_number(c.other_value)}<td>{_signed(c.difference)}<td>{escape(_p(c.p_value))}"
        )
    return Markup("\n".join(rows))


FILTERS: dict[str, Callable[..., str]] = {
    "comparison_rows": _comparison_rows,
    "text": isolated,
    "plain": plain,
    "short": short,
    "visible": visible,
    "number": _number,
    "signed": _signed,
    "p": _p,
    "milliseconds": _milliseconds,
    "count": _count,
    "dollars": _dollars,
    "brief": _brief,
    "day": _day,
    "moment": _moment,
    "iso": _iso,
    "percent": _percent,
    "label": _label,
}
