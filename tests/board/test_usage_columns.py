"""Tokens and cost beside latency, where a run called an answer model or a judge: the signed
whole-run values ``usage.tokens`` and ``usage.cost-usd`` (memrank.answer.usage) of the run on
the ranking column, labelled as the publisher's run measured them, sortable like latency, in
results.json and results.csv; a track whose runs called no model shows no such columns."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from memrank.answer.usage import COST, TOKENS
from memrank.board import build
from memrank.board.folder import write
from memrank.board.model import Board
from memrank.measure import Decider, Value
from memrank.result import Result
from tests.board.conftest import (
    Signed,
    browse,
    built,
    files_of,
    notes,
    serve,
    sign_artifacts,
    wheel_run,
)

WORD, NONE, FULL = "WordOverlapAdapter", "NoContextAdapter", "FullContextAdapter"


def with_usage(result: Result, tokens: float, cost: float | None) -> Result:
    """The run as if an answer model and a judge had been called: its usage as signed values."""
    usage = (
        Value(measure="usage.tokens", decider=Decider.MEMRANK, value=tokens, why="tokens"),
        Value(
            measure="usage.cost-usd",
            decider=Decider.MEMRANK,
            value=cost,
            why="US dollars" if cost is not None else "not known: no listed price",
        ),
    )
    # where a real run has them: after the evaluation's own values, before memrank's
    # failure rate and clock
    values = list(result.values)
    at = next(i for i, v in enumerate(values) if v.measure == "failure-rate")
    return result.model_copy(update={"values": (*values[:at], *usage, *values[at:])})


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Board, dict[str, bytes], Path]:
    evaluation = notes()
    runs = [
        Signed(with_usage(wheel_run("word-overlap", evaluation), 120_000, 0.0421)),
        Signed(with_usage(wheel_run("no-context", evaluation), 9_500, None)),
        Signed(with_usage(wheel_run("full-context", evaluation), 2_400_000, 1.25)),
    ]
    folder = tmp_path_factory.mktemp("usage")
    board, tree = built(sign_artifacts(folder / "artifacts", runs))
    return board, tree, folder


def test_rows_carry_the_signed_usage_of_their_ranking_run(
    made: tuple[Board, dict[str, bytes], Path],
) -> None:
    board, tree, _ = made
    textual = board.tracks[0]
    assert textual.usage
    usage = {row.system: (row.tokens, row.cost_usd) for row in textual.rows}
    assert usage == {WORD: (120_000, 0.0421), NONE: (9_500, None), FULL: (2_400_000, 1.25)}
    page = tree["textual/index.html"].decode()
    assert "answer model and judge, in and out, on the publisher's run" in page
    assert "US$ at listed prices, on the publisher's run" in page
    assert ">120,000</td>" in page and ">$0.04</td>" in page and ">none</td>" in page
    data = {r["system"]: r for r in json.loads(tree["textual/results.json"])["rows"]}
    assert (data[WORD]["usage_tokens"], data[WORD]["usage_cost_usd"]) == (120_000, 0.0421)
    assert data[NONE]["usage_cost_usd"] is None  # unknown, never 0
    rows = {
        r["system"]: r for r in csv.DictReader(io.StringIO(tree["textual/results.csv"].decode()))
    }
    assert (rows[FULL]["usage.tokens"], rows[FULL]["usage.cost-usd"]) == ("2400000.0", "1.25")
    assert rows[NONE]["usage.cost-usd"] == ""


def test_a_track_whose_runs_called_no_model_shows_no_usage_columns(
    board: Board, tree: dict[str, bytes]
) -> None:
    assert not board.tracks[0].usage
    assert 'data-key="tokens"' not in tree["textual/index.html"].decode()
    assert 'data-key="latency"' in tree["textual/index.html"].decode()


@pytest.fixture(scope="module")
def site(made: tuple[Board, dict[str, bytes], Path]) -> Iterator[str]:
    _, tree, folder = made
    write(files_of(tree), folder / "served" / "board")
    with serve(folder / "served") as base:
        yield base + "board/"


@pytest.mark.parametrize("key", ["tokens", "cost"])
def test_tokens_and_cost_sort_like_latency(chromium: Browser, site: str, key: str) -> None:
    with browse(chromium) as watched:
        page = watched.page
        page.goto(site + "textual/index.html")
        header = page.locator(f"th[data-key={key}]")
        header.get_by_role("button").click()
        assert header.get_attribute("aria-sort") == "ascending"
        names = page.locator("#board tbody tr .system-name").all_text_contents()
        # cheapest first; a cost nobody could price goes last, whichever the order
        assert names == ([NONE, WORD, FULL] if key == "tokens" else [WORD, FULL, NONE])
        header.get_by_role("button").click()
        names = page.locator("#board tbody tr .system-name").all_text_contents()
        assert names == ([FULL, WORD, NONE] if key == "tokens" else [FULL, WORD, NONE])
        assert page.url.endswith(f"?sort={key}&order=desc")
    assert watched.problems == []


def test_the_board_reads_the_names_the_usage_measure_signs() -> None:
    assert (build.TOKENS, build.COST) == (TOKENS, COST)
