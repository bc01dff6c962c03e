"""Which finished runs could be published, and every reason each other one could not.

The verifier refuses a signed run at its first problem; a maintainer choosing what to approve
wants them all at once, before anything is signed. The reasons are the verifier's policy, read
from the run's own result and the trust root in force.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memrank.provenance import Evidence, evidence_of, is_committed_build
from memrank.result import Result
from memrank.runs.registry import RESULT, RunRecord, RunState, all_records, run_folder

if TYPE_CHECKING:
    from memrank.artifacts import Root

__all__ = ["Review", "review", "review_all"]


@dataclass(frozen=True)
class Review:
    """One run's standing: publishable on ``track``, or the reasons it is not."""

    record: RunRecord
    track: str | None
    reasons: tuple[str, ...]

    @property
    def publishable(self) -> bool:
        return not self.reasons


def review_all(root: Root | None, root_file: Path) -> list[Review]:
    """Every finished run that is not approved yet, oldest first."""
    return [
        review(record, root, root_file, None)
        for record in all_records()
        if record.state is RunState.DONE and record.approved is None
    ]


def review(record: RunRecord, root: Root | None, root_file: Path, track: str | None) -> Review:
    """Why ``record`` could not be published on ``track`` (default: its evaluation's track)."""
    if record.state is not RunState.DONE:
        return Review(record, track, (f"the run is {record.state.value}, not done",))
    result = Result.load(run_folder(record.id) / RESULT)
    track = track or result.evaluation.track
    return Review(record, track, tuple(_reasons(result, root, root_file, track)))


def _reasons(result: Result, root: Root | None, root_file: Path, track: str) -> list[str]:
    if result.refusal is not None:
        return [f"the run was refused ({result.refusal})"]
    if result.provenance is None:
        return ["the result records no provenance; run it again"]
    reasons = []
    pipeline, bundle = result.provenance.pipeline, result.provenance.dataset_bundle
    evidence = evidence_of(pipeline.install, result.system.transport)
    if evidence is Evidence.DEVELOPMENT:
        reasons.append(
            f"memrank ran from a checkout ({pipeline.install.value} install): a development "
            "observation; run it with memrank installed from the released wheel"
        )
    if result.evaluation.slice is not None:
        reasons.append(f"a slice ({result.evaluation.slice}) is not a measurement")
    if evidence is not Evidence.DEVELOPMENT and not is_committed_build(pipeline):
        reasons.append(
            "the wheel was built from a tree with uncommitted changes, or records no commit: "
            "commit, then build the wheel again from the clean tree"
        )
    if result.failed:
        reasons.append(f"{len(result.failed)} of {len(result.traces)} task(s) failed")
    if result.integrity is not None and result.integrity.verdict == "suspect":
        reasons.append(result.integrity.line)
    if root is None:
        reasons.append(f"no trust root at {root_file} to check the track against")
        return reasons
    policy = root.tracks.get(track)
    if policy is None:
        reasons.append(f"track {track!r} is not in {root_file}")
        return reasons
    if evidence is not Evidence.DEVELOPMENT and evidence not in policy.evidence:
        reasons.append(f"track {track!r} does not accept {evidence.value}")
    if pipeline.code_sha256 not in policy.pipelines:
        reasons.append(
            f"pipeline {pipeline.code_sha256[:12]} (memrank {pipeline.memrank_version}) is not "
            f"pinned for track {track!r}"
        )
    baseline = policy.dataset_bundles.get(result.evaluation.name)
    if baseline is None or baseline.sha256 != bundle.sha256:
        reasons.append(f"the {result.evaluation.name} dataset is not pinned for track {track!r}")
    elif baseline.question_counts != bundle.question_counts:
        reasons.append("its question counts differ from the track's baseline")
    return reasons
