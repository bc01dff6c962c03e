"""The data files: results per track, trust, sitemap, robots, and the manifest."""

from __future__ import annotations

import csv
import hashlib
import io
import json

from memrank.board.files import data_files, manifest
from memrank.board.model import Board
from tests.board.conftest import make_board


def test_results_csv_lists_rows_with_numbers_and_runs(board: Board) -> None:
    rows = list(csv.DictReader(io.StringIO(data_files(board)["textual/results.csv"].decode())))
    assert [r["system"] for r in rows] == ["alpha", "beta", "gamma"]
    assert rows[0]["demo word-match"] == "0.8"
    assert rows[0]["demo run"] == "runs/0101010101010101/index.html"
    assert rows[1]["locomo word-match"] == "" and rows[1]["overall-mean"] == ""
    assert rows[0]["overall-mean"] == "0.6"


def test_results_csv_text_cannot_become_a_formula() -> None:
    board = make_board(system_names=('=HYPERLINK("http://x")', "+1", "@SUM(A1)"))
    text = data_files(board)["textual/results.csv"].decode()
    systems = [r["system"] for r in csv.DictReader(io.StringIO(text))]
    assert systems == ['\'=HYPERLINK("http://x")', "'+1", "'@SUM(A1)"]


def test_results_json_carries_every_cell_with_measure_decider_and_why(board: Board) -> None:
    data = json.loads(data_files(board)["textual/results.json"])
    assert data["ranked_by"] == "Demo"
    first = data["rows"][0]
    assert first["cells"]["demo"] == {
        "measure": "word-match",
        "decider": "rule",
        "task_id": None,
        "group": None,
        "value": 0.8,
        "why": "mean of 2 tasks",
        "count": None,
        "total": None,
        "run": "runs/0101010101010101/index.html",
    }
    assert data["rows"][1]["cells"]["locomo"] is None
    assert data["rows"][1]["overall"]["value"] is None


def test_an_empty_track_still_has_its_files(board: Board) -> None:
    files = data_files(board)
    assert json.loads(files["coding/results.json"])["rows"] == []
    assert files["coding/results.csv"] == b"rank,system,version,division,evidence,published\n"


def test_sitemap_and_robots_use_the_published_address(board: Board) -> None:
    files = data_files(board)
    sitemap = files["sitemap.xml"].decode()
    assert "<loc>https://example.org/board/</loc>" in sitemap
    assert "<loc>https://example.org/board/runs/0101010101010101/</loc>" in sitemap
    assert "404.html" not in sitemap
    assert b"Sitemap: https://example.org/board/sitemap.xml" in files["robots.txt"]


def test_the_manifest_names_every_file_by_digest(board: Board) -> None:
    files = data_files(board)
    listed = json.loads(manifest(board, files))
    assert listed["files"] == {p: hashlib.sha256(c).hexdigest() for p, c in sorted(files.items())}
    assert [a["artifact_id"][:2] for a in listed["artifacts"]] == ["01", "02", "03", "04"]


def test_trust_json_is_the_trust_facts(board: Board) -> None:
    trust = json.loads(data_files(board)["trust.json"])
    assert trust["version"] == 1 and trust["keys"][0]["roles"] == ["release"]
