"""Hostile text in properly signed artifacts that HTML escaping alone does not stop: a bare CR
that splits a CSV row, formula-looking headers, a right-to-left override, a zero-width
character, a 10,000-character name. Each case is read as a spreadsheet or a browser would."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from memrank.board.folder import write
from memrank.board.text import isolated, visible
from tests.board.conftest import (
    BOARD_TOML,
    Signed,
    browse,
    built,
    files_of,
    named,
    notes,
    serve,
    sign_artifacts,
    wheel_run,
)

CR_FORMULA = "Evil\r=1+1"
OVERRIDE = "\u202eevil"
ZERO_WIDTH = "WordOverlap\u200bAdapter"
LONG = "L" * 1_000
"""The longest text a verifier admits (a signer before the name limit could sign it)."""


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    base = wheel_run("word-overlap", notes())
    runs = [Signed(base)] + [
        Signed(named(base, n)) for n in (CR_FORMULA, OVERRIDE, ZERO_WIDTH, LONG)
    ]
    # Evaluation names start the CSV's column headers: make one look like a formula too.
    toml = BOARD_TOML.replace(
        "[tracks.coding]",
        '[[tracks.textual.columns]]\nevaluation = "=HYPERLINK(1)"\nversion = "v1"\n'
        'title = "Formula"\nmeasure = "word-match"\ndirection = "higher"\n\n[tracks.coding]',
    )
    artifacts = sign_artifacts(
        tmp_path_factory.mktemp("hostile-text") / "artifacts", runs, toml, before_text_checks=True
    )
    return built(artifacts)[1]


def csv_lines(tree: dict[str, bytes]) -> list[str]:
    """The CSV as a line-based reader sees it: a break is any CR or LF, quoted or not."""
    return [line for line in re.split(r"\r\n|\r|\n", tree["textual/results.csv"].decode()) if line]


def test_a_bare_cr_in_a_name_cannot_start_a_csv_row(tree: dict[str, bytes]) -> None:
    lines = csv_lines(tree)
    assert len(lines) == 1 + 5  # the header and one row per system: no row was split
    assert all(line.startswith('"') for line in lines)
    rows = list(csv.DictReader(io.StringIO(tree["textual/results.csv"].decode())))
    assert "Evil⟨U+000D⟩=1+1" in [row["system"] for row in rows]


def test_every_csv_field_is_quoted_and_headers_are_guarded(tree: dict[str, bytes]) -> None:
    header = next(csv.reader(io.StringIO(tree["textual/results.csv"].decode())))
    assert "'=HYPERLINK(1) word-match" in header
    for line in csv_lines(tree):
        fields = next(csv.reader([line]))
        assert line == ",".join('"' + f.replace('"', '""') + '"' for f in fields)
        assert not any(f.startswith(("=", "+", "@", "\t", "\r")) for f in fields), line


def test_a_direction_override_cannot_reverse_the_page_s_own_words(
    tree: dict[str, bytes], chromium: Browser, tmp_path: Path
) -> None:
    # Pages, plots, the CSV and the feed show it; results.json carries the signed text as data.
    for path, content in tree.items():
        if not path.endswith(".json"):
            assert "\u202e".encode() not in content, path
    write(files_of(tree), tmp_path / "board")
    with serve(tmp_path) as base, browse(chromium) as watched:
        page = watched.page
        page.goto(base + "board/textual/index.html")
        name = page.locator("#board .system-name", has_text="⟨U+202E⟩evil")
        assert name.locator("bdi").count() == 1
        name.locator("xpath=ancestor::tr").locator("td.score a").first.click()
        heading = page.locator("h1")
        # The override is shown, not obeyed, and the name sits in its own isolate.
        assert heading.inner_text() == "⟨U+202E⟩evil on notes"
        assert heading.locator("bdi").first.inner_text() == "⟨U+202E⟩evil"
        assert page.title().endswith("on \u2068notes\u2069 · memrank board")
    assert watched.problems == []


def test_a_zero_width_character_cannot_make_two_names_read_alike(tree: dict[str, bytes]) -> None:
    page = tree["textual/index.html"].decode()
    assert "WordOverlap⟨U+200B⟩Adapter" in page and "\u200b" not in page
    assert page.count('<span class="system-name"><bdi>WordOverlapAdapter</bdi></span>') == 1


def test_a_letter_that_draws_nothing_is_shown_too() -> None:
    # U+3164 (Hangul filler) is a printable letter, so "isprintable" alone does not catch it.
    assert visible("Word\u3164Overlap") == "Word⟨U+3164⟩Overlap"
    assert str(isolated("<b>\u3164")) == "<bdi>&lt;b&gt;⟨U+3164⟩</bdi>"


@pytest.mark.parametrize("width", [1280, 390])
def test_a_1000_character_name_wraps_and_is_cut_in_tables(
    tree: dict[str, bytes], chromium: Browser, tmp_path: Path, width: int
) -> None:
    write(files_of(tree), tmp_path / "board")
    track = tree["textual/index.html"].decode()
    assert "L" * 160 + "… (840 more characters)" in track and "L" * 161 not in track
    run = next(
        path
        for path, content in tree.items()
        if path.startswith("runs/") and b"L" * 1_000 in content
    )
    with serve(tmp_path) as base, browse(chromium) as watched:
        page = watched.page
        page.set_viewport_size({"width": width, "height": 800})
        for path in ("textual/index.html", run, "textual/notes/index.html", "changes/index.html"):
            page.goto(base + "board/" + path)
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, (path, wide)
    assert watched.problems == []
