"""The in-toto statement of a run: what is signed, built from the run file and nothing else.

The statement shares its records (system, evaluation, pipeline, values) with the run file,
where a missing field takes its default and a system may be any class. What is signed is
read more strictly, as docs/artifacts.md writes it: every field present at every level (null
when optional), timestamps in their one spelling, the system a documented kind over a
documented transport, digests as lowercase hex, and the summary whole-run values only. attest
builds statements through the same model, so it never signs what this refuses.
"""

from __future__ import annotations

import functools
import hashlib
import re
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from memrank._basics import UTCDateTime
from memrank.artifacts._scores import scores_path
from memrank.artifacts._timings import RunFiles
from memrank.evaluation import DatasetBundle
from memrank.measure import Value
from memrank.provenance import Evidence, evidence_of, is_publishable
from memrank.result import (
    EnvironmentRecord,
    EvaluationRecord,
    PipelineRecord,
    SystemRecord,
)

__all__ = [
    "PREDICATE_TYPE",
    "STATEMENT_TYPE",
    "Digest",
    "Division",
    "RunPredicate",
    "Statement",
    "Subject",
    "facts_of",
    "result_path",
    "statement_of",
    "timings_path",
]

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://memrank.dev/run/v2"
_SHA256 = r"^[0-9a-f]{64}$"
_SIGNED = ConfigDict(frozen=True, extra="forbid")

_KINDS = ("memory", "model", "retriever", "assistant")
"""The kinds of system a statement names: the classes a system subclasses."""
_TRANSPORTS = ("in-process", "http")
"""How memrank reached the system."""
_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z")
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _instant(value: object) -> object:
    """A timestamp as signed: ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` (RFC 3339, UTC), read as a
    datetime; a datetime (a statement being built) is left to the datetime validation."""
    if not isinstance(value, str):
        return value
    if not _INSTANT.fullmatch(value):
        raise ValueError(
            f"{value[:40]!r} is not a timestamp as signed: YYYY-MM-DDTHH:MM:SS[.ffffff]Z "
            "(RFC 3339, in UTC, written with Z)"
        )
    return datetime.fromisoformat(value[:-1]).replace(tzinfo=UTC)


_SignedInstant = Annotated[UTCDateTime, BeforeValidator(_instant)]
"""A timestamp of a statement: only its one spelling is read."""


class Division(StrEnum):
    """Which board a run competes on."""

    OPEN_SOURCE = "open-source"
    COMMERCIAL = "commercial"


class Digest(BaseModel):
    model_config = _SIGNED
    sha256: str = Field(pattern=_SHA256)


class Subject(BaseModel):
    """A file the statement names: by its path in the artifacts directory and its digest."""

    model_config = _SIGNED
    name: str
    """``scores/<sha256>.json``, ``results/<sha256>.json`` or ``timings/<sha256>.json``,
    relative to the artifacts directory (or, for a result file, to the results store)."""
    digest: Digest


class RunPredicate(BaseModel):
    """What memrank states about a run (predicateType https://memrank.dev/run/v2)."""

    model_config = _SIGNED
    run_id: str = Field(min_length=1)
    """``YYYYMMDD-HHMMSS__<evaluation>__<12 hex>``, from the result's start, evaluation and
    system: the same however often the run is re-measured and re-attested."""
    track: str = Field(min_length=1)
    division: Division
    evidence: Evidence
    """Derived from ``pipeline.install`` and ``system.transport``; never chosen."""
    publishable: bool
    """False for a development observation and for a slice."""
    system: SystemRecord
    evaluation: EvaluationRecord
    dataset_bundle: DatasetBundle
    pipeline: PipelineRecord
    environment: EnvironmentRecord
    started_at: _SignedInstant
    finished_at: _SignedInstant
    issued_at: _SignedInstant
    """When it was attested: the board's publication date and the instant key validity is
    checked at."""
    summary: tuple[Value, ...]
    """The run-scope values; a share carries the counts it comes from."""
    supersedes: str | None = Field(default=None, pattern=_SHA256)
    """The artifact id this one corrects, for the same run_id."""

    @model_validator(mode="after")
    def _as_the_format_writes_it(self) -> RunPredicate:
        problem = form_problem(self)
        if problem is not None:
            raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _derived_facts_agree(self) -> RunPredicate:
        evidence = evidence_of(self.pipeline.install, self.system.transport)
        if self.evidence is not evidence:
            raise ValueError(
                f"evidence is {self.evidence.value} but install {self.pipeline.install.value} "
                f"over transport {self.system.transport} gives {evidence.value}"
            )
        if self.publishable != is_publishable(evidence, self.evaluation.slice, self.pipeline):
            raise ValueError(f"publishable is {self.publishable}, which the facts do not give")
        if not self.started_at <= self.finished_at <= self.issued_at:
            raise ValueError("started_at <= finished_at <= issued_at does not hold")
        return self


class Statement(BaseModel):
    """An in-toto Statement v1 naming a run's scores file, result file and timings file."""

    model_config = {**_SIGNED, "populate_by_name": True}
    type_: Literal["https://in-toto.io/Statement/v1"] = Field(alias="_type")
    subject: tuple[Subject, Subject, Subject]
    """Exactly three, in this order: the scores file, the result file, the timings file."""
    predicateType: Literal["https://memrank.dev/run/v2"]  # noqa: N815 - the in-toto field name
    predicate: RunPredicate

    @model_validator(mode="after")
    def _subjects_named_by_their_digests(self) -> Statement:
        for index, (subject, path_of) in enumerate(
            zip(self.subject, (scores_path, result_path, timings_path), strict=True)
        ):
            expected = path_of(subject.digest.sha256)
            if subject.name != expected:
                folder = expected.split("/")[0]
                raise ValueError(
                    f"subject[{index}] name {subject.name!r} is not {folder}/<its sha256>.json"
                )
        return self

    @property
    def scores_subject(self) -> Subject:
        """The scores file: what the board reads."""
        return self.subject[0]

    @property
    def result_subject(self) -> Subject:
        """The result file: every trace, in the results store."""
        return self.subject[1]

    @property
    def timings_subject(self) -> Subject:
        """The timings file: what the clock and the machine said, committed beside the scores."""
        return self.subject[2]

    def payload(self) -> dict[str, Any]:
        """The JSON shape that is canonicalised and signed."""
        return self.model_dump(mode="json", by_alias=True)


def result_path(sha256: str) -> str:
    """Where a result file lives in an artifacts directory."""
    return f"results/{sha256}.json"


def timings_path(sha256: str) -> str:
    """Where a timings file lives in an artifacts directory."""
    return f"timings/{sha256}.json"


# Predicate fields a result file determines, and where they are in its JSON.
_FACTS: dict[str, tuple[str, ...]] = {
    "system": ("system",),
    "evaluation": ("evaluation",),
    "dataset_bundle": ("provenance", "dataset_bundle"),
    "pipeline": ("provenance", "pipeline"),
    "environment": ("provenance", "environment"),
    "started_at": ("started",),
    "finished_at": ("finished",),
}


def facts_of(result_file: dict[str, Any]) -> dict[str, Any]:
    """The predicate fields the parsed run file determines, as JSON (a published result file
    and its timings file give the run file by ``join``).

    attest states exactly these, and verify compares the signed predicate with them, so the
    two can never be built differently. KeyError or TypeError when the file lacks them.
    """
    facts: dict[str, Any] = {}
    for field, path in _FACTS.items():
        found: Any = result_file
        for key in path:
            found = found[key]
        facts[field] = found
    started = result_file["started"]
    tag = hashlib.sha256(
        f"{result_file['system']['name']}\n{result_file['evaluation']['version']}\n{started}".encode()
    ).hexdigest()[:12]
    # started is RFC 3339 UTC as pydantic writes it: YYYY-MM-DDTHH:MM:SS[.ffffff]Z
    stamp = f"{started[0:4]}{started[5:7]}{started[8:10]}-{started[11:13]}{started[14:16]}{started[17:19]}"
    facts["run_id"] = f"{stamp}__{result_file['evaluation']['name']}__{tag}"
    facts["summary"] = [
        v for v in result_file["values"] if v["task_id"] is None and v["group"] is None
    ]
    return facts


def statement_of(
    run_file: dict[str, Any],
    files: RunFiles,
    *,
    track: str,
    division: Division,
    issued_at: datetime,
    supersedes: str | None,
) -> Statement:
    """The statement attest signs for the parsed run file whose published ``files`` (result,
    timings, scores) are given.

    ValidationError when the facts do not make a valid predicate.
    """
    facts = facts_of(run_file)
    pipeline = PipelineRecord.model_validate(facts["pipeline"])
    evidence = evidence_of(pipeline.install, facts["system"]["transport"])
    predicate = RunPredicate.model_validate(
        {
            **facts,
            "track": track,
            "division": division,
            "evidence": evidence,
            "publishable": is_publishable(evidence, facts["evaluation"]["slice"], pipeline),
            "issued_at": issued_at,
            "supersedes": supersedes,
        }
    )
    named = (
        (scores_path, files.scores_sha256),
        (result_path, files.result_sha256),
        (timings_path, files.timings_sha256),
    )
    return Statement(
        type_=STATEMENT_TYPE,
        subject=tuple(
            Subject(name=path_of(digest), digest=Digest(sha256=digest)) for path_of, digest in named
        ),
        predicateType=PREDICATE_TYPE,
        predicate=predicate,
    )


def form_problem(predicate: RunPredicate) -> str | None:
    """What in ``predicate`` the doc does not allow (a sentence naming the field), or None."""
    missing = _missing_field(predicate, "predicate")
    if missing is not None:
        return f"{missing} is missing; every field of a statement is present (null when optional)"
    system = predicate.system
    if system.declared_name is None:
        return "predicate.system.declared_name is null; it is the system's catalog name"
    if system.kind not in _KINDS:
        return f"predicate.system.kind is {system.kind[:40]!r}, not one of {', '.join(_KINDS)}"
    if system.transport not in _TRANSPORTS:
        return (
            f"predicate.system.transport is {system.transport[:40]!r}, not one of "
            f"{', '.join(_TRANSPORTS)}"
        )
    digests = {
        "predicate.dataset_bundle.sha256": predicate.dataset_bundle.sha256,
        "predicate.pipeline.code_sha256": predicate.pipeline.code_sha256,
    }
    for index, file in enumerate(predicate.dataset_bundle.files):
        digests[f"predicate.dataset_bundle.files[{index}].sha256"] = file.sha256
    for where, digest in digests.items():
        if not _HEX64.fullmatch(digest):
            return f"{where} is {digest[:70]!r}, not a sha256 (64 lowercase hex digits)"
    for index, value in enumerate(predicate.summary):
        if value.task_id is not None or value.group is not None:
            return (
                f"predicate.summary[{index}] ({value.measure[:40]!r}) is of a task or a group; "
                "the summary holds whole-run values, task_id and group null"
            )
    return None


def _missing_field(model: BaseModel, where: str) -> str | None:
    """The first field of ``model``, or of a record inside it, that its input left out."""
    names, record_names = _fields(type(model))
    given = model.model_fields_set
    if len(given) != len(names):  # extra fields are refused, so fewer: one is missing
        return f"{where}.{next(name for name in names if name not in given)}"
    for name in record_names:
        value = getattr(model, name)
        items = enumerate(value) if isinstance(value, tuple) else ((None, value),)
        for index, item in items:
            if isinstance(item, BaseModel):
                at = f"{where}.{name}" if index is None else f"{where}.{name}[{index}]"
                missing = _missing_field(item, at)
                if missing is not None:
                    return missing
    return None


@functools.cache
def _fields(kind: type[BaseModel]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fields of ``kind``, and those of them that may hold records (a record, records, or
    a record or None)."""
    fields = kind.model_fields
    holding = tuple(name for name, field in fields.items() if _holds_records(field.annotation))
    return tuple(fields), holding


def _holds_records(annotation: Any) -> bool:
    if get_origin(annotation) is None and isinstance(annotation, type):
        return issubclass(annotation, BaseModel)
    return any(_holds_records(argument) for argument in get_args(annotation))
