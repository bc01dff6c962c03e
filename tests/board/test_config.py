"""board.toml: tracks, columns, directions, and an overall only where the file says how."""

from __future__ import annotations

from pathlib import Path

import pytest

from memrank.board.config import Direction, load
from memrank.errors import BoardConfigError

SITE = """
[site]
title = "board"
description = "runs"
base_url = "https://example.org/board/"
"""

TRACK = """
[tracks.textual]
title = "Textual"
description = "Conversation memory."

[[tracks.textual.columns]]
evaluation = "demo"
version = "memrank-demo@v1+def0"
title = "Demo"
measure = "word-match"
direction = "higher"

[[tracks.textual.columns]]
evaluation = "locomo"
version = "locomo@v1"
title = "LoCoMo"
measure = "word-match"
direction = "higher"
"""

COLUMN_AGAIN = TRACK[TRACK.index("[[") : TRACK.index("[[", TRACK.index("[[") + 1)]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "board.toml"
    path.write_text(text)
    return path


def test_reads_tracks_in_file_order(tmp_path: Path) -> None:
    extra = '\n[tracks.coding]\ntitle = "Coding"\ndescription = "Repositories."\n'
    config = load(write(tmp_path, SITE + TRACK + extra))
    assert list(config.tracks) == ["textual", "coding"]
    textual = config.tracks["textual"]
    assert [c.evaluation for c in textual.columns] == ["demo", "locomo"]
    assert textual.columns[0].direction is Direction.HIGHER
    assert textual.ranking_columns == textual.columns
    assert textual.ranking_column is textual.columns[0]
    assert config.tracks["coding"].ranking_column is None


def test_ranking_columns_are_every_column_but_those_marked_for_reference(tmp_path: Path) -> None:
    text = (SITE + TRACK).replace('title = "Demo"', 'title = "Demo"\nranking = false', 1)
    textual = load(write(tmp_path, text)).tracks["textual"]
    assert [c.evaluation for c in textual.ranking_columns] == ["locomo"]
    assert textual.ranking_column is textual.columns[1]  # the first ranking column
    refused = text.replace(
        'description = "Conversation memory."', 'description = "x"\nrank_by = "demo"'
    )
    with pytest.raises(BoardConfigError, match="rank_by names 'demo', which is not a ranking"):
        load(write(tmp_path, refused))


def test_an_overall_table_is_refused_saying_what_replaced_it(tmp_path: Path) -> None:
    named = SITE + TRACK + '\n[tracks.textual.overall]\nmeasure = "mean-headline"\nhow = "mean"\n'
    with pytest.raises(BoardConfigError, match=r"tracks\.textual.*no longer configured"):
        load(write(tmp_path, named))


def test_rank_by_must_be_a_column(tmp_path: Path) -> None:
    text = (SITE + TRACK).replace(
        'description = "Conversation memory."', 'description = "x"\nrank_by = "beam"'
    )
    with pytest.raises(BoardConfigError, match="rank_by names 'beam'"):
        load(write(tmp_path, text))
    ranked = (SITE + TRACK).replace(
        'description = "Conversation memory."', 'description = "x"\nrank_by = "locomo"'
    )
    assert load(write(tmp_path, ranked)).tracks["textual"].ranking_column.evaluation == "locomo"


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        (SITE.replace("https://example.org/board/", "example.org"), "site.base_url"),
        (SITE + TRACK.replace('"higher"', '"up"', 1), "direction"),
        (SITE + '[tracks."Text ual"]\ntitle = "t"\ndescription = "d"\n', "lower-case words"),
        (SITE + TRACK + "\nsurprise = 1\n", "Extra inputs are not permitted"),
        (SITE + "[tracks.textual\n", "not valid TOML"),
        (SITE + TRACK + COLUMN_AGAIN, "is a column twice"),
    ],
)
def test_problems_name_the_file_and_field(tmp_path: Path, text: str, complaint: str) -> None:
    with pytest.raises(BoardConfigError, match=complaint) as caught:
        load(write(tmp_path, text))
    assert str(tmp_path / "board.toml") in caught.value.message


def test_a_missing_file_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(BoardConfigError, match="--artifacts"):
        load(tmp_path / "board.toml")
