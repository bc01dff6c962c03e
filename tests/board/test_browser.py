"""The track page in headless Chromium: sorting, filtering, URL state, and no script needed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from memrank.board.site import assemble, write
from tests.board.conftest import TEMPLATES, browse, make_board, serve


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # Served under /board/, the path of the board's base_url, as a project's pages site is.
    root = tmp_path_factory.mktemp("served")
    write(assemble(make_board(), TEMPLATES, {}), root / "board")
    with serve(root) as base:
        yield base + "board/"


def systems(page: Page) -> list[str]:
    """The system names of the rows a reader can see, top to bottom."""
    return page.locator("#board tbody tr:visible .system-name").all_text_contents()


def test_sorting_by_a_column(chromium: Browser, site: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/index.html")
        assert systems(page) == ["alpha", "beta", "gamma"]
        demo = page.locator("th[data-key=demo]")
        demo.get_by_role("button").click()
        assert demo.get_attribute("aria-sort") == "descending"
        assert page.locator("th[data-key=rank]").get_attribute("aria-sort") is None
        assert systems(page) == ["alpha", "beta", "gamma"]
        demo.get_by_role("button").click()
        assert demo.get_attribute("aria-sort") == "ascending"
        assert systems(page) == ["gamma", "beta", "alpha"]
        assert "sort=demo&order=asc" in page.url
        page.locator("th[data-key=locomo]").get_by_role("button").click()
        assert systems(page)[0] == "alpha"  # rows without a run go last either way
        assert watched.problems == []


def test_filtering_by_division_counts_and_keeps_the_state_in_the_url(
    chromium: Browser, site: str
) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/index.html")
        assert page.locator("#showing").text_content() == "Showing 3 of 3 systems"
        page.get_by_label("Division").select_option("commercial")
        assert systems(page) == ["beta"]
        assert page.locator("#showing").text_content() == "Showing 1 of 3 systems"
        assert page.url.endswith("?division=commercial")
        page.get_by_label("Search").fill("GAM")
        assert systems(page) == []
        page.get_by_role("button", name="Clear filters").click()
        page.wait_for_function("document.location.search === ''")
        assert systems(page) == ["alpha", "beta", "gamma"]
        assert watched.problems == []


def test_a_shared_link_restores_filters_and_sorting(chromium: Browser, site: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(
            site + "textual/index.html?division=open-source&evaluation=demo&sort=demo&order=asc"
        )
        assert systems(page) == ["gamma", "alpha"]
        assert page.get_by_label("Division").input_value() == "open-source"
        assert page.get_by_label("Evaluation").input_value() == "demo"
        assert page.locator("th[data-key=demo]").get_attribute("aria-sort") == "ascending"
        assert page.locator("#showing").text_content() == "Showing 2 of 3 systems"
        page.goto(site + "textual/index.html?evaluation=locomo&division=nonsense")
        assert systems(page) == ["alpha"]
        assert page.get_by_label("Division").input_value() == ""
        assert watched.problems == []


def test_with_javascript_off_the_full_table_is_there(chromium: Browser, site: str) -> None:
    with browse(chromium, javascript=False) as watched:
        page = watched.page
        page.goto(site + "textual/index.html?division=commercial")
        assert systems(page) == ["alpha", "beta", "gamma"]
        assert page.locator("#filters").is_hidden()
        assert page.locator("#board td.score a").count() == 4
        assert watched.problems == []


def test_no_page_logs_an_error(chromium: Browser, site: str) -> None:
    pages = sorted(p for p in assemble(make_board(), TEMPLATES, {}) if p.endswith(".html"))
    with browse(chromium) as watched:
        for path in pages:
            watched.page.goto(site + path)
            watched.page.wait_for_load_state("load")
    assert len(pages) == 10 and watched.problems == []
