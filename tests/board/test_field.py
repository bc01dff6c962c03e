"""The field's published numbers: artifacts/field.toml checked field by field, and a page beside
the board's columns that lists every number with its protocol and a link to its source."""

from __future__ import annotations

import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from memrank.board import urls
from memrank.board.field import FIELD_TOML, load_field
from memrank.board.folder import write
from memrank.board.model import Board
from memrank.errors import BoardConfigError
from tests.board.conftest import REPOSITORY, browse, built, files_of, serve
from tests.board.test_accessibility import AXE, WIDTHS, described, scrolls_sideways, violations

COMMITTED = REPOSITORY / "artifacts" / FIELD_TOML

ONE = """
[[published]]
benchmark = "LoCoMo"
system = "Mem0"
accuracy = "66.88"
metric = "LLM-as-a-Judge accuracy (J)"
answer_model = "gpt-4o-mini"
judge_model = "gpt-4o-mini"
questions = 1540
question_set = "categories 1-4"
source = "Mem0 paper, Table 2"
source_url = "https://arxiv.org/abs/2504.19413"
"""


@pytest.fixture(scope="module")
def with_field(
    standard: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Board, dict[str, bytes]]:
    """The standard board with the committed field.toml beside its artifacts."""
    artifacts = Path(shutil.copytree(standard, tmp_path_factory.mktemp("field") / "artifacts"))
    shutil.copy(COMMITTED, artifacts / FIELD_TOML)
    return built(artifacts)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def test_the_page_lists_every_number_with_its_protocol_and_a_link_to_its_source(
    with_field: tuple[Board, dict[str, bytes]],
) -> None:
    _, tree = with_field
    page = tree[urls.FIELD].decode()
    expected = load_field(COMMITTED)
    assert expected is not None
    bodies = re.findall(r"<tbody>(.*?)</tbody>", page, re.DOTALL)
    rows = [row for body in bodies for row in body.split("<tr>")[1:]]
    numbers = [number for group in expected.benchmarks for number in group.numbers]
    assert len(rows) == len(numbers) >= 15
    for row, number in zip(rows, numbers, strict=True):
        shown = _text(row)
        for part in (number.system, f"{number.accuracy}%", number.metric, number.answer_model):
            assert part in shown, (part, shown)
        assert number.judge_model in shown and f"{number.questions:,}" in shown
        assert f'<a href="{number.source_url}" rel="nofollow noopener">' in row
        assert number.source in shown
    for group in expected.benchmarks:
        assert f"<bdi>{group.benchmark}</bdi></h2>" in page
    # It says plainly what the numbers are not, and that the board does not rank them.
    prose = _text(page)
    assert "The board does not rank them" in prose
    for reason in ("score answers; the board scores recall", "answer model and the judge",
                   "The prompts differ", "The questions differ", "Nothing here is signed"):  # fmt: skip
        assert reason in prose, reason


def test_the_page_is_linked_from_the_home_page_every_footer_and_the_sitemap(
    with_field: tuple[Board, dict[str, bytes]],
) -> None:
    _, tree = with_field
    assert (
        'href="field/index.html">The field\'s published numbers</a>'
        in tree[urls.INDEX].decode().split('id="field-heading"', 1)[1]
    )
    pages = [path for path in tree if path.endswith(".html") and path != urls.NOT_FOUND]
    for path in pages:
        footer = tree[path].decode().split('<footer class="site-footer">', 1)[1]
        assert f'href="{urls.href(path, urls.FIELD)}"' in footer, path
    assert b"https://example.org/board/field/</loc>" in tree[urls.SITEMAP]


def test_without_the_file_there_is_no_page_and_no_link_to_one(tree: dict[str, bytes]) -> None:
    assert urls.FIELD not in tree
    link = re.compile(rb'href="(\.\./)*' + re.escape(urls.FIELD.encode()))
    assert not any(link.search(content) for content in tree.values())


def test_the_page_reads_in_a_browser_at_both_widths_without_an_accessibility_fault(
    with_field: tuple[Board, dict[str, bytes]],
    chromium: Browser,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    _, tree = with_field
    root = tmp_path_factory.mktemp("field-served")
    write(files_of(tree), root / "board")
    with serve(root) as base, browse(chromium) as watched:
        page = watched.page
        page.goto(base + "board/" + urls.INDEX)
        page.get_by_role("link", name="The field's published numbers").first.click()
        page.wait_for_url(re.compile(r"field/index\.html$"))
        for width in WIDTHS.values():
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(base + "board/" + urls.FIELD)
            sources = page.get_by_role("link", name=re.compile("Mem0 paper"))
            assert sources.count() == 8 and sources.first.is_visible()
            page.evaluate(AXE)
            assert described(f"{urls.FIELD} at {width}", violations(page)) == []
            assert not scrolls_sideways(page)
        assert watched.problems == []


ENTRY = ONE.split("\n", 2)[2]
"""The one table's fields, for malformed copies of it."""


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (
            ONE.replace('source_url = "https://arxiv.org/abs/2504.19413"\n', ""),
            "published.0.source_url",
        ),
        (ONE.replace("https://arxiv", "http://arxiv"), "published.0.source_url"),
        (ONE.replace("https://arxiv.org", "https://me:pw@arxiv.org"), "published.0.source_url"),
        (ONE.replace('"66.88"', '"101"'), "published.0.accuracy"),
        (ONE.replace('"66.88"', '"about 67"'), "published.0.accuracy"),
        (ONE.replace('"66.88"', "66.88"), "published.0.accuracy"),
        (ONE.replace("1540", "0"), "published.0.questions"),
        (ONE.replace('judge_model = "gpt-4o-mini"\n', ""), "published.0.judge_model"),
        (ONE + f'note = "{"x" * 401}"\n', "published.0.note"),
        (ONE + "rank = 1\n", "published.0.rank"),
        (ONE + "[[published]]\n" + ENTRY.replace('"LoCoMo"', '""'), "published.1.benchmark"),
        ("", "published"),
        ("[[published]\n", "not valid TOML"),
    ],
)
def test_a_malformed_field_file_is_one_line_naming_the_file_and_the_field(
    tmp_path: Path, text: str, field: str
) -> None:
    path = tmp_path / FIELD_TOML
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BoardConfigError) as raised:
        load_field(path)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ") and field in message, message


def test_the_committed_file_loads_and_every_number_links_its_source() -> None:
    page = load_field(COMMITTED)
    assert page is not None
    numbers = [number for group in page.benchmarks for number in group.numbers]
    assert {group.benchmark for group in page.benchmarks} == {"LoCoMo", "LongMemEval"}
    assert all(number.source_url.startswith("https://") for number in numbers)
    assert load_field(COMMITTED.with_name("absent.toml")) is None
