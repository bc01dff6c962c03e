"""One URL builder: slugs are safe, stable and collision-free; links are relative."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memrank.board import urls

SAFE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def test_a_name_already_safe_is_its_own_slug() -> None:
    assert urls.slug("word-overlap") == "word-overlap"


def test_look_alike_names_get_different_slugs() -> None:
    names = ["Mem 0", "mem-0", "mem_0", "MEM-0", "mem--0"]
    assert len({urls.slug(name) for name in names}) == len(names)


@given(st.text(max_size=80))
def test_every_slug_is_a_safe_path_segment(text: str) -> None:
    assert SAFE.fullmatch(urls.slug(text))


@given(st.text(max_size=40), st.text(max_size=40))
def test_different_names_never_share_a_slug(a: str, b: str) -> None:
    if a != b:
        assert urls.slug(a) != urls.slug(b)


def test_scripting_text_cannot_reach_a_path() -> None:
    slug = urls.slug("javascript:alert(1)//<script>")
    assert ":" not in slug and "<" not in slug and "/" not in slug


def test_runs_are_addressed_by_the_first_16_hex_digits() -> None:
    artifact = "0123456789abcdef" * 4
    assert urls.run(artifact) == "runs/0123456789abcdef/index.html"
    assert urls.evaluation("textual", "LoCoMo 10") == "textual/locomo-10-21dd9ca3/index.html"
    with pytest.raises(ValueError, match="64 lower-case hex"):
        urls.run("../../etc/passwd")


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("index.html", "static/board.css"),
        ("textual/index.html", "../static/board.css"),
        ("textual/notes/index.html", "../../static/board.css"),
    ],
)
def test_links_are_relative_to_the_page(page: str, expected: str) -> None:
    assert urls.href(page, urls.static("board.css")) == expected


_SEGMENT = st.sampled_from(["runs", "abc123", "demo", "index.html", "static", "a"])


@given(st.lists(_SEGMENT, min_size=1, max_size=4), st.lists(_SEGMENT, min_size=1, max_size=4))
def test_beside_leads_from_the_page_to_the_target(target: list[str], page: list[str]) -> None:
    import posixpath

    here, there = "/".join(page), "/".join(target)
    link = urls.beside(there, here)
    assert posixpath.normpath(posixpath.join(posixpath.dirname(here), link)) == there
    if not here.startswith(there + "/"):  # a page's own folder is never a link target
        assert link == posixpath.relpath(there, posixpath.dirname(here) or ".")
