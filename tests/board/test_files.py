"""The data files: results per track, trust, sitemap, robots, and the manifest."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from memrank.board import files
from memrank.board.model import Board, EvaluationPage
from tests.board.conftest import Signed, built, notes, sign_artifacts, wheel_run


def rows_of(tree: dict[str, bytes], path: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(tree[path].decode())))


def test_results_csv_lists_rows_with_numbers_and_runs(board: Board, tree: dict[str, bytes]) -> None:
    rows = rows_of(tree, "textual/results.csv")
    assert [(r["rank"], r["rank_worst"], r["system"]) for r in rows] == [
        ("1", "2", "FullContextAdapter"),
        ("1", "2", "WordOverlapAdapter"),
        ("3", "3", "NoContextAdapter"),
    ]
    word_overlap = rows[1]
    assert word_overlap["demo word-match"] == "0.8"
    assert word_overlap["overall mean-win-rate"] == "0.25"
    assert word_overlap["overall why"].startswith("won 0 of 2 on Demo, 1 of 2 on Notes")
    assert word_overlap["control"] == "no"
    assert word_overlap["demo word-match run"] == board.tracks[0].rows[1].cells[0].run  # type: ignore[union-attr]
    assert word_overlap["division"] == "open-source"
    # What docs/board.md promises: who decided it, its counts, why, and the interval.
    assert word_overlap["demo word-match decider"] == "rule"
    assert (word_overlap["demo word-match count"], word_overlap["demo word-match total"]) == (
        "4",
        "5",
    )
    assert word_overlap["demo word-match why"] == "mean over 5 task(s)"
    assert (
        float(word_overlap["notes word-match low"])
        <= 1.0
        <= float(word_overlap["notes word-match high"])
    )
    # The same time format as results.json.
    data = json.loads(tree["textual/results.json"])
    assert word_overlap["published"] == data["rows"][1]["published"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", word_overlap["published"])


def test_results_csv_text_cannot_become_a_formula(tmp_path: Path) -> None:
    run = wheel_run("word-overlap", notes())
    formula = run.model_copy(
        update={"system": run.system.model_copy(update={"name": '=HYPERLINK("http://x")'})}
    )
    _, tree = built(sign_artifacts(tmp_path / "artifacts", [Signed(formula)]))
    (row,) = rows_of(tree, "textual/results.csv")
    assert row["system"] == '\'=HYPERLINK("http://x")'
    assert json.loads(tree["textual/results.json"])["rows"][0]["system"] == formula.system.name


@pytest.mark.parametrize(
    "start", ["\uff1d", "\uff0b", "\uff0d", "\uff20", " =", "\u3000+", "\ufe66"]
)
def test_a_fullwidth_or_spaced_formula_start_is_guarded_too(start: str) -> None:
    assert files._text(f"{start}HYPERLINK(1)").startswith("'")


def test_plain_text_is_not_guarded() -> None:
    assert files._text("Word overlap (v2)") == "Word overlap (v2)"


def test_results_json_carries_every_cell_with_measure_decider_and_why(
    tree: dict[str, bytes],
) -> None:
    data = json.loads(tree["textual/results.json"])
    assert data["ranked_by"] == "Notes"
    word_overlap = data["rows"][1]
    assert word_overlap["system"] == "WordOverlapAdapter"
    demo = word_overlap["cells"]["demo"]
    assert {k: demo[k] for k in ("measure", "decider", "value", "count", "total", "why")} == {
        "measure": "word-match",
        "decider": "rule",
        "value": 0.8,
        "count": 4,
        "total": 5,
        "why": "mean over 5 task(s)",
    }
    assert demo["run"].startswith("runs/")
    assert word_overlap["overall"]["value"] == 0.25
    assert data["overall"] == {
        "title": "Overall",
        "measure": "mean-win-rate",
        "columns": ["Demo", "Notes"],
        "covers": 3,
        "rows": 3,
        "none": "",
    }
    # the signed median retrieve latency of the run on the ranking column, as measured
    assert word_overlap["latency_retrieve_p50_ms"] > 0
    # no model was called: no tokens and no cost, never 0
    assert word_overlap["usage_tokens"] is None and word_overlap["usage_cost_usd"] is None
    assert word_overlap["control"] is False


def test_an_empty_track_still_has_its_files(tree: dict[str, bytes]) -> None:
    assert json.loads(tree["coding/results.json"])["rows"] == []
    assert tree["coding/results.csv"] == (
        b'"rank","rank_worst","system","display_name","version","division","evidence",'
        b'"control","published","latency.retrieve.p50 ms","usage.tokens","usage.cost-usd"\r\n'
    )


def test_sitemap_and_robots_use_the_published_address(board: Board, tree: dict[str, bytes]) -> None:
    sitemap = tree["sitemap.xml"].decode()
    assert "<loc>https://example.org/board/</loc>" in sitemap
    run = board.runs[0].path.removesuffix("index.html")
    assert f"<loc>https://example.org/board/{run}</loc>" in sitemap
    assert "404.html" not in sitemap
    assert b"Sitemap: https://example.org/board/sitemap.xml" in tree["robots.txt"]


def test_the_manifest_names_every_file_by_digest(board: Board, tree: dict[str, bytes]) -> None:
    listed = json.loads(tree["manifest.json"])
    others = {path: content for path, content in tree.items() if path != "manifest.json"}
    assert listed["files"] == {p: hashlib.sha256(c).hexdigest() for p, c in sorted(others.items())}
    assert [a["artifact_id"] for a in listed["artifacts"]] == [r.artifact_id for r in board.runs]


def test_downloads_are_the_signed_bytes(
    board: Board, tree: dict[str, bytes], standard: Path
) -> None:
    for run in board.runs:
        envelope = standard / "runs" / f"{run.artifact_id}.json"
        assert tree[run.envelope_path] == envelope.read_bytes()
        # The result file is never copied into the site: the run page names it by digest.
        assert (standard / "results" / f"{run.result_sha256}.json").exists()
        assert not any(run.result_sha256 in path for path in tree)


def test_trust_json_is_the_trust_root(tree: dict[str, bytes], standard: Path) -> None:
    trust = json.loads(tree["trust.json"])
    assert trust["_type"] == "https://memrank.dev/root/v1" and trust["version"] == 1
    assert set(trust["tracks"]["textual"]["evidence"]) == {
        "reproducible_evidence",
        "endpoint_observation",
    }


@pytest.mark.parametrize("runs", [1, 2, 200, 1_000])
def test_pairs_files_hold_every_pair_once_in_files_of_about_100_kb(runs: int) -> None:
    # Numbers as long as a column's get: four-decimal differences, p with three significant
    # digits down to 1e-300; the picker finds run k's file by compare.json's pairs_from.
    rng = np.random.default_rng(runs)
    differences = np.round(rng.uniform(-1, 1, (runs, runs)), 4)
    p_values = 10.0 ** -rng.uniform(0, 300, (runs, runs))
    page = EvaluationPage.model_construct(
        rows=(None,) * runs,
        data_path="t/e/compare.json",
        pair_differences=differences.tobytes(),
        pair_p_values=p_values.tobytes(),
    )
    made = files._pairs_files(page)
    firsts = files._pairs_from(runs)
    assert set(made) == {f"t/e/pairs/{f}.json" for f in range(len(firsts))}
    assert max((len(content) for content in made.values()), default=0) < 110_000
    seen = 0
    for f, first in enumerate(firsts):
        held = json.loads(made[f"t/e/pairs/{f}.json"])
        assert held["first"] == first
        for k, (difference, p) in enumerate(
            zip(held["difference"], held["p"], strict=True), start=first
        ):
            assert difference == differences[k, k + 1 :].tolist()
            assert p == [float(f"{x:.3g}") for x in p_values[k, k + 1 :]]
            seen += 1
    assert seen == runs - 1
    assert len(made) <= max(1, runs * (runs - 1) // 2 // (files.PAIRS_PER_FILE // 2))
