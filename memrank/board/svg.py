"""Static plots of an evaluation page, drawn once at build time: a forest plot (each system's
mean with its 95% interval) and a significance matrix (which pairs the test separates).

No charting script: plain SVG files with their own light and dark colours, so they read the
same in both colour schemes, from any page, with JavaScript off. The numbers behind them are on
the page as text; names are made visible and isolated like every other artifact text.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

import numpy as np

from memrank.board.config import Direction
from memrank.board.model import EvaluationPage
from memrank.board.text import plain, short
from memrank.measures.kinds import declared_range
from memrank.stats import LEVEL, Bounds

__all__ = ["MATRIX_MOST", "NARROW", "forest", "matrix"]

_STYLE = """<style>
.fg { fill: #1b1f24; } .muted { fill: #57606a; } .grid { stroke: #d0d7de; }
.line { stroke: #0550ae; stroke-width: 2; } .dot { fill: #0550ae; }
.better { fill: #1a7f37; } .worse { fill: url(#hatched); } .tie { fill: #d0d7de; } .self { fill: #ffffff; }
.worse-ground { fill: #cf222e; } .hatch { stroke: #ffffff; stroke-width: 1.5; }
text { font: 12px system-ui, sans-serif; }
@media (prefers-color-scheme: dark) {
  .fg { fill: #e6edf3; } .muted { fill: #9198a1; } .grid { stroke: #30363d; }
  .line { stroke: #79c0ff; } .dot { fill: #79c0ff; }
  .better { fill: #3fb950; } .tie { fill: #30363d; } .self { fill: #0d1117; }
  .worse-ground { fill: #f85149; } .hatch { stroke: #0d1117; }
}
</style>"""
_HATCHED = (
    '<defs><pattern id="hatched" width="4" height="4" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><rect class="worse-ground" width="4" height="4"/>'
    '<line class="hatch" x1="0" y1="0" x2="0" y2="4"/></pattern></defs>'
)
"""The matrix's "worse" fill: red with stripes, because red and green alone have about the same
lightness and read alike to a reader who does not tell them apart (WCAG 1.4.1, use of colour)."""
_LABEL = 44
"""Characters of a name a plot shows."""
NARROW = 336
"""The width of a plot drawn for a phone: a 390-pixel screen less the page's margins and the
plot's frame, so it opens showing its data."""
_NARROW_LABEL = 36
"""Characters of a name a phone's plot shows (on a line of its own, with the rank before it)."""
_CHAR = 7.0
"""A generous mean advance of a 12 px system-ui character: the margin a label needs, so that no
label is cut off at the plot's left edge."""
MATRIX_MOST = 100
"""Systems the significance matrix draws, the first in rank order: beyond a hundred its cells
are too small to read, and its size would grow with the square of the board's (every pair
is in the pairs files, ``pairs/<f>.json``, and each run page lists its nearest verdicts)."""


def _name(text: str, narrow: bool = False) -> str:
    """A name as a plot shows it: cut, made visible and isolated; not yet escaped. A phone's
    plot cuts it with "…" alone (the table below the plot has the name whole)."""
    if narrow:
        return plain(text if len(text) <= _NARROW_LABEL else text[: _NARROW_LABEL - 1] + "…")
    return plain(short(text, _LABEL))


def _width(label: str) -> float:
    """Room for ``label`` (its isolating marks take none), with a margin either side."""
    return 16 + _CHAR * len(label.replace("\u2068", "").replace("\u2069", ""))


def _open(width: float, height: float, title: str, description: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(description)}</desc>",
        _STYLE,
    ]


def forest(page: EvaluationPage, *, narrow: bool = False) -> bytes:
    """Each ranked system's mean as a dot on its 95% interval, best first. ``narrow`` draws it
    for a phone: each system's name on a line of its own above its interval, so the plot is
    ``NARROW`` pixels wide and opens on the data, not on a column of names."""
    labels = [
        f"{cell.rank.label if cell.rank else ''} {_name(link.display, narrow)}"
        for link, cell in zip(page.rows, page.cells, strict=True)
    ]
    if narrow:
        row, plot, top, left = 34, NARROW - 32, 20, 16.0
        width = float(NARROW)
    else:
        row, plot, top = 18, 400, 28
        left = max([120.0, *map(_width, labels)])
        width = left + plot + 20
    height = top + row * len(page.rows) + 30
    lows = [c.interval.low if c.interval else c.value.value or 0.0 for c in page.cells]
    highs = [c.interval.high if c.interval else c.value.value or 0.0 for c in page.cells]
    ticks = _ticks(
        min(lows, default=0.0), max(highs, default=1.0), declared_range(page.column.measure)
    )
    low, high = ticks[0], ticks[-1]

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * plot

    column = page.column
    lines = _open(
        width,
        height,
        f"{column.title}: mean {column.measure} with its 95% interval, per system",
        f"{len(page.rows)} systems, best first; {column.direction} is better. "
        "A dot is the mean; its line the clustered 95% interval.",
    )
    decimals = _decimals(ticks)
    for value in ticks:
        lines.append(
            f'<line class="grid" x1="{x(value):.1f}" x2="{x(value):.1f}" y1="{top - 8}" '
            f'y2="{height - 26}"/>'
        )
        lines.append(
            f'<text class="muted" x="{x(value):.1f}" y="{height - 10}" text-anchor="middle">'
            f"{value:.{decimals}f}</text>"
        )
    for i, (label, cell) in enumerate(zip(labels, page.cells, strict=True)):
        if narrow:
            y: float = top + row * i + 24
            lines.append(
                f'<text class="fg" x="{left - 8:.1f}" y="{y - 12:.1f}">{escape(label)}</text>'
            )
        else:
            y = top + row * i + row / 2
            lines.append(
                f'<text class="fg" x="{left - 8:.1f}" y="{y + 4:.1f}" text-anchor="end">'
                f"{escape(label)}</text>"
            )
        if cell.interval:
            lines.append(
                f'<line class="line" x1="{x(cell.interval.low):.1f}" '
                f'x2="{x(cell.interval.high):.1f}" y1="{y:.1f}" y2="{y:.1f}"/>'
            )
        if cell.value.value is not None:
            lines.append(f'<circle class="dot" cx="{x(cell.value.value):.1f}" cy="{y:.1f}" r="4"/>')
    lines.append("</svg>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _ticks(low: float, high: float, bounds: Bounds) -> list[float]:
    """Four to about eight round ticks (1, 2 or 5 times a power of ten apart) spanning
    [low, high], never past the measure's declared range."""
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    raw = (high - low) / 4
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw)
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    ticks = [round(k * step, 12) for k in range(first, last + 1)]
    floor, ceiling = bounds
    inside = [
        t for t in ticks if (floor is None or t >= floor) and (ceiling is None or t <= ceiling)
    ]
    return inside if len(inside) >= 2 else ticks


def _decimals(ticks: list[float]) -> int:
    """As few decimals as tell the ticks apart."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    return max(0, -math.floor(math.log10(step) + 1e-9))


def matrix(page: EvaluationPage, *, narrow: bool = False) -> bytes:
    """Row against column: green where the row is significantly better, striped red where
    worse, grey where the paired test cannot tell them apart; the first ``MATRIX_MOST`` systems
    in rank order. ``narrow`` fits it in ``NARROW`` pixels for a phone, rows and columns
    numbered as the page's table lists them."""
    total = len(page.rows)
    n = min(total, MATRIX_MOST)
    shown = f"1 to {n}" if n == total else f"1 to {n} of {total}"
    top = 20
    if narrow:
        left = 8 + _CHAR * len(str(n)) + 8
        cell = max(1.0, min(16.0, (NARROW - left - 8) / max(n, 1)))
        labelled = cell >= 10
        labels = [str(i + 1) for i in range(n)]
        caption = f"Systems {shown}, in rank order."
        width = float(NARROW)
    else:
        cell = max(3.0, min(16.0, 640.0 / max(n, 1)))
        labelled = cell >= 10
        labels = [f"{i + 1}. {_name(link.display)}" for i, link in enumerate(page.rows[:n])]
        left = max([40.0, *map(_width, labels)]) if labelled else 40.0
        caption = f"Rows and columns: systems {shown} in rank order, as listed on the page."
        width = max(left + cell * n + 20, _width(caption))
    height = top + cell * n + 40
    paths: dict[str, list[str]] = {kind: [] for kind in _KINDS}
    kinds = _verdicts(page)[:n, :n]
    # Columns are in rank order, so a row's verdicts come in a few runs: one rectangle per run
    # keeps the file near one segment per row, not one per pair.
    changes = np.ones((n, n + 1), dtype=bool)
    changes[:, 1:n] = kinds[:, 1:] != kinds[:, :-1]
    rows, starts = np.nonzero(changes[:, :n])
    ends = np.nonzero(changes[:, 1:])[1] + 1  # row by row, in the same order as the starts
    for i, start, end, kind in zip(
        rows.tolist(), starts.tolist(), ends.tolist(), kinds[rows, starts].tolist(), strict=True
    ):
        x, y, w = left + start * cell, top + i * cell, (end - start) * cell
        paths[_KINDS[kind]].append(f"M{x:.1f} {y:.1f}h{w:.1f}v{cell:.1f}h-{w:.1f}z")
    column = page.column
    lines = _open(
        width,
        height,
        f"{column.title}: which systems the paired test separates",
        f"Rows and columns are the {'' if n == total else f'first {n} of the '}{total} systems, "
        "best first. Green: the row's system is "
        f"significantly better than the column's (p < {LEVEL}); striped red: significantly "
        "worse; grey: not separated.",
    )
    lines.append(_HATCHED)
    for kind, parts in paths.items():
        if parts:
            lines.append(f'<path class="{kind}" d="{"".join(parts)}"/>')
    if labelled:
        for i, label in enumerate(labels):
            lines.append(
                f'<text class="fg" x="{left - 6:.1f}" y="{top + i * cell + cell * 0.75:.1f}" '
                f'text-anchor="end">{escape(label)}</text>'
            )
    lines.append(f'<text class="muted" x="8" y="{height - 12:.0f}">{caption}</text>')
    lines.append("</svg>")
    return ("\n".join(lines) + "\n").encode("utf-8")


_KINDS = ("better", "worse", "tie", "self")
"""The verdicts of a pair, in the order the matrix draws them (indices of ``_verdicts``)."""


def _verdicts(page: EvaluationPage) -> np.ndarray:
    """Row i against column j as an index into ``_KINDS``: self, better, worse or tie."""
    p, difference = page.p_values, page.differences
    higher = page.column.direction is Direction.HIGHER
    with np.errstate(invalid="ignore"):  # NaN p (no test possible) separates nothing
        separated = (p < LEVEL) & (difference != 0)
    # differences[i, j] is row j minus row i: a better j leaves row i worse.
    worse = (difference > 0) == higher
    kinds = np.where(separated, np.where(worse, 1, 0), 2)
    np.fill_diagonal(kinds, 3)
    return kinds
