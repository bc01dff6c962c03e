"""The board's data files: results.csv and results.json per track, trust.json, sitemap.xml,
robots.txt, and manifest.json listing every other file with its sha256.

Everything is sorted and serialised the same way every time, so two builds of the same
artifacts are byte-identical.
"""

from __future__ import annotations

import csv
import hashlib
import io
from typing import Any
from xml.sax.saxutils import escape

from memrank.board import urls
from memrank.board.model import Board, Cell, Track

__all__ = ["data_files", "manifest"]

# A spreadsheet runs text that starts with one of these as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def data_files(board: Board) -> dict[str, bytes]:
    """Every data file except the manifest, by root-relative path."""
    files: dict[str, bytes] = {}
    for track in board.tracks:
        files[track.csv_path] = _track_csv(track)
        files[track.json_path] = _json(_track_json(track))
    files[urls.TRUST] = _json(board.trust.model_dump(mode="json", by_alias=True))
    files[urls.SITEMAP] = _sitemap(board)
    files[urls.ROBOTS] = (
        f"User-agent: *\nAllow: /\n\nSitemap: {board.base_url}{urls.SITEMAP}\n".encode()
    )
    return files


def manifest(board: Board, files: dict[str, bytes]) -> bytes:
    """What the site was built from (the accepted artifacts) and what it holds (every file)."""
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
                    "issued_at": run.predicate.issued_at,
                    "page": run.path,
                }
                for run in board.runs
            ],
            "files": {path: hashlib.sha256(files[path]).hexdigest() for path in sorted(files)},
        }
    )


def _json(data: Any) -> bytes:
    import orjson

    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"


def _cell_json(cell: Cell | None) -> dict[str, Any] | None:
    if cell is None:
        return None
    return {**cell.value.model_dump(mode="json"), "run": cell.run}


def _track_json(track: Track) -> dict[str, Any]:
    return {
        "track": track.name,
        "title": track.title,
        "columns": [column.model_dump(mode="json") for column in track.columns],
        "overall": track.overall.model_dump(mode="json") if track.overall else None,
        "ranked_by": track.ranking_column,
        "rows": [
            {
                "rank": row.rank,
                "system": row.system,
                "version": row.version,
                "division": row.division.value,
                "evidence": row.evidence.value,
                "published": row.published,
                "cells": {
                    column.evaluation: _cell_json(cell)
                    for column, cell in zip(track.columns, row.cells, strict=True)
                },
                "overall": _cell_json(row.overall),
            }
            for row in track.rows
        ],
    }


def _text(value: str | None) -> str:
    """A text field as a spreadsheet will show it rather than run it."""
    if value and value.startswith(_FORMULA_START):
        return "'" + value
    return value or ""


def _track_csv(track: Track) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["rank", "system", "version", "division", "evidence", "published"]
    for column in track.columns:
        header += [f"{column.evaluation} {column.measure}", f"{column.evaluation} run"]
    if track.overall is not None:
        header.append(track.overall.measure)
    writer.writerow(header)
    for row in track.rows:
        line = [
            "" if row.rank is None else str(row.rank),
            _text(row.system),
            _text(row.version),
            row.division.value,
            row.evidence.value,
            row.published.strftime("%Y-%m-%dT%H:%M:%SZ"),
        ]
        for cell in row.cells:
            line += [_number(cell), (cell.run or "") if cell else ""]
        if track.overall is not None:
            line.append(_number(row.overall))
        writer.writerow(line)
    return out.getvalue().encode("utf-8")


def _number(cell: Cell | None) -> str:
    """A cell's number, full precision; empty where there is no run or no decided value."""
    if cell is None or cell.value.value is None:
        return ""
    return repr(cell.value.value)


def _sitemap(board: Board) -> bytes:
    pages = [urls.INDEX]
    pages += [track.path for track in board.tracks]
    pages += [run.path for run in board.runs]
    pages += [pair.path for pair in board.pairs]
    pages += [doc.path for doc in board.docs]
    lines = ['<?xml version="1.0" encoding="UTF-8"?>']
    lines.append('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')
    for path in sorted(pages):
        location = board.base_url + path.removesuffix(urls.INDEX)
        lines.append(f"  <url><loc>{escape(location)}</loc></url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode("utf-8")
