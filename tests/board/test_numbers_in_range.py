"""Numbers a reader would take for errors, read off every data file and page of the board the
committed artifacts build: an interval outside its measure's range (a recall below 0 or above
1), or a p value printed as 0."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from memrank.board.render import FILTERS
from memrank.board.site import make
from memrank.measures.kinds import declared_range
from tests.board.conftest import DOCS, REPOSITORY, TEMPLATES


@pytest.fixture(scope="module")
def tree() -> dict[str, bytes]:
    return make(REPOSITORY / "artifacts", TEMPLATES, DOCS).files.tree()


def _inside(measure: str, *numbers: float) -> bool:
    low, high = declared_range(measure)
    return all((low is None or n >= low) and (high is None or n <= high) for n in numbers)


def test_every_interval_in_results_json_lies_in_its_measure_s_range(
    tree: dict[str, bytes],
) -> None:
    intervals = 0
    for path in (p for p in tree if p.endswith("results.json")):
        for row in json.loads(tree[path])["rows"]:
            for cell in row["cells"].values():
                if cell is None or cell["low"] is None:
                    continue
                intervals += 1
                assert declared_range(cell["measure"]) != (None, None), cell["measure"]
                assert _inside(cell["measure"], cell["low"], cell["high"]), (path, row["system"])
                assert cell["low"] <= cell["value"] <= cell["high"], (path, row["system"])
    assert intervals > 20


def test_every_interval_in_results_csv_lies_in_its_measure_s_range(tree: dict[str, bytes]) -> None:
    intervals = 0
    for path in (p for p in tree if p.endswith("results.csv")):
        rows = list(csv.DictReader(io.StringIO(tree[path].decode())))
        for header in (h for h in (rows[0] if rows else {}) if h.endswith(" low")):
            measure = header.removesuffix(" low").split(" ")[-1]
            for row in rows:
                if row[header]:
                    intervals += 1
                    low, high = float(row[header]), float(row[header[:-4] + " high"])
                    assert _inside(measure, low, high), (path, row["system"], header)
    assert intervals > 20


def _pairs_by_run(tree: dict[str, bytes], compare: str) -> dict[int, dict[str, list]]:
    """Each ranked run k's pairs with the runs after it, read as the picker reads them."""
    data = json.loads(tree[compare])
    folder = compare.rpartition("/")[0] + f"/{data['pairs']}/"
    found = {}
    for file, first in enumerate(data["pairs_from"]):
        held = json.loads(tree[f"{folder}{file}.json"])
        assert held["first"] == first
        for k in range(first, first + len(held["p"])):
            found[k] = {"p": held["p"][k - first], "difference": held["difference"][k - first]}
    return found


def test_no_compare_data_file_holds_every_pair(tree: dict[str, bytes]) -> None:
    for path in (p for p in tree if p.endswith("compare.json")):
        data = json.loads(tree[path])
        assert "p" not in data and "difference" not in data
        rows = len(data["runs"])
        pairs = _pairs_by_run(tree, path)
        assert sorted(pairs) == list(range(rows - 1))  # every run but the last, once
        for k, held in pairs.items():
            assert len(held["p"]) == len(held["difference"]) == rows - k - 1
        folder = path.rpartition("/")[0] + "/pairs/"
        assert len([p for p in tree if p.startswith(folder)]) == len(data["pairs_from"])


def test_no_p_value_is_printed_as_zero(tree: dict[str, bytes]) -> None:
    ps = []
    for path in (p for p in tree if p.endswith("compare.json")):
        for held in _pairs_by_run(tree, path).values():
            ps += [p for p in held["p"] if p is not None]
    assert ps and all(p > 0 for p in ps)
    printed = 0
    for path in (p for p in tree if p.startswith("runs/") and p.endswith(".html")):
        page = tree[path].decode()
        table = page.partition('id="comparisons-heading"')[2].partition("</table>")[0]
        # each row: the other system, its mean, the difference, then p
        for p in re.findall(r"^<tr><th scope=\"row\">.*<td>(.*)$", table, re.MULTILINE):
            printed += 1
            assert p == "&lt; 0.001" or float(p) > 0, (path, p)
    assert printed > 20
    assert FILTERS["p"](0.0) == "< 0.001" and FILTERS["p"](0.0123) == "0.012"
