"""From verified runs to the Board: rows, cells with intervals, tie-aware ranks, overall,
comparisons, evaluation pages, notes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import memrank
from memrank.artifacts import attest
from memrank.board import urls
from memrank.board.build import source_date
from memrank.board.model import Board, Track
from memrank.errors import BoardConfigError
from tests.board.conftest import (
    BOARD_TOML,
    Signed,
    built,
    keys,
    named,
    notes,
    sign_artifacts,
    standard_runs,
    wheel_run,
)


def table(track: Track) -> list[tuple[str | None, str, list[float | None]]]:
    return [
        (
            row.rank.label if row.rank else None,
            row.system,
            [c.value.value if c else None for c in row.cells],
        )
        for row in track.rows
    ]


def test_rows_are_ranked_by_paired_tests_and_tied_where_no_test_separates(board: Board) -> None:
    textual = board.tracks[0]
    assert textual.ranking_column == "Notes"
    # Full and word-overlap tie on Notes (both 1.0): each is at best 1st, at worst 2nd.
    assert table(textual) == [
        ("1–2", "FullContextAdapter", [1.0, 1.0]),
        ("1–2", "WordOverlapAdapter", [0.8, 1.0]),
        ("3", "NoContextAdapter", [0.2, 0.0]),
    ]
    assert [row.rank.shared for row in textual.rows if row.rank] == [True, True, False]
    # The rank and the run page's comparisons come from the same all-pairs test.
    word = next(r for r in board.runs if r.path == textual.rows[1].cells[1].run)
    assert [(c.other.system, c.verdict) for c in word.comparisons] == [
        ("FullContextAdapter", "tie"),
        ("NoContextAdapter", "worse"),
    ]


def test_a_cell_is_the_mean_a_paired_reading_reports_with_its_counts(board: Board) -> None:
    row = next(r for r in board.tracks[0].rows if r.system == "WordOverlapAdapter")
    demo = row.cells[0]
    assert demo is not None and demo.run is not None
    assert (demo.value.value, demo.value.count, demo.value.total) == (0.8, 4, 5)
    assert demo.value.decider.value == "rule" and demo.value.measure == "word-match"
    assert demo.value.why == "mean over 5 task(s)"
    assert demo.bar == pytest.approx(0.8)
    run = next(r for r in board.runs if r.path == demo.run)
    assert run.predicate.evaluation.name == "demo"
    assert run.predicate.system.name == "WordOverlapAdapter"


def test_the_overall_is_the_mean_win_rate_over_the_ranking_columns(board: Board) -> None:
    textual = board.tracks[0]
    assert textual.overall.shown and textual.overall.columns == ("Demo", "Notes")
    assert (textual.overall.covers, textual.overall.rows) == (3, 3)
    overall = {row.system: row.overall for row in textual.rows}
    word = overall["WordOverlapAdapter"]
    assert word is not None and word.run is None and word.interval is None
    # Demo's five tasks are one cluster: its test separates no one, so nobody wins there. On
    # Notes, full-context and word-overlap tie (a tie is not a win) and both beat no-context.
    assert word.value.value == 0.25 and (word.value.count, word.value.total) == (1, 4)
    assert word.value.measure == "mean-win-rate" and word.value.decider.value == "rule"
    assert word.value.why.startswith("won 0 of 2 on Demo, 1 of 2 on Notes: the mean win rate")
    assert "a tie is not a win" in word.value.why
    assert overall["FullContextAdapter"].value.value == 0.25  # type: ignore[union-attr]
    assert overall["NoContextAdapter"].value.value == 0.0  # type: ignore[union-attr]


def test_a_win_is_a_step_of_the_rank_range(board: Board) -> None:
    """With every row covered, a row's wins on a column are the rows its rank range puts
    below it: the Overall reads the very test the rank labels read."""
    textual = board.tracks[0]
    for row in textual.rows:
        assert row.overall is not None and row.overall.value.count is not None
        ranks = [cell.rank for cell in row.cells if cell is not None and cell.rank is not None]
        assert row.overall.value.count == sum(rank.of - rank.worst for rank in ranks)


def test_a_system_missing_a_ranking_column_is_not_ranked_overall(tmp_path: Path) -> None:
    runs = [*standard_runs(), Signed(wheel_run("random", notes()))]
    board, tree = built(sign_artifacts(tmp_path / "artifacts", runs))
    textual = board.tracks[0]
    assert (textual.overall.covers, textual.overall.rows) == (3, 4)
    overall = {row.system: row.overall for row in textual.rows}
    random = overall["RandomAdapter"]
    assert random is not None and random.value.value is None
    assert random.value.why == "no accepted run on Demo, so it is not ranked overall"
    # the others meet the same two opponents on every column, random not among them
    word = overall["WordOverlapAdapter"]
    assert word is not None and (word.value.count, word.value.total) == (1, 4)
    assert "It covers the 3 of 4 rows with a value on every ranking column" in (
        tree["textual/index.html"].decode()
    )


def test_a_track_with_one_ranking_column_says_it_has_no_overall(tmp_path: Path) -> None:
    toml = BOARD_TOML.replace(
        'title = "Demo"\nmeasure = "word-match"\ndirection = "higher"\n',
        'title = "Demo"\nmeasure = "word-match"\ndirection = "higher"\nranking = false\n',
    )
    board, tree = built(sign_artifacts(tmp_path / "artifacts", standard_runs(), toml))
    textual = board.tracks[0]
    assert not textual.overall.shown and textual.overall.columns == ("Notes",)
    assert textual.overall.none == (
        "No Overall column: this track has one ranking column (Notes), so its rank is the "
        "standing; an Overall combines two or more."
    )
    assert all(row.overall is None for row in textual.rows)
    page = tree["textual/index.html"].decode()
    assert textual.overall.none in page and 'data-key="overall"' not in page
    assert "for reference: not a ranking column" in page
    assert textual.overall.none in tree["index.html"].decode()


def test_each_evaluation_page_lists_its_runs_best_first_on_its_own_column(
    tmp_path: Path,
) -> None:
    """A column that does not rank the track lists its page best first by its own values, not
    in the ranking column's order: here A leads on Notes (the ranking column), B on Demo."""
    toml = BOARD_TOML.replace(
        'title = "Demo"\nmeasure = "word-match"\ndirection = "higher"\n',
        'title = "Demo"\nmeasure = "word-match"\ndirection = "higher"\nranking = false\n',
    )
    runs = [
        Signed(named(wheel_run(system, evaluation), name))
        for evaluation, better, worse in (
            (memrank.evaluation("demo"), "B", "A"),
            (notes(), "A", "B"),
        )
        for system, name in (("word-overlap", better), ("no-context", worse))
    ]
    board, _ = built(sign_artifacts(tmp_path / "artifacts", runs, toml))
    assert [row.system for row in board.tracks[0].rows] == ["A", "B"]
    pages = {page.column.evaluation: page for page in board.evaluations}
    assert [link.system for link in pages["notes"].rows] == ["A", "B"]
    assert [link.system for link in pages["demo"].rows] == ["B", "A"]
    for page in pages.values():
        values = [cell.value.value for cell in page.cells]
        assert values == sorted(values, reverse=True)


def test_rank_by_must_name_a_ranking_column(tmp_path: Path) -> None:
    toml = BOARD_TOML.replace(
        'title = "Notes"\nmeasure = "word-match"\ndirection = "higher"\n',
        'title = "Notes"\nmeasure = "word-match"\ndirection = "higher"\nranking = false\n',
    )
    with pytest.raises(BoardConfigError, match="rank_by names 'notes', which is not a ranking"):
        built(sign_artifacts(tmp_path / "artifacts", standard_runs(), toml))


def test_an_overall_table_in_board_toml_is_refused_with_what_replaced_it(tmp_path: Path) -> None:
    toml = BOARD_TOML + '\n[tracks.textual.overall]\nmeasure = "mean-headline"\nhow = "mean"\n'
    with pytest.raises(BoardConfigError, match="overall is no longer configured"):
        built(sign_artifacts(tmp_path / "artifacts", standard_runs(), toml))


def test_divisions_and_evidence_come_from_the_signed_statement(board: Board) -> None:
    rows = {row.system: row for row in board.tracks[0].rows}
    assert rows["FullContextAdapter"].division.value == "commercial"
    assert rows["FullContextAdapter"].evidence.value == "endpoint_observation"
    assert rows["NoContextAdapter"].evidence.value == "reproducible_evidence"


def test_an_empty_track_has_no_rows(board: Board) -> None:
    coding = board.tracks[1]
    assert (coding.name, coding.rows, coding.columns) == ("coding", (), ())


def test_every_run_is_compared_with_the_other_runs_of_its_column(board: Board) -> None:
    shown = [run for run in board.runs if run.headline is not None]
    assert len(shown) == 6
    for run in shown:
        others = {c.other.path for c in run.comparisons}
        same = {
            r.path
            for r in shown
            if r.predicate.evaluation == run.predicate.evaluation and r.path != run.path
        }
        assert others == same
    notes_page = next(e for e in board.evaluations if e.column.evaluation == "notes")
    assert notes_page.path == urls.evaluation("textual", "notes")
    assert [link.system for link in notes_page.rows] == [
        "FullContextAdapter",
        "WordOverlapAdapter",
        "NoContextAdapter",
    ]
    # [i][j] is row j minus row i; the matrix is the one the comparisons read.
    assert notes_page.differences[0].tolist() == [0.0, 0.0, -1.0]
    assert notes_page.p_values[0][1] == 1.0 and notes_page.p_values[0][2] < 0.05


def test_a_cell_carries_its_clustered_interval(board: Board) -> None:
    row = next(r for r in board.tracks[0].rows if r.system == "NoContextAdapter")
    notes_cell = row.cells[1]
    assert notes_cell is not None and notes_cell.interval is not None
    assert notes_cell.interval.clusters == 6
    assert notes_cell.interval.low <= notes_cell.value.value <= notes_cell.interval.high
    demo_cell = row.cells[0]
    # The demo's five tasks are one group: no interval, and the track says why.
    assert demo_cell is not None and demo_cell.interval is None
    assert any(
        n.startswith("Demo: All 5 tasks are in one cluster") for n in board.tracks[0].notices
    )


def test_run_pages_carry_the_verified_facts(board: Board) -> None:
    release = memrank.artifacts.keyid_of(keys()[1].public_key())
    for run in board.runs:
        assert run.key_ids == (release,)
        assert run.predicate.evidence.value != "development_observation"
    demo = next(
        r
        for r in board.runs
        if r.predicate.evaluation.name == "demo" and r.predicate.system.name == "NoContextAdapter"
    )
    assert demo.headline is not None and demo.headline.value.value == 0.2
    assert demo.headline.rank is not None and demo.column == "Demo"
    assert demo.version_shown == f"built into memrank {demo.predicate.pipeline.memrank_version}"
    assert demo.result_url is None and len(demo.result_sha256) == 64
    assert "failure-rate" in {v.measure for v in demo.predicate.summary}


def test_runs_no_table_shows_are_listed_with_the_reason(tmp_path: Path) -> None:
    demo = memrank.evaluation("demo")
    other_version = demo.model_copy(update={"version": "memrank-demo@v0"})
    runs = [
        Signed(wheel_run("word-overlap", demo)),
        Signed(wheel_run("word-overlap", demo)),  # the same row again: the newer one is shown
        Signed(wheel_run("bm25", other_version)),
    ]
    toml = BOARD_TOML.replace('rank_by = "notes"\n', "")
    board, _ = built(sign_artifacts(tmp_path / "artifacts", runs, toml))
    notes_by_system = sorted((link.system, link.note) for link in board.unlisted)
    assert notes_by_system == [
        (
            "BM25Adapter",
            "the Demo column shows memrank-demo@v1+def0; this run is of memrank-demo@v0",
        ),
        (
            "WordOverlapAdapter",
            "the same system version has a newer run of this evaluation, which the table shows",
        ),
    ]
    (row,) = board.tracks[0].rows
    assert row.cells[1] is None  # no notes run: an empty cell, not a zero
    assert row.overall is not None and row.overall.value.value is None
    assert row.overall.value.why == "no accepted run on Notes, so it is not ranked overall"
    assert board.tracks[0].overall.covers == 0


def test_lower_is_better_flips_the_ranking(tmp_path: Path) -> None:
    toml = BOARD_TOML.replace('direction = "higher"', 'direction = "lower"')
    board, _ = built(sign_artifacts(tmp_path / "artifacts", standard_runs(), toml))
    assert [(r.rank.label if r.rank else None, r.system) for r in board.tracks[0].rows] == [
        ("1", "NoContextAdapter"),
        ("2–3", "FullContextAdapter"),  # tied on Notes; then by key
        ("2–3", "WordOverlapAdapter"),
    ]


def test_a_whole_run_headline_is_shown_as_signed_and_ranks_nothing(tmp_path: Path) -> None:
    toml = BOARD_TOML.replace('measure = "word-match"', 'measure = "failure-rate"')
    board, _ = built(sign_artifacts(tmp_path / "artifacts", standard_runs(), toml))
    row = board.tracks[0].rows[0]
    assert row.rank is None
    cell = row.cells[0]
    assert cell is not None and cell.value.why.endswith("traces carry an error")
    assert (cell.value.count, cell.value.total) == (0, 5)


def test_a_headline_the_run_never_measured_is_none_with_the_reason(tmp_path: Path) -> None:
    toml = BOARD_TOML.replace('measure = "word-match"', 'measure = "judge"', 1)
    board, _ = built(sign_artifacts(tmp_path / "artifacts", standard_runs(), toml))
    cell = board.tracks[0].rows[0].cells[0]
    assert cell is not None and cell.value.value is None and cell.bar == 0.0
    assert cell.value.why == "the run carries no value named judge"


def test_a_corrected_run_leaves_the_table_and_says_so(tmp_path: Path) -> None:
    run = wheel_run("word-overlap", notes())
    artifacts = sign_artifacts(tmp_path / "artifacts", [Signed(run, "commercial")])
    (first,) = (artifacts / "runs").glob("*.json")
    correction = attest(
        run,
        "textual",
        "open-source",
        keys()[1],
        artifacts=artifacts,
        supersedes=first.stem,
        issued_at=run.finished + timedelta(hours=1),
    )
    board, _ = built(artifacts)
    (row,) = board.tracks[0].rows
    assert row.division.value == "open-source"
    old = next(r for r in board.runs if r.artifact_id == first.stem)
    assert old.superseded_by == urls.run(correction.artifact_id)
    assert [link.note for link in board.unlisted] == [
        "corrected by a later artifact, which the table shows instead"
    ]
    # A correction is not a second run to compare with.
    assert [len(page.rows) for page in board.evaluations] == [1]
    assert [change.what for change in board.changes] == ["corrected", "added"]


def test_updated_is_source_date_epoch_else_the_newest_attestation(
    board: Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert board.updated == max(run.predicate.issued_at for run in board.runs)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    assert source_date() == datetime(2026, 1, 1, tzinfo=UTC)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(BoardConfigError, match="SOURCE_DATE_EPOCH='yesterday'"):
        source_date()


def _listed_on_page_of(page: int, verdicts: list[str]) -> tuple[list[int], int, int, int]:
    """What the page of run ``page`` lists, the runs best first (``verdicts``: each other run's
    against it, "self" at ``page``), with the whole column's lists worked out at once."""
    from types import SimpleNamespace

    import numpy as np

    from memrank.board.compare import _listed
    from memrank.board.config import Direction

    runs = len(verdicts)
    differences, p_values = np.zeros((runs, runs)), np.ones((runs, runs))
    for m, verdict in enumerate(verdicts):
        if verdict in ("better", "worse"):  # the other's mean minus this one's, and p
            differences[page, m] = 0.1 if verdict == "better" else -0.1
            differences[m, page] = -differences[page, m]
            p_values[page, m] = p_values[m, page] = 0.001
    reading = SimpleNamespace(
        column=SimpleNamespace(direction=Direction.HIGHER),
        differences=differences,
        p_values=p_values,
        ranked=tuple(range(runs)),
        headlines=[
            SimpleNamespace(value=SimpleNamespace(value=1.0 - m / runs)) for m in range(runs)
        ],
    )
    comparisons, *left_out = _listed(reading, list(range(runs)), np.arange(runs))[page]  # type: ignore[arg-type]
    assert [c.verdict for c in comparisons] == [verdicts[c.other] for c in comparisons]
    return [c.other for c in comparisons], *left_out


def test_a_run_page_lists_its_ties_and_the_nearest_separated_runs() -> None:
    from memrank.board.compare import NEAREST

    # the page's run (26) and 53 others best first: 25 better, 3 ties, 25 worse
    verdicts = ["better"] * 25 + ["tie"] + ["self"] + ["tie"] * 2 + ["worse"] * 25
    listed, more_better, more_worse, more_tied = _listed_on_page_of(26, verdicts)
    assert [verdicts[m] for m in listed] == ["better"] * NEAREST + ["tie"] * 3 + ["worse"] * NEAREST
    assert listed[0] == 25 - NEAREST and listed[-1] == 29 + NEAREST - 1
    assert (more_better, more_worse, more_tied) == (25 - NEAREST, 25 - NEAREST, 0)


def test_a_run_page_lists_only_the_nearest_ties_however_many_there_are() -> None:
    from memrank.board.compare import NEAREST

    # 500 runs that no test separates: the page of run 100 lists the NEAREST around it, of
    # two as near the one above first
    listed, more_better, more_worse, more_tied = _listed_on_page_of(
        100, ["tie"] * 100 + ["self"] + ["tie"] * 399
    )
    assert listed == [*range(100 - NEAREST // 2, 100), *range(101, 101 + NEAREST // 2)]
    assert (more_better, more_worse, more_tied) == (0, 0, 499 - NEAREST)


def test_a_run_page_lists_the_tie_above_when_two_are_as_near_and_one_fits() -> None:
    from memrank.board.compare import NEAREST

    # ties on both sides but for the run three above, separated: the nearest ten ties are at
    # distances 1, 1, 2, 2, 3 (below), 4, 4, 5, 5 and then 6, where only the one above fits
    assert NEAREST == 10
    page = 20
    verdicts = ["tie"] * 41
    verdicts[page], verdicts[page - 3] = "self", "better"
    listed, *_ = _listed_on_page_of(page, verdicts)
    ties = [m for m in listed if verdicts[m] == "tie"]
    assert len(ties) == NEAREST and page - 6 in ties and page + 6 not in ties
