"""Two signed systems whose names read alike (TR39 confusable skeletons of their compatibility
forms) never share a board, nor two versions of one system: the one published first keeps its
row; a look-alike, or a name or version mixing scripts, is refused, and only the home page's
list of refused runs names it (no row, run page, history, change or feed entry)."""

from __future__ import annotations

import functools
from datetime import timedelta
from pathlib import Path

import pytest

from memrank._unicode_security import mixed_scripts, skeleton
from memrank.board import urls
from memrank.board.identity import load_identities
from memrank.board.model import Board
from memrank.board.text import visible
from memrank.errors import BoardConfigError
from memrank.result import Result

from .conftest import Signed, built, named, notes, sign_artifacts, wheel_run


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("BM25Adapter", "BM25Ad\u0430pter"),  # Cyrillic a
        ("memory", "rnemory"),
        ("Il1", "lll"),
        ("BM25", "\uff22\uff2d\uff12\uff15"),  # fullwidth letters and digits
        ("2", "\uff12"),  # a fullwidth version
        ("BM25", "\u0412\u041c25"),  # Cyrillic Ve and Em
        ("v2", "v\u00b2"),  # a superscript two
    ],
)
def test_names_that_read_alike_share_a_skeleton(one: str, other: str) -> None:
    assert skeleton(one) == skeleton(other)


def test_different_names_keep_different_skeletons() -> None:
    assert skeleton("BM25Adapter") != skeleton("BM26Adapter")
    # the board shows a character that draws nothing as ⟨U+034F⟩: that name reads differently
    assert skeleton(visible("BM25\u034fAdapter")) != skeleton("BM25Adapter")
    assert skeleton("WordOverlapAdapter") != skeleton("NoContextAdapter")
    assert skeleton("1.1.0") != skeleton("1.1.1")


@pytest.mark.parametrize(
    ("name", "scripts"),
    [
        ("BM25\u0410dapter", ("Cyrillic", "Latin")),
        ("Alpha \u03b2", ("Greek", "Latin")),
        ("\u8a18 \u041f\u0440\u0438", ("Cyrillic", "Han")),
        ("BM25Adapter", ()),
        ("\u0412\u041c25", ()),  # one script: caught by its skeleton instead
        ("Mem0 2.2.1 \u00b7 verbatim, no LLM \u00b7 MiniLM", ()),  # a middle dot is Latin too
        ("\uff22\uff2d\uff12\uff15", ()),
        ("na\u00efve", ()),
        ("\u8a18\u61b6\u30a8\u30f3\u30b8\u30f3", ()),  # Han with katakana: Japanese
        ("Memory \u8a18\u61b6 \ud55c", ()),  # Latin beside Korean
    ],
)
def test_mixed_scripts_are_named_and_one_writing_system_is_not(
    name: str, scripts: tuple[str, ...]
) -> None:
    assert mixed_scripts(name) == scripts


IDENTITIES = """
[systems.BM25Adapter]
display_name = "BM25"
"""

HOSTILE = {
    "\uff22\uff2d\uff12\uff15": "reads like 'BM25'",  # fullwidth: the display name's skeleton
    "BM25\u0410dapter": "mixes Cyrillic and Latin letters",
    "BM25Ad\u0430pter": "mixes Cyrillic and Latin letters",
    "\u0412\u041c25": "reads like 'BM25'",  # Cyrillic, one script
}
"""Signed system names that read like BM25Adapter (shown as "BM25"), and what refuses each."""


def _versioned(result: Result, version: str) -> Result:
    """The run as another version of its system (started a second earlier: another run id)."""
    return result.model_copy(
        update={
            "system": result.system.model_copy(update={"version": version}),
            "started": result.started - timedelta(seconds=1),
        }
    )


@functools.cache
def _bm25() -> Result:
    return wheel_run("bm25", notes())


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Board, dict[str, bytes]]:
    """BM25Adapter first, then every look-alike of it, a fullwidth version of it, and a
    system that reads like no other."""
    base = _bm25()
    runs = [Signed(base), Signed(wheel_run("word-overlap", notes()))]
    runs += [Signed(named(base, name)) for name in HOSTILE]
    runs.append(Signed(_versioned(base, "\uff12")))  # BM25Adapter version ２, beside 2
    artifacts = sign_artifacts(tmp_path_factory.mktemp("lookalikes") / "artifacts", runs)
    (artifacts / "systems.toml").write_text(IDENTITIES)
    board, tree = built(artifacts)
    return artifacts, board, tree


def test_the_first_system_keeps_its_one_row_and_every_look_alike_is_refused(
    hostile: tuple[Path, Board, dict[str, bytes]],
) -> None:
    _, board, _ = hostile
    rows = [(row.system, row.version) for track in board.tracks for row in track.rows]
    assert sorted(rows) == [("BM25Adapter", "2"), ("WordOverlapAdapter", "in-process")]
    refused = {run.system: run for run in board.refused}
    assert set(refused) == {*HOSTILE, "BM25Adapter"}
    for name, why in HOSTILE.items():
        assert why in refused[name].why, (name, refused[name].why)
    version = refused["BM25Adapter"]
    assert version.version_shown == "\uff12"
    assert "version '\uff12' reads like '2', a version of the same system" in version.why
    assert not board.unlisted  # nothing else is kept off the tables


def test_a_refused_run_has_no_page_history_change_or_feed_entry(
    hostile: tuple[Path, Board, dict[str, bytes]],
) -> None:
    artifacts, board, tree = hostile
    shown = {run.artifact_id for run in board.runs}
    signed = {path.stem for path in (artifacts / "runs").glob("*.json")}
    refused = signed - shown
    assert len(refused) == len(HOSTILE) + 1
    for artifact_id in refused:
        assert not [path for path in tree if artifact_id[:16] in path]
        for path, content in tree.items():
            assert artifact_id[:16].encode() not in content, path
    assert len(board.changes) == 2
    assert len(board.histories) == 2
    feed = tree[urls.FEED].decode()
    pages = [
        tree[path].decode()
        for path in tree
        if path.endswith((".html", ".xml", ".json", ".csv")) and not path.startswith("docs/")
    ]
    for name in HOSTILE:
        # only the home page's list of refused runs names it
        naming = [text for text in pages if visible(name) in text]
        assert naming == [tree["index.html"].decode()], name
        assert name not in feed
    home = tree["index.html"].decode()
    assert "Verified runs the board refuses" in home


def test_a_display_name_mixing_scripts_is_refused_naming_the_file_and_entry(
    tmp_path: Path,
) -> None:
    path = tmp_path / "systems.toml"
    path.write_text('[systems.BM25Adapter]\ndisplay_name = "BM25 \u0410dapter"\n')
    with pytest.raises(BoardConfigError, match=r"systems\.BM25Adapter: display_name .* mixes"):
        load_identities(path)


def test_two_display_names_alike_only_in_their_compatibility_forms_are_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "systems.toml"
    path.write_text(
        '[systems.BM25Adapter]\ndisplay_name = "BM25"\n'
        '[systems.Other]\ndisplay_name = "\uff22\uff2d\uff12\uff15"\n'
    )
    with pytest.raises(BoardConfigError, match="names that read alike"):
        load_identities(path)
