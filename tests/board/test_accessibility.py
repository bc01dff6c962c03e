"""Every kind of board page checked by axe-core in headless Chromium, at desktop and phone widths
in light and dark; what axe does not check: no page scrolling sideways, the keyboard's focus
seen on every control (a ring, never entirely under a sticky header), every word of a plot
inside it.

axe-core comes from a test dependency that ships its axe.min.js (axe-playwright-python), so
nothing is fetched while the tests run and no third-party script lives in this repository."""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

import memrank
from memrank.board.folder import write
from memrank.board.model import Board
from tests.board.conftest import (
    LABELLED_TOML,
    Signed,
    built,
    categorised,
    files_of,
    named,
    pick,
    serve,
    sign_artifacts,
    wheel_run,
)

AXE = (resources.files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
"""WCAG 2.0 and 2.1 at levels A and AA, and axe's best practices."""

LONG_NAME = "Hybrid retrieval with MiniLM embeddings, BM25 and reciprocal rank fusion (k=60)"
"""Nearly as long as attestation allows a name to be (79 of 80 characters)."""
WIDTHS = {"desktop": 1280, "phone": 390}
CONTROL_ARMS = """
[systems.NoContextAdapter]
display_name = "No context (control)"
description = "Recalls nothing: the no-memory floor."
control = true

[systems.RandomAdapter]
display_name = "Random (control)"
description = "Recalls k documents drawn at random."
control = true
"""
"""Two control arms, listed apart from the systems under their own heading."""
SCHEMES = ("light", "dark")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A board with both kinds of column: demo with three systems, notes with five in labelled
    categories (tie cues, the forest plot and matrix, a name nearly as long as attestation
    allows, control arms apart and an Overall column), a run the board refuses (a Cyrillic
    letter in its name), and an empty track."""
    runs = [
        Signed(wheel_run(name, memrank.evaluation("demo")))
        for name in ("word-overlap", "no-context")
    ]
    runs.append(
        Signed(
            wheel_run("full-context", memrank.evaluation("demo"), transport="http"), "commercial"
        )
    )
    runs += [
        Signed(wheel_run(name, categorised()))
        for name in ("word-overlap", "no-context", "full-context", "random")
    ]
    runs.append(Signed(named(runs[-1].result, LONG_NAME)))
    runs.append(Signed(named(runs[-1].result, "R\u0430ndomAdapter")))  # refused: a look-alike
    folder = tmp_path_factory.mktemp("accessible")
    artifacts = sign_artifacts(folder / "artifacts", runs, LABELLED_TOML)
    (artifacts / "systems.toml").write_text(CONTROL_ARMS)
    _, tree = built(artifacts)
    write(files_of(tree), folder / "served" / "board")
    with serve(folder / "served") as base:
        yield base + "board/"


def violations(page: Page) -> list[dict[str, Any]]:
    """axe's violations on the page as it stands now."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE)  # DevTools evaluation: the page's CSP does not apply
    result: dict[str, Any] = page.evaluate(
        "rules => axe.run(document, {runOnly: {type: 'tag', values: rules}, resultTypes: ['violations']})",
        RULES,
    )
    return list(result["violations"])


def scrolls_sideways(page: Page) -> bool:
    """Whether the page itself scrolls sideways: reflow (WCAG 1.4.10), which axe does not check.
    Tables, plots and code may, inside their own boxes."""
    return bool(page.evaluate("document.documentElement.scrollWidth > window.innerWidth"))


def described(where: str, found: list[dict[str, Any]]) -> list[str]:
    """One line per violation and one per offending node, for a developer to fix it from."""
    lines = []
    for violation in found:
        lines.append(f"{where}: {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            lines.append(f"    {' '.join(map(str, node['target']))}: {summary[:300]}")
    return lines


PAGES = [
    "index.html",
    "textual/index.html",
    "coding/index.html",
    "textual/notes/index.html",
    "textual/demo/index.html",
    "changes/index.html",
    "docs/board/index.html",
    "docs/cli/index.html",
    "404.html",
]


def checked_in_every_state(page: Page, site: str) -> Iterator[str]:
    """Visit every kind of page, yielding once per state to check: the run page is reached by
    clicking a cell, the track page is seen again with every cell's details open, and the
    evaluation page's picker once loaded and again with a pair picked."""
    for path in PAGES:
        page.goto(site + path)
        page.wait_for_load_state("load")
        if path == "textual/notes/index.html":
            reading = page.locator("#compare-reading")
            reading.filter(has_text=re.compile(r"\S")).wait_for()
            yield f"{path} (picker loaded)"
            pick(page, "First system", "FullContextAdapter")
            pick(page, "Second system", "No context (control)")
            reading.filter(has_text="FullContextAdapter:").wait_for()
            yield f"{path} (pair picked)"
            continue
        yield path
        if path == "textual/index.html":
            page.locator("#board td.score details").evaluate_all(
                "all => all.forEach(d => { d.open = true; })"
            )
            yield f"{path} (cell details open)"
            page.locator("#board td.score a").first.click()
            page.wait_for_load_state("load")
            assert "/runs/" in page.url
            yield "a run page"


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_axe_finds_no_violation(chromium: Browser, site: str, width: str, scheme: str) -> None:
    context = chromium.new_context(
        viewport={"width": WIDTHS[width], "height": 900},
        color_scheme=scheme,  # type: ignore[arg-type]
    )
    context.add_init_script(AXE)  # into every page as it loads, before the page's own scripts
    problems: list[str] = []
    states = []
    try:
        page = context.new_page()
        for state in checked_in_every_state(page, site):
            states.append(state)
            # The board's stylesheet applied: axe judges the board's colours, not the defaults.
            background = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert background != "rgba(0, 0, 0, 0)", f"{state}: board.css did not apply"
            problems += described(state, violations(page))
            if scrolls_sideways(page):
                problems.append(f"{state}: the page scrolls sideways")
    finally:
        context.close()
    assert len(states) == len(PAGES) + 3
    assert not problems, f"axe at {width} width, {scheme} scheme:\n" + "\n".join(problems)


@pytest.fixture(scope="module")
def committed(
    tmp_path_factory: pytest.TempPathFactory, committed_board: tuple[Board, dict[str, bytes]]
) -> Iterator[tuple[str, list[str]]]:
    """The board the committed artifacts build, served, and the pages it has that the board
    above lacks: the home page's papers to cite, LoCoMo's page (a category of none, its reason
    below the table; its paper), a LoCoMo run page and an engine's history."""
    board, tree = committed_board
    folder = tmp_path_factory.mktemp("committed-axe")
    write(files_of(tree), folder / "board")
    locomo = next(page for page in board.evaluations if page.column.evaluation == "locomo")
    run = next(run for run in board.runs if run.evaluation_path == locomo.path)
    pages = ["index.html", board.tracks[0].path, locomo.path, run.path]
    pages += [history.path for history in board.histories if "activememoryindex" in history.path]
    with serve(folder) as base:
        yield base + "board/", pages


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", [1366, 390])
def test_axe_finds_no_violation_on_the_committed_board(
    chromium: Browser, committed: tuple[str, list[str]], width: int, scheme: str
) -> None:
    base, pages = committed
    context = chromium.new_context(
        viewport={"width": width, "height": 900},
        color_scheme=scheme,  # type: ignore[arg-type]
    )
    context.add_init_script(AXE)
    problems: list[str] = []
    try:
        page = context.new_page()
        for path in pages:
            page.goto(base + path)
            page.wait_for_load_state("load")
            problems += described(path, violations(page))
            if scrolls_sideways(page):
                problems.append(f"{path}: the page scrolls sideways")
    finally:
        context.close()
    assert len(pages) == 5
    assert not problems, f"axe at {width} px, {scheme} scheme:\n" + "\n".join(problems)


def test_axe_reports_what_is_planted_in_a_page(chromium: Browser, site: str) -> None:
    # The check above can fail: an unnamed image and button, text the dark scheme's background
    # swallows, and a word too long to wrap are each reported on a real board page.
    context = chromium.new_context(color_scheme="dark", viewport={"width": 390, "height": 900})
    try:
        page = context.new_page()
        page.goto(site + "textual/index.html")
        assert not scrolls_sideways(page)
        page.evaluate(
            """faint => { const main = document.getElementById('main');
            main.append(document.createElement('img'), document.createElement('button'));
            const text = document.createElement('p');
            text.textContent = 'Barely there';
            text.style.color = faint;
            const wide = document.createElement('p');
            wide.textContent = 'W'.repeat(200);
            main.append(text, wide); }""",
            "#303030",
        )
        found = {violation["id"] for violation in violations(page)}
        assert scrolls_sideways(page)
    finally:
        context.close()
    assert {"image-alt", "button-name", "color-contrast"} <= found, found


PATH_OF = """e => { const parts = []; for (let n = e; n && n !== document.body; n = n.parentElement) {
    parts.unshift(n.tagName + ':' + Array.prototype.indexOf.call(n.parentElement.children, n)); }
    return parts.join('/'); }"""
"""An element named by its path of tags from the body, the same on every visit."""

CONTROLS = (
    f"""all => all.filter(e => e.offsetParent !== null || e.tagName === 'SUMMARY').map({PATH_OF})"""
)
"""Every control a reader can see (a closed details' summary included)."""

FOCUSED = f"""() => {{ const e = document.activeElement; const style = getComputedStyle(e);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    const box = e.getBoundingClientRect(), y = box.top + box.height / 2;
    const seen = Array.from({{length: 20}}, (_, k) => (k + 0.5) / 20).some(f => {{
        const hit = document.elementFromPoint(box.left + f * box.width, y);
        return hit !== null && (e.contains(hit) || hit.contains(e)); }});
    return [({PATH_OF})(e), outline || style.boxShadow !== 'none', e === document.body || seen]; }}"""
"""The focused element; whether it shows a focus ring (an outline or a box shadow); and whether
any of it is in sight, not entirely under a sticky header or column (WCAG 2.2's focus not
obscured, which axe does not check)."""


def arrive(page: Page, site: str, path: str) -> None:
    """Open ``path``, or a run page by clicking the track's first cell, ready to use."""
    if path == "run":
        page.goto(site + "textual/index.html")
        page.locator("#board td.score a").first.click()
    else:
        page.goto(site + path)
    page.wait_for_load_state("load")
    if path.endswith("notes/index.html"):  # the picker shows once its data has loaded
        page.locator("#compare-reading").filter(has_text=re.compile(r"\S")).wait_for()


def controls(page: Page) -> set[str]:
    return set(
        page.eval_on_selector_all(
            "a[href], button, select, input, summary, [tabindex]:not([tabindex='-1'])", CONTROLS
        )
    )


def tab_through(page: Page, key: str, presses: int) -> list[tuple[str, bool, bool]]:
    """Press ``key`` (Tab or Shift+Tab) and record each focused element as FOCUSED sees it."""
    seen = []
    for _ in range(presses):
        page.keyboard.press(key)
        path, ringed, in_sight = page.evaluate(FOCUSED)
        seen.append((path, ringed, in_sight))
    return seen


@pytest.mark.parametrize(
    "path", ["textual/index.html", "textual/notes/index.html", "run", "docs/cli/index.html"]
)
def test_tab_shows_where_the_focus_is_on_every_control(
    chromium: Browser, site: str, path: str
) -> None:
    # The ring's width is the same in both schemes (only its colour changes, and axe checks
    # colours), so one scheme is enough here.
    context = chromium.new_context()
    try:
        page = context.new_page()
        arrive(page, site, path)
        every = controls(page)
        seen = tab_through(page, "Tab", len(every) + 5)
    finally:
        context.close()
    assert len(every) > 10
    assert every <= {focused for focused, _, _ in seen}, sorted(every - {f for f, _, _ in seen})
    # "" is the body, where Tab goes after the last control.
    assert [focused for focused, ringed, _ in seen if focused and not ringed] == []
    assert [focused for focused, _, in_sight in seen if not in_sight] == []


@pytest.mark.parametrize("key", ["Tab", "Shift+Tab"])
@pytest.mark.parametrize("path", ["textual/index.html", "textual/notes/index.html"])
def test_on_a_phone_the_focus_never_hides_under_a_sticky_header_or_column(
    chromium: Browser, site: str, path: str, key: str
) -> None:
    # The tables scroll inside their boxes under a sticky header row and, on the track, sticky
    # rank and system columns; going backwards scrolls a control up or left into view.
    context = chromium.new_context(viewport={"width": WIDTHS["phone"], "height": 500})
    try:
        page = context.new_page()
        arrive(page, site, path)
        seen = tab_through(page, key, len(controls(page)) + 5)
    finally:
        context.close()
    assert [focused for focused, _, in_sight in seen if not in_sight] == []


@pytest.mark.parametrize("plot", ["forest", "matrix"])
def test_every_word_of_a_plot_is_inside_it(chromium: Browser, site: str, plot: str) -> None:
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(site + f"textual/notes/{plot}.svg")
        width, outside = page.evaluate(
            """() => { const svg = document.documentElement;
            const width = svg.viewBox.baseVal.width;
            return [width, [...svg.querySelectorAll('text')].filter(t => {
                const box = t.getBBox(); return box.x < 0 || box.x + box.width > width;
            }).map(t => t.textContent)]; }"""
        )
    finally:
        context.close()
    assert width > 0 and outside == [], outside
