"""An artifacts directory: where attest writes, and every envelope in it verified at once.

Layout: ``root.json`` (+ ``roots/<version>.json``), ``runs/<artifact-id>.json`` (envelopes),
``scores/<sha256>.json`` (scores files), ``results/<sha256>.json`` (small result files; the
rest are in the results store). ``verify_all`` reports every refusal, not only the
first, and adds the one check a single envelope cannot make: run conflicts. A directory of
many envelopes is verified a share per core (``memrank._forked``), in the order of the paths,
as one process would have made it. ``locate`` finds a signed run in it by what a reader has in
hand: an id, a file, or a run page's address.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import orjson

from memrank._collector import collector_paused
from memrank._forked import in_shares, split
from memrank.artifacts._results_store import ResultsStore
from memrank.artifacts._trust import TrustRoot, load_trust
from memrank.artifacts._verify import VerifiedRun, verify
from memrank.errors import ArtifactRefused, RunConflict, UsageError

__all__ = [
    "RESULTS",
    "ROOT",
    "RUNS",
    "Refusal",
    "Verification",
    "envelope_naming",
    "locate",
    "verify_all",
    "verify_directory",
]

ROOT = "root.json"
RUNS = "runs"
RESULTS = "results"
SHARE_LEAST = 100
"""The fewest envelopes a forked worker verifies: below it, forking and sending the verified
runs back cost more than verifying them here."""
_HEX = re.compile(r"[0-9a-f]{8,64}")
_RUN_PAGE = re.compile(r"runs/([0-9a-f]{8,64})(?:/|\.html|$)")


@dataclass(frozen=True)
class Refusal:
    """One artifact the verifier refused, and why."""

    path: Path
    error: type[ArtifactRefused]
    """The refusal's class in memrank's error tree (its docs entry says what it means)."""
    reason: str
    """The message: names the file and what to do."""


@dataclass(frozen=True)
class Verification:
    """Every artifact examined: those verified and those refused, each sorted by path."""

    runs: tuple[VerifiedRun, ...]
    refusals: tuple[Refusal, ...]

    @property
    def ok(self) -> bool:
        return not self.refusals


def verify_directory(
    directory: Path,
    trust: TrustRoot | None = None,
    *,
    anchor: Path | None = None,
    now: datetime | None = None,
    store: ResultsStore | None = None,
    deep: bool = False,
    known_good: set[str] | None = None,
) -> Verification:
    """Verify every ``runs/*.json`` in ``directory`` against its ``root.json`` (or ``trust``).

    A trust root that cannot be trusted raises (nothing can be verified without one); a
    refused artifact is reported and the rest are still verified. ``deep`` requires every
    result file, fetching those not in ``results/`` from ``store``. ``known_good`` holds the
    artifact ids whose scores file already passed every check against their statement (a
    build's memo): their signatures, statement and the scores file's digest are still checked,
    but the file is not checked again for form and agreement with the statement, and is parsed
    only when ``VerifiedRun.scores`` is first read; each artifact whose scores file passes is
    added.
    """
    if trust is None:
        trust = load_trust(directory / ROOT, anchor=anchor, now=now)
    return verify_all(
        sorted((directory / RUNS).glob("*.json")),
        trust,
        store=store,
        deep=deep,
        known_good=known_good,
    )


def verify_all(
    paths: Iterable[Path],
    trust: TrustRoot,
    *,
    store: ResultsStore | None = None,
    deep: bool = False,
    known_good: set[str] | None = None,
) -> Verification:
    """Verify each envelope file, then refuse runs whose run_id conflicts."""
    unique: dict[str, Path] = {}
    for path in paths:
        unique.setdefault(os.path.abspath(path), path)
    runs: list[VerifiedRun] = []
    refusals: list[Refusal] = []
    job = _Job(trust, store, deep, known_good)
    shares = split(list(unique.values()), SHARE_LEAST)
    with collector_paused():
        made = in_shares(job.verify_share, shares)
    for outcomes, newly_good in made:
        for outcome in outcomes:
            if isinstance(outcome, VerifiedRun):
                runs.append(outcome)
            else:
                refusals.append(outcome)
        if known_good is not None:
            known_good.update(newly_good)
    conflicts = _conflicts(runs)
    refusals += conflicts.values()
    return Verification(
        runs=tuple(run for run in runs if run.path not in conflicts),
        refusals=tuple(sorted(refusals, key=lambda r: str(r.path))),
    )


def locate(target: str, artifacts: Path, *, what: str = "RUN") -> Path:
    """The envelope ``target`` names: an envelope file, an artifact id (or a unique prefix of at
    least 8 hex digits), or the address of its run page on a board."""
    path = Path(target)
    if path.is_file():
        return path
    page = _RUN_PAGE.search(target)
    prefix = page.group(1) if page else target.lower()
    if not _HEX.fullmatch(prefix):
        raise UsageError(
            f"{what} {target!r} is neither a file, an artifact id nor a run page's address; "
            "give one of them (memrank verify lists the artifact ids)"
        )
    found = sorted((artifacts / RUNS).glob(f"{prefix}*.json"))
    if len(found) != 1:
        count = "no artifact" if not found else f"{len(found)} artifacts"
        raise UsageError(
            f"{what} {target!r}: {count} in {artifacts / RUNS} start with {prefix}; give more "
            "of the artifact id, or --artifacts where the run is"
        )
    return found[0]


def envelope_naming(scores_file: Path, artifacts: Path) -> Path:
    """The envelope in ``artifacts/runs`` whose statement names ``scores_file`` (by digest)."""
    digest = hashlib.sha256(scores_file.read_bytes()).hexdigest()
    wanted = f"scores/{digest}.json".encode()
    for envelope in sorted((artifacts / RUNS).glob("*.json")):
        try:
            payload = base64.b64decode(orjson.loads(envelope.read_bytes())["payload"])
        except (OSError, ValueError, KeyError, TypeError, orjson.JSONDecodeError):
            continue
        if wanted in payload:
            return envelope
    raise UsageError(
        f"{scores_file}: no envelope in {artifacts / RUNS} names this scores file; give the "
        "artifact id instead, or --artifacts where its envelope is"
    )


@dataclass(frozen=True)
class _Job:
    """What every envelope of one ``verify_all`` is verified against."""

    trust: TrustRoot
    store: ResultsStore | None
    deep: bool
    known_good: set[str] | None

    def verify_share(self, paths: Sequence[Path]) -> tuple[list[VerifiedRun | Refusal], set[str]]:
        """Each path's VerifiedRun or Refusal, in order, and the artifact ids this added to
        ``known_good`` (a forked worker adds them to its own copy of the set)."""
        known_before = set(self.known_good or ())
        outcomes: list[VerifiedRun | Refusal] = []
        for path in paths:
            try:
                outcomes.append(
                    verify(
                        path,
                        self.trust,
                        store=self.store,
                        deep=self.deep,
                        known_good=self.known_good,
                    )
                )
            except ArtifactRefused as exc:
                outcomes.append(Refusal(path=path, error=type(exc), reason=exc.message))
        return outcomes, set(self.known_good or ()) - known_before


def _conflicts(runs: list[VerifiedRun]) -> dict[Path, Refusal]:
    """Runs sharing a run_id must form one chain of ``supersedes``; otherwise all are refused.

    One chain: exactly one of them supersedes nothing among them, no artifact is superseded
    twice, and following ``supersedes`` back from each reaches that one.
    """
    by_run: dict[str, dict[str, VerifiedRun]] = defaultdict(dict)
    for run in runs:
        by_run[run.predicate.run_id][run.artifact_id] = run
    refused: dict[Path, Refusal] = {}
    for run_id, members in by_run.items():
        if len(members) < 2 or _one_chain(members):
            continue
        ids = ", ".join(sorted(a[:16] for a in members))
        for run in members.values():
            refused[run.path] = Refusal(
                path=run.path,
                error=RunConflict,
                reason=(
                    f"{run.path}: run {run_id} has {len(members)} artifacts ({ids}) that do not "
                    "form one chain of corrections; a correction names the artifact it replaces "
                    "(`memrank attest --supersedes ID`)"
                ),
            )
    return refused


def _one_chain(members: dict[str, VerifiedRun]) -> bool:
    heads = [a for a, run in members.items() if run.predicate.supersedes not in members]
    superseded = [run.predicate.supersedes for run in members.values()]
    if len(heads) != 1 or len(set(superseded)) != len(superseded):
        return False
    successor = {run.predicate.supersedes: a for a, run in members.items()}
    walked, current = 1, heads[0]
    while current in successor:
        current, walked = successor[current], walked + 1
    return walked == len(members)
