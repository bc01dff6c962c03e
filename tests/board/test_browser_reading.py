"""Reading the board in headless Chromium: intervals and tie cues, the category view, the
compare-two picker, the plots, and the table with JavaScript off. The keyboard's reach and
focus rings are checked with axe in test_accessibility.py."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from memrank.board import files
from memrank.board.folder import write
from tests.board.conftest import (
    LABELLED_TOML,
    Signed,
    browse,
    built,
    categorised,
    files_of,
    pick,
    serve,
    sign_artifacts,
    wheel_run,
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    evaluation = categorised()
    runs = [
        Signed(wheel_run(name, evaluation))
        for name in ("word-overlap", "no-context", "full-context", "random")
    ]
    folder = tmp_path_factory.mktemp("reading")
    # Two pairs a file, so that the picker's pairs of these four runs lie in three files
    # (a large board's files hold 6,000): it must find each run's file by compare.json.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "PAIRS_PER_FILE", 2)
        _, tree = built(sign_artifacts(folder / "artifacts", runs, LABELLED_TOML))
    assert len([path for path in tree if "/notes/pairs/" in path]) == 3
    write(files_of(tree), folder / "served" / "board")
    with serve(folder / "served") as base:
        yield base + "board/"


def test_intervals_and_tie_cues_are_visible(chromium: Browser, site: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/index.html")
        intervals = page.locator("#board td.score .interval")
        assert intervals.count() == 4 and intervals.first.is_visible()
        # every task recalled: 1.000, its interval reaching down inside the range, never past 1
        assert re.fullmatch(r"0\.\d{3}–1\.000", intervals.first.inner_text())
        ties = page.locator("#board .tie-cue")
        # Random is not told apart from the two that recall the fact: the three share 1–3.
        assert ties.count() == 3 and ties.first.is_visible()
        assert page.locator("#board .rank-label").all_inner_texts() == ["1–3", "1–3", "1–3", "4"]
        page.get_by_role("link", name="How ranks are made").click()
        assert page.locator("#reading-heading").is_visible()
        # A cell's details open by keyboard, not only by hovering a title.
        page.goto(site + "textual/index.html")
        details = page.locator("#board td.score details").first
        details.locator("summary").focus()
        page.keyboard.press("Enter")
        assert details.locator(".why").first.is_visible()
        assert "decided by rule" in details.inner_text()
    assert watched.problems == []


def test_the_category_view_shows_each_category_with_its_label(chromium: Browser, site: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/notes/index.html")
        headers = page.locator("#categories thead th").all_inner_texts()
        assert headers[:3] == ["Rank", "System", "All tasks"]
        assert [h.split("\n")[0] for h in headers[3:]] == ["Category 1", "Category 2", "Category 3"]
        assert "single fact" in headers[3] and "colour words" in headers[4]
        assert page.locator("#categories tbody tr").count() == 4
    assert watched.problems == []


def test_the_compare_two_picker_loads_a_pair_s_reading(chromium: Browser, site: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/notes/index.html")
        reading = page.locator("#compare-reading")
        # Waited on by locator: the pages' CSP refuses the eval a string predicate needs.
        reading.filter(has_text=re.compile(r"\S")).wait_for()
        assert (
            page.locator("#compare").is_visible() and page.locator("#compare-fallback").is_hidden()
        )
        pick(page, "First system", "FullContextAdapter")
        pick(page, "Second system", "NoContextAdapter")
        text = reading.inner_text()
        assert text.startswith("FullContextAdapter: 1.000")
        assert "NoContextAdapter: 0.000" in text and "-1.000" in text
        assert "FullContextAdapter is significantly better" in text
        pick(page, "Second system", "WordOverlapAdapter")
        assert "does not separate them" in reading.inner_text()
        # each of the other three against the last-placed: the pairs of runs 1, 2 and 3 of
        # the ranking, one file each
        pick(page, "Second system", "NoContextAdapter")
        for first in ("FullContextAdapter", "WordOverlapAdapter", "RandomAdapter"):
            pick(page, "First system", first)
            reading.filter(has_text=re.compile(f"^{first}: ")).wait_for()
            assert re.search(r"; p (< 0\.001|= [01]\.\d{3}): ", reading.inner_text()), first
    assert watched.problems == []


def test_the_plots_are_drawn(chromium: Browser, site: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            page.goto(site + "textual/notes/index.html")
            page.wait_for_load_state("load")  # images included
            for name in ("forest", "matrix"):
                image = page.locator(f"img[src$='{name}.svg']")
                assert image.evaluate("i => i.naturalWidth") > 100, (scheme, name)
    assert watched.problems == []


def test_with_javascript_off_the_ranked_table_shows_its_intervals(
    chromium: Browser, site: str
) -> None:
    with browse(chromium, javascript=False) as watched:
        page = watched.page
        page.goto(site + "textual/index.html")
        rows = page.locator("#board tbody tr")
        assert rows.count() == 4
        assert page.locator("#board td.score .interval:visible").count() == 4
        assert page.locator("#board .rank-label").all_inner_texts() == ["1–3", "1–3", "1–3", "4"]
        page.goto(site + "textual/notes/index.html")
        assert (
            page.locator("#compare").is_hidden() and page.locator("#compare-fallback").is_visible()
        )
        assert page.locator("#categories tbody tr").count() == 4
    assert watched.problems == []


def test_a_run_page_s_value_table_keeps_its_cells_in_line(chromium: Browser, site: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/notes/index.html")
        page.locator("#categories tbody a").first.click()
        cells = page.locator("#values-heading ~ .table-scroll tbody tr").first.locator("th, td")
        tops = cells.evaluate_all("all => all.map(c => c.getBoundingClientRect().top)")
        assert len(tops) == 5 and len(set(tops)) == 1
        assert cells.last.evaluate("c => getComputedStyle(c).display") == "table-cell"
        # The value the table showed is at the top, with its rank.
        assert page.locator(".headline-value .big").inner_text() == "1.000"
        assert "rank 1–3 of 4" in page.locator(".headline-value").inner_text()
    assert watched.problems == []
