"""The board as a reader meets it, at a laptop's width (1366 px) and a phone's (390 px), in
headless Chromium, on the board the committed artifacts build: the home page leads with each
track's ranked rows, on a phone's first screen too; no word in any table breaks mid-word; no
table hides rows in a box of its own height (every row is reached by scrolling the page); every
table wider than its box, scrolled fully right, still shows each row's name; a track's table
fits a laptop's width; no per-category cell runs past two lines. Screenshots of the home page, the
LoCoMo page and a run page, in the light and the dark scheme, are written for review to
``MEMRANK_SCREENSHOTS`` (default: ``screenshots/`` in pytest's base temporary folder)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from memrank.board.folder import write
from memrank.board.model import Board
from memrank.board.site import make
from tests.board.conftest import DOCS, REPOSITORY, TEMPLATES, serve

WIDTHS = {"laptop": 1366, "phone": 390}

# Every word of every table cell (a run of letters and digits, so a range's dash or a name's
# hyphen may end a line): a word whose pieces sit on more than one line was broken mid-word.
# Digests and ids in <code> (64 hex digits cannot fit a phone's line) wrap anywhere on purpose.
_BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll("table th, table td")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest(".visually-hidden, code")) continue;
      if (parent.getClientRects().length === 0) continue;  // not shown
      for (const word of node.data.matchAll(/[\\p{L}\\p{N}]+/gu)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
          .map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""

# Every box a table row sits in that scrolls (or clips) vertically and is shorter than what it
# holds: a row in it is only reached by scrolling that box, not the page.
_BOXED_ROWS = """() => {
  const boxed = [];
  for (const row of document.querySelectorAll("table tr")) {
    for (let box = row.parentElement; box && box !== document.body; box = box.parentElement) {
      const overflow = getComputedStyle(box).overflowY;
      if (overflow !== "visible" && box.scrollHeight > box.clientHeight + 1) {
        boxed.push(box.className || box.tagName);
        break;
      }
    }
  }
  return boxed;
}"""


# Every table box that scrolls sideways, scrolled fully right: each body row's name (its row
# header) must still lie inside the box's visible part. Returns how many boxes were wide.
_NAMES_IN_VIEW = """() => {
  const lost = [];
  let wide = 0;
  for (const box of document.querySelectorAll(".table-scroll")) {
    if (box.scrollWidth <= box.clientWidth + 1) continue;
    wide += 1;
    box.scrollLeft = box.scrollWidth;
    const left = box.getBoundingClientRect().left + box.clientLeft;
    const right = left + box.clientWidth;
    for (const name of box.querySelectorAll('tbody th[scope="row"]')) {
      const drawn = name.getBoundingClientRect();
      if (drawn.left < left - 1 || drawn.right > right + 1) {
        lost.push(name.innerText.trim().slice(0, 40));
      }
    }
    box.scrollLeft = 0;
  }
  return {wide, lost};
}"""

# Each cell of a per-category table (an evaluation's or a run's) whose content runs past two
# lines: a reason belongs below the table, behind a numbered mark.
_TALL_CELLS = """() => [...document.querySelectorAll(
    'section[aria-labelledby="categories-heading"] td')].flatMap(cell => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  const lines = range.getBoundingClientRect().height / parseFloat(getComputedStyle(cell).lineHeight);
  return lines > 2.05 ? [cell.innerText.trim().slice(0, 60)] : [];
})"""


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Board]]:
    """The committed artifacts built with the working tree's theme, served on loopback."""
    made = make(REPOSITORY / "artifacts", TEMPLATES, DOCS)
    folder = tmp_path_factory.mktemp("layout")
    write(made.files, folder / "board")
    with serve(folder) as base:
        yield base + "board/", made.board


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(
        os.environ.get("MEMRANK_SCREENSHOTS") or tmp_path_factory.getbasetemp() / "screenshots"
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _pages(board: Board) -> list[str]:
    """The home page, every track, every evaluation page, the run pages of one track and
    three systems' histories."""
    first_track = board.tracks[0].name
    runs = [run.path for run in board.runs if run.path and first_track in run.evaluation_path]
    return [
        "index.html",
        *(track.path for track in board.tracks),
        *(page.path for page in board.evaluations),
        *runs,
        *(history.path for history in board.histories[:3]),
    ]


@pytest.mark.parametrize("width", WIDTHS)
def test_no_table_breaks_a_word_or_boxes_its_rows(
    chromium: Browser, committed: tuple[str, Board], width: str
) -> None:
    base, board = committed
    context = chromium.new_context(viewport={"width": WIDTHS[width], "height": 900})
    try:
        page = context.new_page()
        for path in _pages(board):
            page.goto(base + path)
            assert page.evaluate(_BROKEN_WORDS) == [], (width, path)
            assert page.evaluate(_BOXED_ROWS) == [], (width, path)
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_every_wide_table_scrolled_fully_right_keeps_each_row_s_name_in_view(
    chromium: Browser, committed: tuple[str, Board], width: str
) -> None:
    base, board = committed
    context = chromium.new_context(viewport={"width": WIDTHS[width], "height": 900})
    wide = 0
    try:
        page = context.new_page()
        for path in [*_pages(board), *([board.field.path] if board.field else [])]:
            page.goto(base + path)
            found = page.evaluate(_NAMES_IN_VIEW)
            assert found["lost"] == [], (width, path)
            wide += found["wide"]
            assert page.evaluate(_TALL_CELLS) == [], (width, path)
    finally:
        context.close()
    # the per-category tables of Mem-Gallery and MemoryCode are wider than a laptop's box
    assert wide >= 2, width


def test_a_track_s_table_fits_a_laptop_s_width(
    chromium: Browser, committed: tuple[str, Board]
) -> None:
    """Every column of each track's table, Published the last, is in view at 1366 px without
    scrolling the table sideways."""
    base, board = committed
    context = chromium.new_context(viewport={"width": WIDTHS["laptop"], "height": 900})
    try:
        page = context.new_page()
        for track in board.tracks:
            if not track.rows:
                continue
            page.goto(base + track.path)
            box = page.locator("#board").locator("xpath=..")
            assert box.evaluate("b => b.scrollWidth <= b.clientWidth"), track.path
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_home_page_shows_each_track_s_ranked_rows(
    chromium: Browser, committed: tuple[str, Board], width: str
) -> None:
    base, board = committed
    context = chromium.new_context(viewport={"width": WIDTHS[width], "height": 900})
    try:
        page = context.new_page()
        page.goto(base + "index.html")
        for track in board.tracks:
            table = page.locator(f"#leaders-table-{track.name}")
            # the systems best first, then the control arms apart under their own heading
            shown = min(len(track.systems), 25) + len(track.controls)
            assert table.locator("tbody tr:not(.group-heading)").count() == shown, track.name
            assert table.locator("tbody.controls tr.control").count() == len(track.controls)
            assert table.locator("tbody .rank-label").first.inner_text().startswith("1")
            # the system column is in view beside the rank, not scrolled away
            system = table.locator("tbody th.system").first
            assert system.is_visible() and system.bounding_box()["x"] < WIDTHS[width]  # type: ignore[index]
            first = table.locator("tbody td.score .number").first.inner_text()
            assert first == f"{track.rows[0].cells[track.ranking_index or 0].value.value:.3f}"  # type: ignore[union-attr]
        # the first screen (a phone's is 390 x 844) ends below the first track's top rows:
        # the introduction is under the table, the navigation one line a list
        top_rows = page.locator("table.leaders tbody tr").nth(1).bounding_box()
        assert top_rows is not None and top_rows["y"] + top_rows["height"] <= 844, width
    finally:
        context.close()


# Each plot on the page: the image the browser chose, how wide it is drawn, and whether its box
# must be scrolled sideways to see all of it.
_PLOTS = """() => [...document.querySelectorAll(".plot")].map(box => {
  const image = box.querySelector("img");
  return {source: image.currentSrc, natural: image.naturalWidth,
          drawn: image.getBoundingClientRect().width, scrolls: box.scrollWidth > box.clientWidth + 1};
})"""


def _data_right_edges(svg: str) -> list[float]:
    """Where each mark of data ends on the x axis: a forest plot's dots and interval lines, a
    matrix's cells (each path segment ``M x y h w``)."""
    dots = [float(x) + 4 for x in re.findall(r'<circle class="dot" cx="([\d.]+)"', svg)]
    lines = [float(x) for x in re.findall(r'<line class="line" x1="[\d.]+" x2="([\d.]+)"', svg)]
    cells = [float(x) + float(w) for x, w in re.findall(r"M([\d.]+) [\d.]+h([\d.]+)v", svg)]
    return dots + lines + cells


@pytest.mark.parametrize("width", WIDTHS)
def test_the_forest_plot_and_matrix_open_showing_data(
    chromium: Browser, committed: tuple[str, Board], width: str
) -> None:
    """On a phone each evaluation page's plots are drawn for its width (names above the
    intervals; the matrix numbered): the whole plot is in view, its data with it, without
    scrolling the plot's box. A laptop keeps the wide plots, names beside the data."""
    base, board = committed
    context = chromium.new_context(viewport={"width": WIDTHS[width], "height": 900})
    try:
        page = context.new_page()
        for evaluation in board.evaluations:
            page.goto(base + evaluation.path)
            page.wait_for_load_state("load")
            plots = page.evaluate(_PLOTS)
            assert len(plots) == 2, evaluation.path
            for plot in plots:
                narrow = plot["source"].endswith("-narrow.svg")
                assert narrow == (width == "phone"), (evaluation.path, plot["source"])
                assert plot["natural"] > 0 and plot["drawn"] == plot["natural"]
                edges = _data_right_edges(page.request.get(plot["source"]).text())
                assert edges, plot["source"]  # the plot has data marks at all
                if narrow:
                    assert not plot["scrolls"], (evaluation.path, plot["source"])
                    assert max(edges) <= plot["natural"], plot["source"]
    finally:
        context.close()


def _locomo(board: Board) -> str:
    return next(page.path for page in board.evaluations if "locomo" in page.path)


def _run(board: Board) -> str:
    return next(
        run.path
        for run in board.runs
        if run.headline is not None and "locomo" in (run.evaluation_path or "")
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_for_review(
    chromium: Browser, committed: tuple[str, Board], screenshots: Path, scheme: str
) -> None:
    base, board = committed
    for width, pixels in WIDTHS.items():
        context = chromium.new_context(
            viewport={"width": pixels, "height": 900},
            color_scheme=scheme,  # type: ignore[arg-type]
        )
        try:
            page: Page = context.new_page()
            for name, path in (
                ("home", "index.html"),
                ("locomo", _locomo(board)),
                ("run", _run(board)),
            ):
                page.goto(base + path)
                page.wait_for_load_state("load")
                shot = screenshots / f"{name}-{width}-{scheme}.png"
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 10_000
        finally:
            context.close()
