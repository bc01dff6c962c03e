"""Templates lay the Board out: escaped text, accessible tables, honest empty states."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markupsafe import Markup, escape

from memrank.board.model import Board
from memrank.board.render import FILTERS, _escape, page_parts, static_files
from memrank.errors import BoardConfigError
from tests.board.conftest import DOCS, PAYLOADS, TEMPLATES, built


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, in order, and the page's text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def all(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]


def rendered(board: Board, templates: Path) -> dict[str, bytes]:
    """Every page of ``board`` as ``templates`` lay it out, made in this process."""
    return {path: page for part in page_parts(board, templates) for path, page in part().items()}


def pages(tree: dict[str, bytes]) -> dict[str, str]:
    return {path: raw.decode() for path, raw in tree.items() if path.endswith(".html")}


def test_every_page_carries_the_policy_and_no_inline_script(tree: dict[str, bytes]) -> None:
    for path, text in pages(tree).items():
        tags = Tags(text)
        (policy,) = [
            m for m in tags.all("meta") if m.get("http-equiv") == "Content-Security-Policy"
        ]
        assert "default-src 'none'" in (policy["content"] or ""), path
        assert "script-src 'self'" in (policy["content"] or ""), path
        assert all(script.get("src") for script in tags.all("script")), path
        assert not any(name.startswith("on") for _, attrs in tags.tags for name in attrs), path


def test_artifact_text_arrives_as_text(hostile: Path) -> None:
    _, tree = built(hostile)
    rendered = pages(tree)
    for path, text in rendered.items():
        tags = Tags(text)
        assert len(tags.all("script")) <= 1, path  # one of the board's own scripts, nothing else
        # The only images are the board's own plots, beside the evaluation page.
        assert all(
            re.fullmatch(r"\.\./\.\./textual/[a-z0-9-]+/(forest|matrix)\.svg", img["src"] or "")
            for img in tags.all("img")
        ), path
        assert not any(name.startswith("on") for _, attrs in tags.tags for name in attrs), path
        hrefs = [attrs.get("href") or "" for attrs in tags.all("a")]
        assert not any(h.startswith("javascript:") for h in hrefs), path
    texts = {path: "".join(Tags(text).text) for path, text in rendered.items()}
    track = texts["textual/index.html"]
    assert PAYLOADS["system"] in track and PAYLOADS["version"] in track
    run = next(text for path, text in texts.items() if path.startswith("runs/"))
    assert all(payload in run for payload in PAYLOADS.values())
    changes = texts["changes/index.html"]
    assert PAYLOADS["system"] in changes
    # The data files carry the same text as data (JSON escapes nothing it need not).
    results = json.loads(tree["textual/results.json"])
    assert results["rows"][0]["system"].startswith(PAYLOADS["system"])


class _Shown:
    def __html__(self) -> str:
        return "<b>made safe by its own __html__</b>"


class _Named(str):
    pass


@pytest.mark.parametrize(
    "value",
    [
        "",
        "plain",
        "<script>alert('x') & \"y\"</script>",
        "\u202ename \u200b\u00e9\u4e2d",
        _Named("a <str> subclass"),
        Markup("<bdi>already safe</bdi>"),
        _Shown(),
        0.5,
        1986,
        None,
        True,
    ],
)
def test_pages_escape_every_value_as_markupsafe_does(value: object) -> None:
    # The compiled templates escape with the board's own escape (a cheaper call): it must give
    # markupsafe's Markup, character for character, for anything a page can be handed.
    assert type(_escape(value)) is Markup
    assert _escape(value) == escape(value)


def test_no_template_marks_anything_safe() -> None:
    for template in TEMPLATES.rglob("*.html"):
        found = re.search(r"\|\s*safe\b|autoescape\s+false|Markup", template.read_text())
        assert found is None, template


def test_the_track_table_is_accessible(tree: dict[str, bytes]) -> None:
    tags = Tags(pages(tree)["textual/index.html"])
    assert tags.all("caption")
    headers = tags.all("th")
    columns = [h for h in headers if h.get("scope") == "col"]
    keys = [h.get("data-key") for h in columns]
    assert keys == ["rank", "system", "demo", "notes", "overall", "latency", "published"]
    assert len([h for h in headers if h.get("scope") == "row"]) == 3
    assert all(h.get("scope") in {"col", "row"} for h in headers)
    assert columns[0].get("aria-sort") == "ascending"
    (region,) = [d for d in tags.all("div") if "table-scroll" in (d.get("class") or "").split()]
    assert region.get("role") == "region" and region.get("tabindex") == "0"
    (status,) = [p for p in tags.all("p") if p.get("id") == "showing"]
    assert status.get("aria-live") == "polite"
    (form,) = tags.all("form")
    assert "hidden" in form  # the script shows it; without the script there is nothing to run


def test_every_number_names_its_measure_and_decider(tree: dict[str, bytes]) -> None:
    track = pages(tree)["textual/index.html"]
    assert track.count('<span class="decider"><bdi>word-match</bdi> · decided by rule · ') == 6
    assert track.count('<span class="decider"><bdi>mean-win-rate</bdi> · decided by rule · ') == 3
    # Each interval is shown beside its number, and said in words in the cell's details.
    assert track.count('<span class="why">95% interval ') == track.count('class="interval"') == 3


def test_an_empty_track_says_so_and_ships_no_script(tree: dict[str, bytes]) -> None:
    coding = pages(tree)["coding/index.html"]
    assert "No accepted runs yet" in coding and "No evaluation is a column" in coding
    assert "<table" not in coding and "<script" not in coding


def test_the_404_page_links_from_the_site_root(tree: dict[str, bytes]) -> None:
    tags = Tags(pages(tree)["404.html"])
    assert "/board/index.html" in [a.get("href") for a in tags.all("a")]
    assert {link.get("href") for link in tags.all("link")} == {
        "/board/static/board.css",
        "/board/static/favicon.svg",
        "/board/changes/feed.xml",
    }


def test_pages_link_relative_to_where_they_are(board: Board, tree: dict[str, bytes]) -> None:
    run = board.runs[0]
    page = pages(tree)[run.path]
    assert 'href="../../static/board.css"' in page
    assert f'href="../../{run.envelope_path}" download' in page
    assert "result.json" not in page


def test_a_template_naming_something_undefined_is_an_error(tmp_path: Path, board: Board) -> None:
    for template in TEMPLATES.glob("*.html"):
        (tmp_path / template.name).write_text(template.read_text())
    (tmp_path / "index.html").write_text("{{ board.no_such_thing }}")
    with pytest.raises(BoardConfigError, match=r"template index\.html .*no_such_thing"):
        rendered(board, tmp_path)


def test_missing_templates_or_assets_say_what_to_pass(tmp_path: Path, board: Board) -> None:
    with pytest.raises(BoardConfigError, match="--templates"):
        rendered(board, tmp_path / "absent")
    with pytest.raises(BoardConfigError, match="static/"):
        static_files(tmp_path)


def test_static_assets_are_served_under_static() -> None:
    assert set(static_files(TEMPLATES)) == {
        "static/board.css",
        "static/board.js",
        "static/compare.js",
        "static/favicon.svg",
    }


def _theme(tmp_path: Path, run_page: str, piece: str) -> Path:
    """The shipped theme with run.html and a piece it renders through ``fragment`` replaced."""
    for template in TEMPLATES.glob("*.html"):
        (tmp_path / template.name).write_text(template.read_text())
    (tmp_path / "run.html").write_text(run_page)
    (tmp_path / "piece.html").write_text(piece)
    return tmp_path


def test_a_fragment_is_made_of_its_own_values_on_every_page(tmp_path: Path, board: Board) -> None:
    # Kept by its values: a fragment kept by template alone would show the first run's id on
    # every page.
    theme = _theme(tmp_path, '{{ fragment("piece.html", id=run.artifact_id) }}', "<p>{{ id }}</p>")
    pages = rendered(board, theme)
    assert len(board.runs) > 1
    for run in board.runs:
        assert pages[run.path].decode() == f"<p>{run.artifact_id}</p>"


def test_each_run_page_lists_its_own_distributions(board: Board, tree: dict[str, bytes]) -> None:
    for run in board.runs:
        listed = re.search(
            r'<p class="distributions">(.*?)</p>', tree[run.path].decode(), re.DOTALL
        )
        assert listed is not None, run.path
        names = re.findall(r"<code><bdi>(.*?)</bdi></code>", listed.group(1))
        assert names == list(run.predicate.pipeline.distributions), run.path


@pytest.mark.parametrize(
    ("call", "piece", "said"),
    [
        ('fragment("piece.html", ids=[run.artifact_id])', "{{ ids }}", "must be hashable"),
        ('fragment("piece.html", id=run.artifact_id)', "{{ page }}", "'page' is undefined"),
    ],
)
def test_a_fragment_that_could_differ_by_page_is_an_error(
    tmp_path: Path, board: Board, call: str, piece: str, said: str
) -> None:
    theme = _theme(tmp_path, "{{ " + call + " }}", piece)
    with pytest.raises(BoardConfigError, match=rf"template run\.html .*{said}"):
        rendered(board, theme)


def test_the_theme_docs_name_every_filter_a_template_has() -> None:
    """A theme of one's own is written from docs/board.md: it names the board's filters, and
    only those."""
    section = (DOCS / "board.md").read_text().split("### A theme of your own")[1].split("###")[0]
    said = section.split("a template has the board's:")[1].split(". `index.html`")[0]
    named = set(re.findall(r"`([a-z_]+)(?:\(page\))?`", said))
    assert named == set(FILTERS)
