"""artifacts/board.toml: which tracks the board shows, and which evaluations are their columns.

The file decides what is shown and how it is read (each column's headline measure and whether
higher or lower is better); the artifacts decide what the numbers are. A track's ranking
columns are every column but those the file marks ``ranking = false`` (kept for reference, like
the demo); a track with two or more of them gets an Overall column (docs/methodology.md).
"""

from __future__ import annotations

import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memrank.answer.names import judged_name, model_label
from memrank.board import urls
from memrank.errors import BoardConfigError

__all__ = ["BoardConfig", "Column", "Direction", "SiteConfig", "TrackConfig", "load"]

_STRICT = ConfigDict(frozen=True, extra="forbid")


class Direction(StrEnum):
    """Which way a headline improves."""

    HIGHER = "higher"
    LOWER = "lower"


class Column(BaseModel):
    """One evaluation shown as a column of a track's table."""

    model_config = _STRICT
    evaluation: str = Field(min_length=1)
    """The evaluation's name, as runs record it."""
    version: str = Field(min_length=1)
    """The version shown; runs at other versions are not comparable and stay out of the table."""
    title: str = Field(min_length=1)
    """The column heading."""
    measure: str = Field(min_length=1)
    """The headline: the value name each cell shows."""
    direction: Direction
    """Whether a higher or a lower headline is better."""
    categories: dict[str, str] = {}
    """Labels for the evaluation's task categories, by the category as runs record it
    (LoCoMo's ``"1"`` ... ``"5"``); a category without one is shown by its name alone."""
    ranking: bool = True
    """Whether the column is one of the track's ranking columns, which the Overall column
    combines and ``rank_by`` may name; ``false`` shows it for reference only."""

    @property
    def key(self) -> str:
        """The column's name in links and filter parameters."""
        return urls.slug(self.evaluation)

    @model_validator(mode="after")
    def _judged_title_says_how(self) -> Column:
        # A judged number means nothing without its protocol, answer model and judge.
        judged = judged_name(self.measure)
        if judged is None:
            return self
        wanted = [judged.protocol, model_label(judged.answerer)]
        wanted += [model_label(judged.judge)] if judged.judge else []
        missing = [part for part in wanted if part not in self.title]
        if missing:
            raise ValueError(
                f"the column {self.evaluation!r} shows the answer measure {self.measure}; its "
                f"title must name the protocol, the answer model and the judge: add "
                f"{', '.join(missing)} to title {self.title!r}"
            )
        return self


class TrackConfig(BaseModel):
    """One track: its words, its columns, and what ranks its rows."""

    model_config = _STRICT
    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    columns: tuple[Column, ...] = ()
    rank_by: str | None = None
    """The evaluation whose paired tests rank the rows; the first ranking column when left
    out."""

    @model_validator(mode="before")
    @classmethod
    def _overall_is_not_configured(cls, data: Any) -> Any:
        if isinstance(data, dict) and "overall" in data:
            raise ValueError(
                "overall is no longer configured: a track with two or more ranking columns "
                "gets an Overall column, their mean win rate (docs/methodology.md); remove "
                "the [overall] table"
            )
        return data

    @model_validator(mode="after")
    def _columns_fit_together(self) -> TrackConfig:
        evaluations = [column.evaluation for column in self.columns]
        for name in evaluations:
            if evaluations.count(name) > 1:
                raise ValueError(f"evaluation {name!r} is a column twice; give it once")
        ranking = [column.evaluation for column in self.ranking_columns]
        if self.rank_by is not None and self.rank_by not in ranking:
            raise ValueError(
                f"rank_by names {self.rank_by!r}, which is not a ranking column; use one of "
                f"{ranking}"
            )
        return self

    @property
    def ranking_columns(self) -> tuple[Column, ...]:
        """The columns that rank (every one not marked ``ranking = false``), in order."""
        return tuple(column for column in self.columns if column.ranking)

    @property
    def ranking_column(self) -> Column | None:
        """The column whose paired tests give each row its rank: ``rank_by``, else the first
        ranking column."""
        ranking = self.ranking_columns
        wanted = self.rank_by or (ranking[0].evaluation if ranking else None)
        return next((c for c in ranking if c.evaluation == wanted), None)


class SiteConfig(BaseModel):
    """The board as a whole."""

    model_config = _STRICT
    title: str = Field(min_length=1)
    base_url: str
    """Where the site is published, ending in ``/``: sitemap.xml and the 404 page need it."""
    description: str = Field(min_length=1)
    """One or two sentences under the title of the front page."""
    results_store: str | None = Field(default=None, min_length=1)
    """Where result files are kept by digest (memrank.artifacts reads it too): a directory
    relative to artifacts/, or an https:// address with ``{sha256}`` in it, which run pages
    then link. The site never copies a result file."""

    @field_validator("base_url")
    @classmethod
    def _absolute_directory(cls, base_url: str) -> str:
        if not base_url.startswith(("https://", "http://")) or not base_url.endswith("/"):
            raise ValueError("give the published address, like https://example.org/board/")
        return base_url


class BoardConfig(BaseModel):
    """Everything artifacts/board.toml says."""

    model_config = _STRICT
    site: SiteConfig
    tracks: dict[str, TrackConfig]
    """Tracks in the order the file lists them."""

    @field_validator("tracks")
    @classmethod
    def _track_names_are_slugs(cls, tracks: dict[str, TrackConfig]) -> dict[str, TrackConfig]:
        for name in tracks:
            if urls.slug(name) != name:
                raise ValueError(f"track name {name!r} must be lower-case words joined by '-'")
        return tracks


def load(path: Path) -> BoardConfig:
    """Read and check board.toml; every problem names the file and the field."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BoardConfigError(
            f"{path}: cannot read the board configuration ({exc.strerror}); "
            "pass --artifacts DIR holding board.toml"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise BoardConfigError(f"{path}: not valid TOML ({exc})") from None
    try:
        return BoardConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(top level)'}: {error['msg']}"
            for error in exc.errors()
        )
        raise BoardConfigError(f"{path}: {problems}") from None
