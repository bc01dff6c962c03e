"""The track page in headless Chromium: sorting, filtering, URL state, and no script needed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from memrank.board.folder import write
from tests.board.conftest import browse, files_of, serve

FULL, WORD, NONE = "FullContextAdapter", "WordOverlapAdapter", "NoContextAdapter"


@pytest.fixture(scope="module")
def site(tree: dict[str, bytes], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # Served under /board/, the path of the board's base_url, as a project's pages site is.
    root = tmp_path_factory.mktemp("served")
    write(files_of(tree), root / "board")
    with serve(root) as base:
        yield base + "board/"


def systems(page: Page) -> list[str]:
    """The system names of the rows a reader can see, top to bottom."""
    return page.locator("#board tbody tr:visible .system-name").all_text_contents()


def sort_by(page: Page, key: str) -> None:
    page.locator(f"th[data-key={key}]").get_by_role("button").click()


def test_sorting_by_a_column(chromium: Browser, site: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/index.html")
        assert systems(page) == [FULL, WORD, NONE]
        demo = page.locator("th[data-key=demo]")
        sort_by(page, "demo")
        assert demo.get_attribute("aria-sort") == "descending"
        assert page.locator("th[data-key=rank]").get_attribute("aria-sort") is None
        assert systems(page) == [FULL, WORD, NONE]
        sort_by(page, "demo")
        assert demo.get_attribute("aria-sort") == "ascending"
        assert systems(page) == [NONE, WORD, FULL]
        assert page.url.endswith("?sort=demo&order=asc")
        sort_by(page, "system")
        assert systems(page) == [FULL, NONE, WORD]
        assert watched.problems == []


def test_filtering_by_division_counts_and_keeps_the_state_in_the_url(
    chromium: Browser, site: str
) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/index.html")
        assert page.locator("#showing").text_content() == "Showing 3 of 3 systems"
        page.get_by_label("Division").select_option("open-source")
        assert systems(page) == [WORD, NONE]
        assert page.locator("#showing").text_content() == "Showing 2 of 3 systems"
        assert page.url.endswith("?division=open-source")
        page.get_by_label("Search").fill("nocontext")
        assert systems(page) == [NONE]
        sort_by(page, "system")
        page.get_by_role("button", name="Clear filters and sorting").click()
        # Waited on from Python: the pages' CSP refuses the eval a string predicate needs.
        page.wait_for_url(lambda url: "?" not in url)
        # Clearing resets the sort too: back to the ranked table as built.
        assert systems(page) == [FULL, WORD, NONE]
        assert page.locator("th[data-key=rank]").get_attribute("aria-sort") == "ascending"
        assert page.locator("th[data-key=system]").get_attribute("aria-sort") is None
        assert watched.problems == []


def test_a_shared_link_restores_filters_and_sorting(chromium: Browser, site: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/index.html?evidence=reproducible_evidence&sort=notes&order=asc")
        assert systems(page) == [NONE, WORD]
        assert page.get_by_label("Evidence").input_value() == "reproducible_evidence"
        assert page.locator("th[data-key=notes]").get_attribute("aria-sort") == "ascending"
        assert page.locator("#showing").text_content() == "Showing 2 of 3 systems"
        page.goto(site + "textual/index.html?division=commercial&evaluation=nonsense")
        assert systems(page) == [FULL]
        assert page.get_by_label("Evaluation").input_value() == ""
        assert watched.problems == []


def test_with_javascript_off_the_full_table_is_there(chromium: Browser, site: str) -> None:
    with browse(chromium, javascript=False) as watched:
        page = watched.page
        page.goto(site + "textual/index.html?division=commercial")
        assert systems(page) == [FULL, WORD, NONE]
        assert page.locator("#filters").is_hidden()
        assert page.locator("#board td.score a").count() == 6
        assert watched.problems == []


def test_no_page_logs_an_error(chromium: Browser, site: str, tree: dict[str, bytes]) -> None:
    pages = sorted(path for path in tree if path.endswith(".html"))
    with browse(chromium) as watched:
        for path in pages:
            watched.page.goto(site + path)
            watched.page.wait_for_load_state("load")
    assert len(pages) > 20 and watched.problems == []
