"""The board's data files: results.csv and results.json per track, each evaluation's plots and
compare-two data, the changes feed, trust.json, sitemap.xml, robots.txt, and manifest.json
listing every other file with its sha256.

Everything is sorted and serialised the same way every time, so two builds of the same
artifacts are byte-identical.
"""

from __future__ import annotations

import csv
import io
import itertools
import unicodedata
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from memrank.board import urls
from memrank.board.changelog import feed
from memrank.board.folder import Part
from memrank.board.memo import NO_MEMO, Memo, pack_files, unpack_files
from memrank.board.model import Board, Cell, EvaluationPage, Rank, Track
from memrank.board.svg import forest, matrix
from memrank.board.text import visible
from memrank.stats import LEVEL

__all__ = ["data_parts", "manifest"]

# A spreadsheet runs text that starts with one of these as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "|", "%")
# Line breaks a spreadsheet (or a naive reader) may take for the end of a row, even in quotes.
_BREAKS = str.maketrans({c: f"⟨U+{ord(c):04X}⟩" for c in "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"})
_TIME = "%Y-%m-%dT%H:%M:%SZ"
"""One time format for results.csv and results.json."""


def data_parts(board: Board, memo: Memo = NO_MEMO) -> list[Part]:
    """Every data file except the manifest, as parts of the site, heaviest first: each
    evaluation's plots and compare-two data (from ``memo`` when an earlier build made them of
    the same page), then the rest."""
    parts: list[Part] = [partial(_evaluation_files, page, memo) for page in board.evaluations]
    return [*parts, partial(_board_files, board)]


def _board_files(board: Board) -> dict[str, bytes]:
    """Each track's results, the changes feed, trust.json, the sitemap and robots.txt."""
    files: dict[str, bytes] = {}
    for track in board.tracks:
        files[track.csv_path] = _track_csv(track)
        files[track.json_path] = _json(_track_json(track))
    files[urls.FEED] = feed(board)
    files[urls.TRUST] = _json(board.trust.model_dump(mode="json", by_alias=True))
    files[urls.SITEMAP] = _sitemap(board)
    files[urls.ROBOTS] = (
        f"User-agent: *\nAllow: /\n\nSitemap: {board.base_url}{urls.SITEMAP}\n".encode()
    )
    return files


def _evaluation_files(page: EvaluationPage, memo: Memo) -> dict[str, bytes]:
    packed = memo.through(
        lambda: ("evaluation files", page.made_from),
        lambda: pack_files(
            {
                page.forest_path: forest(page),
                page.matrix_path: matrix(page),
                page.forest_narrow_path: forest(page, narrow=True),
                page.matrix_narrow_path: matrix(page, narrow=True),
                page.data_path: _json(_compare_json(page), indent=False),
                **_pairs_files(page),
            }
        ),
    )
    return unpack_files(packed)


def _pairs_path(page: EvaluationPage, file: int) -> str:
    """The ``file``-th file of the column's pairs, beside compare.json."""
    return page.data_path.rpartition("/")[0] + f"/{PAIRS_FOLDER}/{file}.json"


PAIRS_FOLDER = "pairs"
"""compare.json holds the runs; pairs/<f>.json the pairs of a run of consecutive ranked runs
k with every later run, so no file holds every pair (a column of 200 runs: 4 files, not one of
400 KB), nor is there a file per run (3,000 small files at 1,000 runs x 3, each a file to
create and, when one run is added, to write again)."""
PAIRS_PER_FILE = 6_000
"""The most pairs a pairs file holds (about 100 KB), unless one run alone has more."""


def manifest(board: Board, digests: Mapping[str, str]) -> bytes:
    """What the site was built from (the accepted artifacts) and what it holds (every other
    file, with its sha256 from ``digests``)."""
    return _json(
        {
            "artifacts": [
                {
                    "artifact_id": run.artifact_id,
                    "track": run.predicate.track,
                    "evaluation": run.predicate.evaluation.name,
                    "evaluation_version": run.predicate.evaluation.version,
                    "system": run.predicate.system.name,
                    "version": run.predicate.system.version,
                    "issued_at": run.predicate.issued_at.strftime(_TIME),
                    "page": run.path,
                }
                for run in board.runs
            ],
            "files": {path: digests[path] for path in sorted(digests)},
        }
    )


def _json(data: Any, *, indent: bool = True) -> bytes:
    """Sorted keys; indented for reading, except the compare-two data, which has a number per
    pair of runs and is read by a script."""
    import orjson

    option = orjson.OPT_SORT_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    return orjson.dumps(data, option=option) + b"\n"


def _rank_json(rank: Rank | None) -> dict[str, int] | None:
    return None if rank is None else {"best": rank.best, "worst": rank.worst, "of": rank.of}


def _cell_json(cell: Cell | None) -> dict[str, Any] | None:
    if cell is None:
        return None
    interval = cell.interval
    return {
        **cell.value.model_dump(mode="json"),
        "low": interval.low if interval else None,
        "high": interval.high if interval else None,
        "interval": interval.method if interval else None,
        "rank": _rank_json(cell.rank),
        "run": cell.run,
    }


def _track_json(track: Track) -> dict[str, Any]:
    return {
        "track": track.name,
        "title": track.title,
        "columns": [column.model_dump(mode="json") for column in track.columns],
        "overall": track.overall.model_dump(mode="json"),
        "ranked_by": track.ranking_column,
        "rows": [
            {
                "rank": _rank_json(row.rank),
                "system": row.system,
                "display_name": row.identity.display_name if row.identity else None,
                "version": row.version,
                "division": row.division.value,
                "evidence": row.evidence.value,
                "control": row.control,
                "published": row.published.strftime(_TIME),
                "cells": {
                    column.evaluation: _cell_json(cell)
                    for column, cell in zip(track.columns, row.cells, strict=True)
                },
                "overall": _cell_json(row.overall),
                "latency_retrieve_p50_ms": row.latency_ms,
                "usage_tokens": row.tokens,
                "usage_cost_usd": row.cost_usd,
            }
            for row in track.rows
        ],
    }


def _compare_json(page: EvaluationPage) -> dict[str, Any]:
    """What the compare-two picker reads first: each ranked run; the picker then reads the
    pairs of the better-placed of the two from its pairs file (``_pairs_files``)."""
    return {
        "evaluation": page.column.evaluation,
        "measure": page.column.measure,
        "direction": page.column.direction.value,
        "level": LEVEL,
        "pairs": PAIRS_FOLDER,
        "pairs_from": _pairs_from(len(page.rows)),
        "runs": [
            {
                "name": link.display,
                "version": link.version_shown,
                "page": link.path,
                "mean": cell.value.value,
                "low": cell.interval.low if cell.interval else None,
                "high": cell.interval.high if cell.interval else None,
                "rank": cell.rank.label if cell.rank else None,
            }
            for link, cell in zip(page.rows, page.cells, strict=True)
        ],
    }


def _pairs_files(page: EvaluationPage) -> dict[str, bytes]:
    """``pairs/<f>.json``: for each ranked run k of file f (from ``pairs_from[f]`` of
    compare.json up to the next file's first), k against each later run j (in rank order): the
    difference, j minus k, over the tasks both decided (four decimals), and p (three
    significant digits, so a small p is never rounded to 0). The pair the other way round is
    the same p and the opposite difference."""
    rows = len(page.rows)
    later = np.triu_indices(rows, 1)  # row by row: k's pairs are a run of them
    differences = _each(page.differences[later], lambda d: round(d, 4))
    p_values = _each(page.p_values[later], lambda p: None if p != p else float(f"{p:.3g}"))
    firsts = _pairs_from(rows)
    files, at = {}, 0
    for file, (first, end) in enumerate(itertools.pairwise([*firsts, rows - 1])):
        data: dict[str, Any] = {"first": first, "difference": [], "p": []}
        for k in range(first, end):
            after = slice(at, at + rows - 1 - k)
            at = after.stop
            data["difference"].append(differences[after])
            data["p"].append(p_values[after])
        files[_pairs_path(page, file)] = _json(data, indent=False)
    return files


def _pairs_from(rows: int) -> list[int]:
    """The first ranked run of each pairs file: consecutive runs, each file holding at most
    ``PAIRS_PER_FILE`` pairs (run k has ``rows - 1 - k``), or one run that alone has more."""
    firsts: list[int] = []
    held = PAIRS_PER_FILE
    for k in range(rows - 1):
        pairs = rows - 1 - k
        if held + pairs > PAIRS_PER_FILE:
            firsts.append(k)
            held = 0
        held += pairs
    return firsts


def _each(values: np.ndarray, rounded: Callable[[float], Any]) -> list[Any]:
    """``rounded`` of each value, worked out once per distinct value (by its bits): a column's
    pairs repeat few values (sums of 0/1 over the same tasks), and there are a million."""
    distinct, where = np.unique(values.view(np.int64), return_inverse=True)
    table = [rounded(value) for value in distinct.view(np.float64).tolist()]
    return [table[i] for i in where.tolist()]


def _text(value: str | None) -> str:
    """A text field as a spreadsheet shows it rather than runs it: no line break inside it
    (shown as ``⟨U+000D⟩``), and a leading ``'`` where it would start a formula or starts
    with a space."""
    text = visible(value or "").translate(_BREAKS)
    # A spreadsheet skips leading spaces and reads a fullwidth ＝ as =: compare the first
    # character that is not a space, in its compatibility form.
    first = text.lstrip()[:1]
    if text[:1].isspace() or unicodedata.normalize("NFKC", first).startswith(_FORMULA_START):
        return "'" + text
    return text


def _track_csv(track: Track) -> bytes:
    """Every field quoted; every text field, headers included, guarded by ``_text``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_ALL)
    header = [
        "rank",
        "rank_worst",
        "system",
        "display_name",
        "version",
        "division",
        "evidence",
        "control",
        "published",
    ]
    parts = ["", "decider", "count", "total", "low", "high", "why", "run"]
    for column in track.columns:
        header += [f"{column.evaluation} {column.measure} {part}".strip() for part in parts]
    if track.overall.shown:
        header += [f"overall {track.overall.measure}", "overall why"]
    header += ["latency.retrieve.p50 ms", "usage.tokens", "usage.cost-usd"]
    writer.writerow([_text(name) for name in header])
    for row in track.rows:
        line = [
            "" if row.rank is None else str(row.rank.best),
            "" if row.rank is None else str(row.rank.worst),
            _text(row.system),
            _text(row.identity.display_name if row.identity else ""),
            _text(row.version),
            row.division.value,
            row.evidence.value,
            "yes" if row.control else "no",
            row.published.strftime(_TIME),
        ]
        for cell in row.cells:
            line += _cell_csv(cell)
        if track.overall.shown:
            line += [_number(row.overall), _text(row.overall.value.why if row.overall else "")]
        line += [_float(row.latency_ms), _float(row.tokens), _float(row.cost_usd)]
        writer.writerow(line)
    return out.getvalue().encode("utf-8")


def _cell_csv(cell: Cell | None) -> list[str]:
    """value, decider, count, total, low, high, why, run page: empty where there is no run."""
    if cell is None:
        return [""] * 8
    value, interval = cell.value, cell.interval
    return [
        _number(cell),
        value.decider.value,
        "" if value.count is None else str(value.count),
        "" if value.total is None else str(value.total),
        "" if interval is None else repr(interval.low),
        "" if interval is None else repr(interval.high),
        _text(value.why),
        cell.run or "",
    ]


def _float(number: float | None) -> str:
    """A whole-run number, full precision; empty where the run records none."""
    return "" if number is None else repr(number)


def _number(cell: Cell | None) -> str:
    """A cell's number, full precision; empty where there is no run or no decided value."""
    if cell is None or cell.value.value is None:
        return ""
    return repr(cell.value.value)


def _sitemap(board: Board) -> bytes:
    pages = [urls.INDEX]
    pages += [track.path for track in board.tracks]
    pages += [run.path for run in board.runs]
    pages += [page.path for page in board.evaluations]
    pages += [history.path for history in board.histories]
    pages.append(urls.CHANGELOG)
    pages += [board.field.path] if board.field else []
    pages += [doc.path for doc in board.docs]
    lines = ['<?xml version="1.0" encoding="UTF-8"?>']
    lines.append('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')
    for path in sorted(pages):
        location = board.base_url + path.removesuffix(urls.INDEX)
        lines.append(f"  <url><loc>{escape(location)}</loc></url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")
