"""artifacts/field.toml: the answer-accuracy numbers the field publishes, shown beside the board.

Papers and vendors report judged answer accuracy on LoCoMo and LongMemEval: an answer model
reads what a memory recalled, and a judge model grades the answer. The board's columns measure
something else (what a system recalls, from signed runs), so these numbers are never joined to
a row nor ranked; they are listed as their sources print them, each with the protocol that
makes it mean something (metric, answer model, judge, question count) and a link to the source.
The maintainers keep them in a file so that adding a number is an edit of data, not of code.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memrank.board import urls
from memrank.board.identity import plain_https
from memrank.errors import BoardConfigError

__all__ = ["FIELD_TOML", "FieldPage", "Published", "PublishedOn", "load_field"]

FIELD_TOML = "field.toml"
_STRICT = ConfigDict(frozen=True, extra="forbid")


class Published(BaseModel):
    """One number as its source publishes it."""

    model_config = _STRICT
    benchmark: str = Field(min_length=1, max_length=40)
    """``LoCoMo`` or ``LongMemEval``: the page groups numbers by it."""
    system: str = Field(min_length=1, max_length=120)
    """The system as the source names it, with the variant measured (``Mem0 (graph)``)."""
    accuracy: str = Field(pattern=r"^[0-9]{1,3}(\.[0-9]{1,4})?$")
    """Percent, written as the source prints it (``72.90``): text, so no digit is lost."""
    spread: str = Field(default="", max_length=80)
    """What the source gives beside the number, when it gives something (``± 0.15``)."""
    metric: str = Field(min_length=1, max_length=120)
    answer_model: str = Field(min_length=1, max_length=120)
    judge_model: str = Field(min_length=1, max_length=160)
    questions: int = Field(gt=0, lt=1_000_000)
    """How many questions the number is over."""
    question_set: str = Field(min_length=1, max_length=200)
    """Which questions those are (``categories 1–4; category 5 left out``)."""
    source: str = Field(min_length=1, max_length=200)
    """The source and where in it (``Mem0 paper, arXiv 2504.19413, Table 2``)."""
    source_url: str = Field(min_length=1, max_length=300)
    note: str = Field(default="", max_length=400)
    """What a reader needs to know of this number in particular."""

    @field_validator("accuracy")
    @classmethod
    def _a_percentage(cls, accuracy: str) -> str:
        if float(accuracy) > 100:
            raise ValueError(f"{accuracy} is over 100; give the accuracy in percent")
        return accuracy

    @field_validator("source_url")
    @classmethod
    def _plain_https(cls, source_url: str) -> str:
        if not plain_https(source_url):
            raise ValueError(
                f"{source_url!r} is not a plain https:// address; give https://host/path, "
                "without user:password@"
            )
        return source_url


class _FieldFile(BaseModel):
    """field.toml as a whole: one ``[[published]]`` table per number."""

    model_config = _STRICT
    published: tuple[Published, ...] = Field(min_length=1)


class PublishedOn(BaseModel):
    """The numbers published on one benchmark, in the order the file gives them."""

    model_config = _STRICT
    benchmark: str
    numbers: tuple[Published, ...]


class FieldPage(BaseModel):
    """The page of the field's published numbers."""

    model_config = _STRICT
    path: str
    benchmarks: tuple[PublishedOn, ...]
    """In the order the file first names each benchmark."""


def load_field(path: Path) -> FieldPage | None:
    """The page of ``path``'s numbers; None when there is no such file (the board then has no
    such page). Every problem names the file and the field."""
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise BoardConfigError(f"{path}: cannot read the field's numbers ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise BoardConfigError(f"{path}: not valid TOML ({exc})") from None
    try:
        published = _FieldFile.model_validate(data).published
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(top level)'}: {error['msg']}"
            for error in exc.errors()
        )
        raise BoardConfigError(f"{path}: {problems}") from None
    names = list(dict.fromkeys(number.benchmark for number in published))
    return FieldPage(
        path=urls.FIELD,
        benchmarks=tuple(
            PublishedOn(
                benchmark=name,
                numbers=tuple(number for number in published if number.benchmark == name),
            )
            for name in names
        ),
    )
