"""Templates lay the Board out: escaped text, accessible tables, honest empty states."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from memrank.board.model import Board
from memrank.board.render import render_pages, static_files
from memrank.errors import BoardConfigError
from tests.board.conftest import TEMPLATES, make_board

PAYLOADS = ("<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "javascript:alert(3)")


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, in order."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def all(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]


def pages(board: Board) -> dict[str, str]:
    return {path: raw.decode() for path, raw in render_pages(board, TEMPLATES).items()}


def test_every_page_carries_the_policy_and_no_inline_script(board: Board) -> None:
    for path, text in pages(board).items():
        tags = Tags(text)
        (policy,) = [
            m for m in tags.all("meta") if m.get("http-equiv") == "Content-Security-Policy"
        ]
        assert "script-src 'self'" in (policy["content"] or ""), path
        assert "default-src 'none'" in (policy["content"] or ""), path
        assert all(script.get("src") for script in tags.all("script")), path
        assert not any(name.startswith("on") for _, attrs in tags.tags for name in attrs), path


def test_artifact_text_arrives_as_text() -> None:
    why = "</script><script>alert(4)</script>"
    board = make_board(system_names=PAYLOADS, why=why)
    for path, text in pages(board).items():
        tags = Tags(text)
        assert len(tags.all("script")) <= 1, path
        assert not tags.all("img"), path
        hrefs = [attrs.get("href") or "" for attrs in tags.all("a")]
        assert not any(href.startswith("javascript:") for href in hrefs), path
    track = pages(board)["textual/index.html"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in track
    assert "&lt;img src=x onerror=alert(2)&gt;" in track
    assert 'title="&lt;/script&gt;&lt;script&gt;alert(4)&lt;/script&gt;"' in track


def test_no_template_marks_anything_safe() -> None:
    for template in TEMPLATES.rglob("*.html"):
        assert not re.search(r"\|\s*safe\b|autoescape\s+false|Markup", template.read_text()), (
            template
        )


def test_the_track_table_is_accessible(board: Board) -> None:
    tags = Tags(pages(board)["textual/index.html"])
    assert tags.all("caption")
    headers = tags.all("th")
    columns = [h for h in headers if h.get("scope") == "col"]
    assert [h.get("data-key") for h in columns] == [
        "rank",
        "system",
        "demo",
        "locomo",
        "overall",
        "published",
    ]
    assert [h for h in headers if h.get("scope") == "row"].__len__() == 3
    assert columns[0].get("aria-sort") == "ascending"
    assert all(h.get("scope") in {"col", "row"} for h in headers)
    (region,) = [d for d in tags.all("div") if d.get("class") == "table-scroll"]
    assert region.get("role") == "region" and region.get("tabindex") == "0"
    (status,) = [p for p in tags.all("p") if p.get("id") == "showing"]
    assert status.get("aria-live") == "polite"
    (form,) = tags.all("form")
    assert "hidden" in form  # shown by the script; without it there is nothing to operate


def test_a_value_that_could_not_be_decided_reads_none_never_zero(board: Board) -> None:
    track = pages(board)["textual/index.html"]
    beta_row = track[track.index('id="row-b"') : track.index('id="row-c"')]
    assert 'title="no accepted run on LoCoMo">none</span>' in beta_row
    assert "0.000" not in beta_row
    assert beta_row.count("no run") == 1


def test_an_empty_track_says_so_and_ships_no_script(board: Board) -> None:
    coding = pages(board)["coding/index.html"]
    assert "No accepted runs yet" in coding
    assert "<table" not in coding and "<script" not in coding


def test_the_404_page_links_from_the_site_root(board: Board) -> None:
    hrefs = [a.get("href") for a in Tags(pages(board)["404.html"]).all("a")]
    links = Tags(pages(board)["404.html"]).all("link")
    assert "/board/index.html" in hrefs
    assert {link.get("href") for link in links} == {
        "/board/static/board.css",
        "/board/static/favicon.svg",
    }


def test_pages_link_relative_to_where_they_are(board: Board) -> None:
    run = pages(board)["runs/0101010101010101/index.html"]
    assert 'href="../../static/board.css"' in run
    assert 'href="../../runs/0101010101010101/envelope.json" download' in run


def test_a_template_naming_something_undefined_is_an_error(tmp_path: Path, board: Board) -> None:
    for template in TEMPLATES.glob("*.html"):
        (tmp_path / template.name).write_text(template.read_text())
    (tmp_path / "index.html").write_text("{{ board.no_such_thing }}")
    with pytest.raises(BoardConfigError, match=r"template index\.html .*no_such_thing"):
        render_pages(board, tmp_path)


def test_missing_templates_or_assets_say_what_to_pass(tmp_path: Path, board: Board) -> None:
    with pytest.raises(BoardConfigError, match="--templates"):
        render_pages(board, tmp_path / "absent")
    with pytest.raises(BoardConfigError, match="static/"):
        static_files(tmp_path)


def test_static_assets_are_served_under_static() -> None:
    assert set(static_files(TEMPLATES)) == {
        "static/board.css",
        "static/board.js",
        "static/favicon.svg",
    }
