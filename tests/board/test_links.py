"""The committed board links nothing that is not there: every local link and asset of every
page names a file of site/, and every link into the results store names a result file the
store's manifest (artifacts/results-store.json) says it holds."""

from __future__ import annotations

import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from memrank.artifacts import held_by_store, store_of_board
from tests.board.conftest import REPOSITORY

SITE = REPOSITORY / "site"
ARTIFACTS = REPOSITORY / "artifacts"
DIGEST = re.compile(r"[0-9a-f]{64}")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.found.append(value)


def links_of(page: Path) -> list[str]:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.found


def test_every_local_link_of_the_committed_board_names_a_file_of_the_site() -> None:
    pages = sorted(SITE.rglob("*.html"))
    assert len(pages) > 50
    # 404.html is served at any depth, so its links are absolute under the board's base path
    base = urlsplit(tomllib.loads((ARTIFACTS / "board.toml").read_text())["site"]["base_url"]).path
    dead = []
    for page in pages:
        for link in links_of(page):
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or not parts.path:  # elsewhere, or this page
                continue
            path = unquote(parts.path)
            if path.startswith("/"):
                assert path.startswith(base), f"{page}: {link} is outside the base path {base}"
                target = PurePosixPath(path.removeprefix(base))
            else:
                target = PurePosixPath(page.relative_to(SITE).parent.as_posix()) / path
            resolved = (SITE / target).resolve()
            if resolved.is_dir():
                resolved = resolved / "index.html"
            if not resolved.is_file() or SITE.resolve() not in resolved.parents:
                dead.append(f"{page.relative_to(SITE)}: {link}")
    assert not dead, dead[:20]


def test_every_results_store_link_names_a_file_the_store_is_known_to_hold() -> None:
    store = store_of_board(ARTIFACTS)
    held = held_by_store(ARTIFACTS)
    prefix = store.location.split("{sha256}")[0] if store and store.url_template else None
    linked = []
    for page in sorted((SITE / "runs").rglob("index.html")):
        for link in links_of(page):
            if prefix and link.startswith(prefix):
                (digest,) = DIGEST.findall(link)
                linked.append(digest)
                assert digest in held, f"{page}: {link} is not in the store's manifest"
    assert set(linked) <= held


def test_a_run_page_says_how_to_reproduce_it_and_what_built_it() -> None:
    page = next((SITE / "runs").rglob("index.html"))
    text = page.read_text(encoding="utf-8")
    assert f"memrank reproduce {page.parent.name}" in text
    assert "Built from" in text and "a clean tree" in text
