"""artifacts/systems.toml: curated identities joined to signed rows by system name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memrank.board.identity import load_identities
from memrank.errors import BoardConfigError
from tests.board.conftest import built

SYSTEMS = """
[systems.WordOverlapAdapter]
display_name = "Word overlap"
organisation = "memrank (baseline)"
homepage = "https://example.org/word-overlap"
licence = "Apache-2.0"
description = "Ranks documents by shared words."
"""


def test_a_row_shows_its_curated_identity_and_never_in_process(
    standard: Path, tmp_path: Path
) -> None:
    artifacts = Path(shutil.copytree(standard, tmp_path / "artifacts"))
    (artifacts / "systems.toml").write_text(SYSTEMS)
    board, tree = built(artifacts)
    rows = {row.system: row for row in board.tracks[0].rows}
    word = rows["WordOverlapAdapter"]
    assert word.identity is not None and word.identity.display_name == "Word overlap"
    assert rows["NoContextAdapter"].identity is None  # not in the file: its signed name alone
    track = tree["textual/index.html"].decode()
    assert '<span class="system-name"><bdi>Word overlap</bdi></span>' in track
    run = next(r for r in board.runs if r.predicate.system.name == "WordOverlapAdapter")
    page = tree[run.path].decode()
    assert 'href="https://example.org/word-overlap"' in page and "Apache-2.0" in page
    # The built-in systems sign "in-process" as their version: that is where they ran.
    for path, content in tree.items():
        if path.endswith(".html"):
            assert b"in-process</bdi></span>" not in content, path
    assert "built into memrank" in track


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ('display_name = "x"\nhomepage = "javascript:alert(1)"', "homepage"),
        ('organisation = "no name"', "display_name"),
        ('display_name = "x"\nslogan = "best"', "slogan"),
    ],
)
def test_a_bad_entry_names_the_file_and_field(tmp_path: Path, entry: str, field: str) -> None:
    path = tmp_path / "systems.toml"
    path.write_text(f"[systems.Some]\n{entry}\n")
    with pytest.raises(BoardConfigError, match=rf"systems\.toml: systems\.Some: .*{field}"):
        load_identities(path)


def test_no_systems_file_names_no_one(tmp_path: Path) -> None:
    assert load_identities(tmp_path / "systems.toml") == {}


@pytest.mark.parametrize(
    "homepage",
    [
        "https://user:secret@example.org/",
        "https://example.org@evil.example/",
        "http://example.org/",
        "ftp://example.org/",
        "https:///no-host",
    ],
)
def test_a_homepage_is_plain_https_without_userinfo(tmp_path: Path, homepage: str) -> None:
    path = tmp_path / "systems.toml"
    path.write_text(f'[systems.Some]\ndisplay_name = "x"\nhomepage = "{homepage}"\n')
    with pytest.raises(BoardConfigError, match=r"systems\.Some: homepage"):
        load_identities(path)


# (a Cyrillic letter among Latin ones is refused before, for mixing scripts: test_lookalikes.py)
@pytest.mark.parametrize("second", ["Word overlap", "\uff37ord overlap", "Word overIap"])
def test_two_systems_under_one_display_name_are_refused_naming_both(
    tmp_path: Path, second: str
) -> None:
    path = tmp_path / "systems.toml"
    path.write_text(
        f'{SYSTEMS}\n[systems.NoContextAdapter]\ndisplay_name = "{second}"\n', encoding="utf-8"
    )
    with pytest.raises(
        BoardConfigError, match=r"systems\.WordOverlapAdapter and systems\.NoContextAdapter"
    ):
        load_identities(path)
