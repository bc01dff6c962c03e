"""A third-party row names its offline configuration: systems.toml's configuration and
leaves_out, the display-name convention, and the run page's "About this configuration"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from memrank.board.folder import write
from memrank.board.identity import CONFIGURATION_MARK, Identity, load_identities
from memrank.board.model import Board
from memrank.errors import BoardConfigError
from tests.board.conftest import (
    REPOSITORY,
    Signed,
    browse,
    built,
    files_of,
    notes,
    serve,
    sign_artifacts,
    wheel_run,
)
from tests.board.test_accessibility import AXE, described, violations

CONFIGURED = """
[systems.BM25Adapter]
display_name = "BM25 · stemmed, Lucene idf"
organisation = "Example (third party, run in-process)"
homepage = "https://example.org/bm25"
licence = "Apache-2.0"
configuration = "Okapi BM25 over the turns as told, Snowball-stemmed."
leaves_out = "The product's LLM query rewriting and its cross-encoder reranker."

[systems.NoContextAdapter]
display_name = "No context (control)"
organisation = "memrank (control arm)"
"""

THIRD_PARTY = {
    "ChromaMemory": ("Chroma", "Apache-2.0", "https://github.com/chroma-core/chroma"),
    "LanceDBHybrid": ("LanceDB", "Apache-2.0", "https://github.com/lancedb/lancedb"),
    "LangGraphStore": ("LangGraph", "MIT", "https://github.com/langchain-ai/langgraph"),
    "LlamaIndexBM25": ("LlamaIndex", "MIT", "https://github.com/run-llama/llama_index"),
    "Mem0Verbatim": ("Mem0", "Apache-2.0", "https://github.com/mem0ai/mem0"),
    "Hindsight": ("Hindsight", "MIT", "https://github.com/vectorize-io/hindsight"),
    "ActiveMemoryIndex": (
        "ActiveMemoryIndex",
        "MIT",
        "https://github.com/linxuhao/ActiveMemoryIndex",
    ),
}
"""The third-party systems the board shows, by the class their runs record: the product, its
SPDX licence and its homepage (each licence read in the package's metadata or the project)."""


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Board, dict[str, bytes]]:
    """BM25 as a configured third-party row, the no-memory floor as a plain one."""
    artifacts = sign_artifacts(
        tmp_path_factory.mktemp("configured") / "artifacts",
        [Signed(wheel_run("bm25", notes())), Signed(wheel_run("no-context", notes()))],
    )
    (artifacts / "systems.toml").write_text(CONFIGURED, encoding="utf-8")
    return built(artifacts)


def _run_page(configured: tuple[Board, dict[str, bytes]], system: str) -> tuple[str, str]:
    board, tree = configured
    run = next(r for r in board.runs if r.predicate.system.name == system)
    return run.path, tree[run.path].decode()


def test_a_configured_run_page_says_what_was_measured_what_it_leaves_out_and_what_it_signed(
    configured: tuple[Board, dict[str, bytes]],
) -> None:
    board, _ = configured
    _, page = _run_page(configured, "BM25Adapter")
    section = page[page.index('id="configuration-heading"') :].split("</section>")[0]
    assert "About this configuration</h2>" in section
    assert "<bdi>Okapi BM25 over the turns as told, Snowball-stemmed.</bdi>" in section
    assert "<bdi>The product&#39;s LLM query rewriting and its cross-encoder reranker.</bdi>" in (
        section
    )
    run = next(r for r in board.runs if r.predicate.system.name == "BM25Adapter")
    components = run.predicate.system.components
    assert components  # the run signed its settings, and the section shows every one
    for name, part in components.items():
        assert f"<dt><bdi>{name}</bdi></dt><dd><bdi>{part}</bdi></dd>" in section


def test_a_run_page_without_a_configuration_has_no_such_section(
    configured: tuple[Board, dict[str, bytes]],
) -> None:
    _, page = _run_page(configured, "NoContextAdapter")
    assert "About this configuration" not in page and 'id="configuration-heading"' not in page
    assert "About the system" in page  # its identity is still shown


def test_the_configuration_section_reads_in_a_browser_without_an_accessibility_fault(
    configured: tuple[Board, dict[str, bytes]],
    chromium: Browser,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    _, tree = configured
    path, _ = _run_page(configured, "BM25Adapter")
    root = tmp_path_factory.mktemp("configured-served")
    write(files_of(tree), root / "board")
    with serve(root) as base, browse(chromium) as watched:
        page = watched.page
        page.goto(base + "board/" + path)
        heading = page.get_by_role("heading", name="About this configuration")
        assert heading.is_visible()
        section = page.locator("section", has=heading)
        assert section.get_by_text("cross-encoder reranker").is_visible()
        assert section.get_by_text("okapi bm25, k1=1.5, b=0.75, lucene idf").is_visible()
        page.evaluate(AXE)
        assert described(path, violations(page)) == []
        assert watched.problems == []


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ('display_name = "Mem0 · verbatim"\nconfiguration = "verbatim turns"', "leaves_out"),
        ('display_name = "Mem0 · verbatim"\nleaves_out = "LLM extraction"', "configuration"),
        ('display_name = "Mem0"\nconfiguration = "verbatim"\nleaves_out = "LLM"', "display_name"),
        (
            'display_name = "Mem0 · "\nconfiguration = "verbatim"\nleaves_out = "LLM"',
            "display_name",
        ),
        (
            f'display_name = "Mem0 · v"\nconfiguration = "{"x" * 301}"\nleaves_out = "LLM"',
            "configuration",
        ),
        (
            f'display_name = "Mem0 · v"\nconfiguration = "v"\nleaves_out = "{"x" * 301}"',
            "leaves_out",
        ),
    ],
)
def test_a_malformed_configuration_is_one_line_naming_the_file_the_entry_and_the_field(
    tmp_path: Path, entry: str, field: str
) -> None:
    path = tmp_path / "systems.toml"
    path.write_text(f"[systems.Mem0Verbatim]\n{entry}\n", encoding="utf-8")
    with pytest.raises(BoardConfigError) as raised:
        load_identities(path)
    message = str(raised.value)
    assert "\n" not in message
    assert re.match(rf"{re.escape(str(path))}: systems\.Mem0Verbatim: .*{field}", message)


def test_a_display_name_naming_the_configuration_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "systems.toml"
    path.write_text(
        '[systems.Mem0Verbatim]\ndisplay_name = "Mem0 2.2.1 · verbatim, no LLM · MiniLM"\n'
        'configuration = "verbatim turns"\nleaves_out = "LLM fact extraction"\n',
        encoding="utf-8",
    )
    assert load_identities(path)["Mem0Verbatim"].leaves_out == "LLM fact extraction"


@pytest.fixture(scope="module")
def committed() -> dict[str, Identity]:
    return load_identities(REPOSITORY / "artifacts" / "systems.toml")


@pytest.mark.parametrize("system", sorted(THIRD_PARTY))
def test_the_committed_file_names_each_third_party_system_by_its_configuration(
    committed: dict[str, Identity], system: str
) -> None:
    product, licence, homepage = THIRD_PARTY[system]
    identity = committed[system]
    assert (identity.licence, identity.homepage) == (licence, homepage)
    assert identity.configuration and identity.leaves_out
    named, _, configuration = identity.display_name.partition(CONFIGURATION_MARK)
    assert named.startswith(product) and configuration.strip()
    assert identity.display_name != product


def test_every_committed_system_not_memrank_s_own_says_its_configuration(
    committed: dict[str, Identity],
) -> None:
    third_party = {
        name
        for name, identity in committed.items()
        if not identity.organisation.startswith("memrank")
    }
    assert third_party == set(THIRD_PARTY)
    for name in third_party:
        assert committed[name].configuration and committed[name].leaves_out, name
