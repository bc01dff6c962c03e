"""Hostile text in properly signed artifacts, and raw HTML in docs, rendered in Chromium:
shown as text, never run."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from memrank.board.folder import write
from tests.board.conftest import PAYLOADS, browse, built, files_of, serve


def test_payloads_in_artifacts_render_as_text_and_run_nothing(
    chromium: Browser, hostile: Path, tmp_path: Path
) -> None:
    _, tree = built(hostile)
    write(files_of(tree), tmp_path / "board")
    pages = sorted(path for path in tree if path.endswith(".html"))
    with serve(tmp_path) as base, browse(chromium) as watched:
        page = watched.page
        for path in pages:
            page.goto(base + "board/" + path)
            page.wait_for_load_state("load")
            assert page.evaluate("typeof window.__pwned") == "undefined", path
            images = page.eval_on_selector_all("img", "all => all.map(i => i.src)")
            assert [src.rsplit("/", 1)[-1] for src in images] == (
                ["forest.svg", "matrix.svg"]
                if path.startswith("textual/") and path.count("/") == 2
                else []
            ), path
            scripts = page.eval_on_selector_all("script", "all => all.map(s => s.src)")
            own = {"textual/index.html": "board.js"}
            if path.count("/") == 2 and path.startswith("textual/"):
                own[path] = "compare.js"
            assert scripts == ([base + "board/static/" + own[path]] if path in own else []), path
            hrefs = page.eval_on_selector_all("a", "links => links.map(a => a.href)")
            assert not any(href.startswith("javascript:") for href in hrefs), path
        page.goto(base + "board/textual/index.html")
        shown = page.locator("#board").inner_text()
        assert PAYLOADS["system"] in shown and PAYLOADS["version"] in shown
        page.get_by_label("Search").fill("<script>")
        assert page.locator("#showing").text_content() == "Showing 3 of 3 systems"
        run = next(p for p in pages if p.startswith("runs/"))
        page.goto(base + "board/" + run)
        text = page.locator("main").inner_text()
        assert all(payload in text for payload in PAYLOADS.values())
    assert watched.problems == []


def test_raw_html_in_a_docs_page_shows_as_text(
    chromium: Browser, standard: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "evil.md").write_text(
        "# Evil\n\n<script>window.__pwned = 1</script>\n\n"
        '<img src=x onerror="window.__pwned = 2">\n\n[click](javascript:window.__pwned=3)\n'
    )
    _, tree = built(standard, docs=docs)
    write(files_of(tree), tmp_path / "board")
    with serve(tmp_path) as base, browse(chromium) as watched:
        page = watched.page
        page.goto(base + "board/docs/evil/index.html")
        article = page.locator("article")
        assert "<script>window.__pwned = 1</script>" in article.inner_text()
        assert '<img src=x onerror="window.__pwned = 2">' in article.inner_text()
        assert article.locator("a").count() == 0 and page.locator("img").count() == 0
        assert page.evaluate("typeof window.__pwned") == "undefined"
    assert watched.problems == []
