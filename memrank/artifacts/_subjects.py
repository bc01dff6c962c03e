"""The last per-envelope check: the three files a statement names, scores, result and timings.

The scores and timings files must be in the artifacts directory and hash to their signed
digests; the timings file must state what the predicate does of the clock and the machine. The
result file is checked whenever it can be had: from ``results/`` in the artifacts directory
(plain or gzip-compressed), or (with ``deep``) from this machine's results cache or the
results store. When it is checked, its digest must be the signed one, joined with its timings
it must give what the predicate states, and the scores file must be exactly ``scores_of`` of it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from memrank._files import read_at_most
from memrank.artifacts._canonical import parse_canonical
from memrank.artifacts._ranges import check_group_values
from memrank.artifacts._results_store import ResultsStore, read_kept, results_cache
from memrank.artifacts._scores import Scores, gives_scores, read_scores
from memrank.artifacts._statement import Statement, facts_of
from memrank.artifacts._timings import TIMINGS_SCHEMA, is_timing_value, join
from memrank.errors import (
    ArtifactRefused,
    IntegritySuspect,
    NonCanonicalPayload,
    OversizeFile,
    ResultFileError,
    ScoresDiffer,
    ScoresDigestMismatch,
    ScoresMalformed,
    ScoresMissing,
    ScoresSwapped,
    SubjectDigestMismatch,
    SubjectMissing,
    TimingsDiffer,
    TimingsDigestMismatch,
    TimingsMissing,
)
from memrank.result import PUBLISHED_RESULT_SCHEMA

__all__ = [
    "MAX_RESULT_BYTES",
    "MAX_SCORES_BYTES",
    "MAX_TIMINGS_BYTES",
    "Subjects",
    "check_subjects",
    "read_capped",
]

MAX_SCORES_BYTES = 16 << 20
"""A scores file holds a few numbers per task: a full LoCoMo run's is ~250 KB."""
MAX_RESULT_BYTES = 256 << 20
"""A result file holds every trace; the largest evaluations stay well under this."""
MAX_TIMINGS_BYTES = 16 << 20
"""A timings file holds two instants and a few numbers per trace: a full LoCoMo run's is
~300 KB."""
TIMINGS_KEYS = frozenset(
    {"schema", "result_sha256", "started", "finished", "environment", "traces", "values"}
)
RESULTS_FOLDER = "results"


@dataclass(frozen=True)
class Subjects:
    """What the subject checks read."""

    scores: Scores | None
    """The parsed scores file; None when it was known good (see ``check_subjects``)."""
    scores_raw: bytes
    """The scores file's bytes, whose sha256 the statement signs."""
    scores_path: Path
    timings_raw: bytes
    """The timings file's bytes, whose sha256 the statement signs."""
    timings_path: Path
    result_path: Path | None
    """The result file in the artifacts directory, when it is there."""
    result_bytes: bytes | None
    """Its bytes (inflated when kept compressed), checked; None when it was not there (a file
    fetched by ``deep`` is checked and let go, so that verifying hundreds of runs holds one
    result file at a time)."""
    result_checked: bool
    """Whether the result file was checked (read locally or fetched from the store)."""


def read_capped(path: Path, cap: int, unreadable: type[ArtifactRefused]) -> bytes:
    """The file's bytes, refusing one over ``cap`` without reading it all."""
    try:
        raw = read_at_most(path, cap)
    except OSError as exc:
        raise unreadable(f"{path}: cannot read it ({exc.strerror})") from None
    if len(raw) > cap:
        raise OversizeFile(f"{path}: over the {cap}-byte cap; this is not a file memrank wrote")
    return raw


def check_subjects(
    statement: Statement,
    signed: dict[str, Any],
    artifacts: Path,
    source: str,
    *,
    store: ResultsStore | None = None,
    deep: bool = False,
    known_good: set[str] | None = None,
    artifact_id: str = "",
) -> Subjects:
    """Check the scores file and the timings file, then the result file when it is present
    (or ``deep``).

    ``known_good`` holds the artifact ids whose scores and timings files already passed every
    check against their statement: for those the files' bytes are read and hashed, but not
    parsed (they are parsed when first used). ``artifact_id`` is added to it once both pass."""
    scores_path = artifacts / statement.scores_subject.name
    good = known_good is not None and artifact_id in known_good
    scores_raw, scores = _check_scores(statement, scores_path, source, good)
    timings_path = artifacts / statement.timings_subject.name
    timings_raw, timings = _check_timings(statement, signed, timings_path, source, good)
    if known_good is not None:
        known_good.add(artifact_id)
    digest = statement.result_subject.digest.sha256
    results = artifacts / RESULTS_FOLDER
    kept = read_kept(results, digest, MAX_RESULT_BYTES)
    if kept is None and deep:
        kept = read_kept(results_cache(), digest, MAX_RESULT_BYTES)
    if kept is not None:
        result_path, raw = kept
        if hashlib.sha256(raw).hexdigest() != digest:
            raise SubjectDigestMismatch(
                f"{source}: {result_path} does not hash to the signed sha256; the result file "
                "was changed or swapped. Restore it from the attested run"
            )
        _check_result(raw, timings_raw, timings, signed, scores_raw, str(result_path), source)
        in_artifacts = result_path.parent == results
        return Subjects(
            scores,
            scores_raw,
            scores_path,
            timings_raw,
            timings_path,
            result_path if in_artifacts else None,
            raw if in_artifacts else None,
            result_checked=True,
        )
    if not deep:
        return Subjects(
            scores, scores_raw, scores_path, timings_raw, timings_path, None, None, False
        )
    if store is None:
        raise SubjectMissing(
            f"{source}: the result file {statement.result_subject.name} is not in {artifacts}, "
            "and no results store is named to fetch it from (results_store in board.toml's "
            "[site], or --store); `memrank verify --deep --reproduce` regenerates a "
            "reproducible run's result file"
        )
    if scores is None:
        scores = read_scores(scores_raw, source=str(scores_path), known_good=True)
    try:
        raw = store.fetch(digest, min(scores.result_size, MAX_RESULT_BYTES))
    except ArtifactRefused as exc:
        raise type(exc)(f"{source}: {exc.message}") from None
    where = store.address_of(digest)
    _check_result(raw, timings_raw, timings, signed, scores_raw, where, source)
    return Subjects(scores, scores_raw, scores_path, timings_raw, timings_path, None, None, True)


def _check_timings(
    statement: Statement, signed: dict[str, Any], path: Path, source: str, known_good: bool
) -> tuple[bytes, Any]:
    """The timings file: there, hashing to its subject, and (unless known good) canonical, of
    this run's result file, and stating the start, end, machine and clock values the statement
    does. Its bytes, and what they parse to (None when known good: they were not parsed)."""
    if not path.is_file():
        raise TimingsMissing(
            f"{source}: the timings file {statement.timings_subject.name} is not in "
            f"{path.parent.parent}; commit it with the envelope (memrank attest writes it)"
        )
    raw = read_capped(path, MAX_TIMINGS_BYTES, TimingsMissing)
    if hashlib.sha256(raw).hexdigest() != statement.timings_subject.digest.sha256:
        raise TimingsDigestMismatch(
            f"{source}: {path} does not hash to the signed sha256; the timings file was "
            "edited. Restore it from the attested run"
        )
    if known_good:
        return raw, None
    try:
        timings = parse_canonical(raw, source=str(path))
        if not isinstance(timings, dict) or timings.get("schema") != TIMINGS_SCHEMA:
            raise TypeError(f"its schema is not {TIMINGS_SCHEMA!r}")
        if set(timings) != TIMINGS_KEYS:
            raise TypeError(f"its keys are not {', '.join(sorted(TIMINGS_KEYS))}")
        if timings["result_sha256"] != statement.result_subject.digest.sha256:
            raise TypeError("it names another result file")
        predicate = signed["predicate"]
        stated = {
            "started_at": timings["started"],
            "finished_at": timings["finished"],
            "environment": timings["environment"],
        }
        differing = [name for name, value in stated.items() if predicate[name] != value]
        clock_values = [v for v in predicate["summary"] if is_timing_value(v)]
        if timings["values"] != clock_values:
            differing.append("summary's latency values")
        if differing:
            raise TypeError(f"the statement's {', '.join(differing)} differ from it")
    except (NonCanonicalPayload, TypeError, KeyError, AttributeError) as exc:
        reason = exc.message if isinstance(exc, NonCanonicalPayload) else str(exc)
        raise TimingsDiffer(
            f"{source}: the timings file {path} is not this run's ({reason}); attest the run again"
        ) from None
    return raw, timings


def _check_scores(
    statement: Statement,
    path: Path,
    source: str,
    known_good: bool,
) -> tuple[bytes, Scores | None]:
    result_digest = statement.result_subject.digest.sha256
    if not path.is_file():
        raise ScoresMissing(
            f"{source}: the scores file {statement.scores_subject.name} is not in "
            f"{path.parent.parent}; commit it with the envelope (memrank attest writes both)"
        )
    raw = read_capped(path, MAX_SCORES_BYTES, ScoresMissing)
    digest = hashlib.sha256(raw).hexdigest()
    if digest != statement.scores_subject.digest.sha256:
        claimed = _result_named_by(raw)
        if claimed is not None and claimed != result_digest:
            raise ScoresSwapped(
                f"{source}: {path} is the scores file of another result ({claimed[:16]}...), "
                "not of this run's; restore this run's scores file"
            )
        raise ScoresDigestMismatch(
            f"{source}: {path} does not hash to the signed sha256; the scores file was "
            "edited. Restore it, or recompute it from the result file (memrank attest)"
        )
    if known_good:
        return raw, None  # these very bytes passed every check below with this statement
    try:
        scores = read_scores(raw, source=str(path))
    except NonCanonicalPayload as exc:
        raise ScoresMalformed(exc.message) from None
    predicate = statement.predicate
    if scores.result_sha256 != result_digest or (
        scores.evaluation.name,
        scores.evaluation.version,
        len(scores.task_ids),
    ) != (predicate.evaluation.name, predicate.evaluation.version, predicate.evaluation.task_count):
        raise ScoresSwapped(
            f"{source}: the signed scores file {path} is of another run (result "
            f"{scores.result_sha256[:16]}..., {scores.evaluation.version}, "
            f"{len(scores.task_ids)} tasks) than the statement names; attest the run again"
        )
    return raw, scores


def _result_named_by(raw: bytes) -> str | None:
    try:
        claimed = orjson.loads(raw).get("result_sha256")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return claimed if isinstance(claimed, str) else None


def _check_result(
    raw: bytes,
    timings_raw: bytes,
    timings: Any,
    signed: dict[str, Any],
    scores_raw: bytes,
    where: str,
    source: str,
) -> None:
    """A digest-checked result file: joined with its timings file (``timings``, parsed from
    ``timings_raw``, or None when not yet) it is the run file the predicate states, and the
    scores file must be exactly what it gives."""
    try:
        result_file = orjson.loads(raw)
        if result_file.get("schema") != PUBLISHED_RESULT_SCHEMA:
            raise TypeError(
                f"schema is {result_file.get('schema')!r}, not {PUBLISHED_RESULT_SCHEMA!r}"
            )
        if timings is None:
            timings = orjson.loads(timings_raw)
        facts = facts_of(join(result_file, timings, source=where))
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ResultFileError) as exc:
        reason = exc.message if isinstance(exc, ResultFileError) else str(exc)
        raise SubjectDigestMismatch(
            f"{source}: the signed result file {where} is not a memrank result with provenance "
            f"({reason})"
        ) from None
    predicate = signed["predicate"]
    differing = [name for name, value in facts.items() if predicate[name] != value]
    if differing:
        raise SubjectDigestMismatch(
            f"{source}: the statement's {', '.join(differing)} do not match {where}; "
            "attest builds both from one result, so one of them was made by hand"
        )
    try:
        derived = gives_scores(raw, result_file, scores_raw)
    except ResultFileError as exc:
        raise ScoresDiffer(f"{source}: {where}: {exc.message}") from None
    if "integrity" in result_file:
        _check_integrity(result_file, timings, where, source)
    if not derived:
        raise ScoresDiffer(
            f"{source}: the scores file is not what the result file {where} gives "
            "(docs/artifacts.md, The scores file); the signer made it some other way. "
            "Re-attest the run from its result file"
        )
    check_group_values(result_file["values"], f"{source}: {where}")


def _check_integrity(result_file: dict[str, Any], timings: Any, where: str, source: str) -> None:
    """An endpoint run's verdict must be what its own canary and benchmark values give."""
    from memrank.integrity.verdict import disagreement
    from memrank.result import Result

    joined = orjson.dumps(join(result_file, timings, source=where))
    problem = disagreement(Result.from_bytes(joined, source=where))
    if problem is not None:
        raise IntegritySuspect(
            f"{source}: the integrity verdict recorded in {where} is not its own: {problem}"
        )
