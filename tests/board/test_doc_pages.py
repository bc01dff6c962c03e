"""docs/*.md become board pages with raw HTML shown as text and doc links kept working."""

from __future__ import annotations

from pathlib import Path

from memrank.board.docs import render_docs

DOCS = Path(__file__).parents[2] / "docs"


def test_raw_html_in_a_docs_page_arrives_escaped(tmp_path: Path) -> None:
    (tmp_path / "evil.md").write_text(
        "# Evil\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
        '[click](javascript:alert(3)) and <a href="x">raw link</a>\n'
    )
    (page,) = render_docs(tmp_path)
    assert "<script>" not in page.html and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.html
    assert "<img" not in page.html and "&lt;img src=x onerror=alert(2)&gt;" in page.html
    assert 'href="javascript:' not in page.html and '<a href="x">' not in page.html


def test_links_between_docs_pages_point_at_their_board_pages(tmp_path: Path) -> None:
    (tmp_path / "cli.md").write_text("# The command line\n\nSee [values](methodology.md#values).")
    (tmp_path / "methodology.md").write_text(
        "# Methodology\n\n[cli](cli.md) [readme](../README.md) [web](https://example.org/a.md)"
    )
    cli, methodology = render_docs(tmp_path)
    assert (cli.title, cli.path) == ("The command line", "docs/cli/index.html")
    assert 'href="../../docs/methodology/index.html#values"' in cli.html
    assert 'href="../../docs/cli/index.html"' in methodology.html
    assert 'href="../README.md"' in methodology.html  # not a docs page: left as written
    assert 'href="https://example.org/a.md"' in methodology.html


def test_the_repository_docs_render_with_their_tables() -> None:
    pages = {page.name: page for page in render_docs(DOCS)}
    assert {"cli", "methodology"} <= set(pages)
    # Tables and code blocks scroll sideways when wide, so a keyboard can reach them.
    assert '<table tabindex="0">' in pages["methodology"].html
    assert '<pre><code tabindex="0"' in pages["cli"].html + pages["artifacts"].html
    assert pages["methodology"].title.startswith("Methodology")


def test_no_docs_folder_gives_no_pages(tmp_path: Path) -> None:
    assert render_docs(tmp_path / "absent") == ()
