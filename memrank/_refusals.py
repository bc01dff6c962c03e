"""What the verifier refuses: a trust root it cannot trust, and a signed run it will not
accept (``memrank.errors`` draws the whole tree and is where callers import it from)."""

from __future__ import annotations

from memrank._errors import MemrankError

__all__ = [
    "ArtifactNameMismatch",
    "ArtifactRefused",
    "BadSignature",
    "DevelopmentObservation",
    "EvidenceNotAccepted",
    "KeyOutsideWindow",
    "MalformedEnvelope",
    "NonCanonicalPayload",
    "OversizeField",
    "OversizeFile",
    "PolicyRefused",
    "QuestionCountsDiffer",
    "ResultStoreError",
    "RevokedKey",
    "RootExpired",
    "RootMalformed",
    "RootRollback",
    "RootSignaturesUnmet",
    "RootVersionRepeated",
    "RootVersionSkipped",
    "RunConflict",
    "SchemaRefused",
    "ScoresDiffer",
    "ScoresDigestMismatch",
    "ScoresMalformed",
    "ScoresMissing",
    "ScoresSwapped",
    "SemanticRefused",
    "ShareInconsistent",
    "SignatureRefused",
    "SliceNotPublishable",
    "SubjectDigestMismatch",
    "SubjectMissing",
    "TaskIdsRepeat",
    "TasksFailed",
    "IntegritySuspect",
    "ThresholdUnmet",
    "TimingsDiffer",
    "TimingsDigestMismatch",
    "TimingsMissing",
    "TrustRootRefused",
    "UncommittedBuild",
    "UnknownKey",
    "UnknownTrack",
    "UnpinnedDataset",
    "UnpinnedPipeline",
    "UnsafeSubjectPath",
    "ValueNotBinary",
    "ValueNotFinite",
    "ValueOutOfRange",
    "WrongPayloadType",
]


# -- the trust root ---------------------------------------------------------------------------


class TrustRootRefused(MemrankError):
    """The trust root (root.json and the versions before it) cannot be trusted."""

    exit_code = 5


class RootMalformed(TrustRootRefused):
    """A root file that is unreadable, malformed, non-canonical or not a valid root."""


class RootSignaturesUnmet(TrustRootRefused):
    """A root version not signed by a threshold of the previous version's root keys or its own."""


class RootVersionSkipped(TrustRootRefused):
    """A chain that jumps from version N to a version above N+1."""


class RootVersionRepeated(TrustRootRefused):
    """Two different roots that claim the same version."""


class RootRollback(TrustRootRefused):
    """A root whose version is lower than one already trusted."""


class RootExpired(TrustRootRefused):
    """The newest root's ``expires`` has passed."""


# -- the verifier, in the order it refuses ----------------------------------------------------


class ArtifactRefused(MemrankError):
    """The verifier refused a signed run; the message names the file and what to do."""

    exit_code = 6


class OversizeFile(ArtifactRefused):
    """An envelope or result file over the verifier's size cap."""


class MalformedEnvelope(ArtifactRefused):
    """Not a DSSE envelope: not JSON, duplicate or unknown keys, bad base64."""


class WrongPayloadType(ArtifactRefused):
    """An envelope whose payloadType is not application/vnd.in-toto+json."""


class SignatureRefused(ArtifactRefused):
    """The signatures do not establish that the release role signed these bytes."""


class UnknownKey(SignatureRefused):
    """A signature whose keyid the trust root's release role does not list."""


class RevokedKey(SignatureRefused):
    """A signature by a key the trust root has revoked (refused whatever the run's date)."""


class BadSignature(SignatureRefused):
    """A signature that does not verify under the key its keyid names."""


class ThresholdUnmet(SignatureRefused):
    """Fewer distinct release keys signed than the release threshold (one key counts once)."""


class KeyOutsideWindow(SignatureRefused):
    """A key used outside its validity window (checked at the statement's ``issued_at``)."""


class NonCanonicalPayload(ArtifactRefused):
    """Payload bytes that are not exactly the RFC 8785 canonical JSON of what they parse to."""


class UnsafeSubjectPath(ArtifactRefused):
    """A subject name that is absolute or climbs out of the artifacts directory."""


class SchemaRefused(ArtifactRefused):
    """A statement that is not an in-toto Statement v1 with a valid memrank run predicate."""


class PolicyRefused(ArtifactRefused):
    """A valid, signed run that the trust root's policy does not admit."""


class DevelopmentObservation(PolicyRefused):
    """memrank ran from a mutable checkout (editable or source tree): not publishable."""


class SliceNotPublishable(PolicyRefused):
    """The run was of a slice, and a slice is not a measurement."""


class UnknownTrack(PolicyRefused):
    """A track the trust root does not list."""


class EvidenceNotAccepted(PolicyRefused):
    """An evidence class the track does not accept."""


class UnpinnedPipeline(PolicyRefused):
    """A pipeline code hash the track's baseline does not list."""


class UnpinnedDataset(PolicyRefused):
    """A dataset bundle the track's baseline does not pin for that evaluation."""


class QuestionCountsDiffer(PolicyRefused):
    """Question counts per category other than the track's baseline."""


class TasksFailed(PolicyRefused):
    """A run whose signed failure-rate is not zero (or absent): a board ranks complete runs only."""


class IntegritySuspect(PolicyRefused):
    """An endpoint run whose signed summary holds the integrity verdict suspect."""


class UncommittedBuild(PolicyRefused):
    """A run by a wheel built from a tree with uncommitted changes, or that records no source
    commit: nobody could rebuild what ran."""


class ArtifactNameMismatch(ArtifactRefused):
    """An envelope file not named by its artifact id (``runs/<artifact-id>.json``)."""


class SubjectMissing(ArtifactRefused):
    """The result file the statement names is not in the artifacts directory."""


class SubjectDigestMismatch(ArtifactRefused):
    """A result file whose sha256 (or content) is not what the statement signed."""


class RunConflict(ArtifactRefused):
    """Two artifacts of one run_id, neither superseding the other."""


class ScoresMissing(ArtifactRefused):
    """The scores file the statement names is not in the artifacts directory."""


class ScoresMalformed(ArtifactRefused):
    """A scores file that is not canonical JSON shaped as docs/artifacts.md says."""


class ScoresDigestMismatch(ArtifactRefused):
    """A scores file whose sha256 is not the one the statement signed (it was edited)."""


class ScoresSwapped(ScoresDigestMismatch):
    """A scores file that belongs to another result file than the one the statement names."""


class ScoresDiffer(ArtifactRefused):
    """A scores file that is not what its (digest-checked) result file gives."""


class TimingsMissing(ArtifactRefused):
    """The timings file the statement names is not in the artifacts directory."""


class TimingsDigestMismatch(ArtifactRefused):
    """A timings file whose sha256 is not the signed one (it was edited)."""


class TimingsDiffer(ArtifactRefused):
    """A timings file that is malformed, names another result file, or does not state the
    start, end, machine or latency values the statement does."""


class SemanticRefused(ArtifactRefused):
    """Signed, well-formed, and still not a run a board can show: its numbers or text break what
    the measures and the board promise (docs/artifacts.md, "What a signed run may hold")."""


class ValueNotFinite(SemanticRefused):
    """A value that is NaN or infinite (absent is None with a reason, never a number)."""


class ValueNotBinary(SemanticRefused):
    """A value of a binary-declared measure that is not 0 or 1."""


class ShareInconsistent(SemanticRefused):
    """A share outside [0, 1], a count above its total, or a value that is not count/total."""


class ValueOutOfRange(SemanticRefused):
    """A value outside the range its measure declares (or beyond the magnitude any may hold)."""


class TaskIdsRepeat(SemanticRefused):
    """Two tasks of one run under one id: a column could not say which value is whose."""


class OversizeField(SemanticRefused):
    """A text field, a list or a whole file beyond its documented bound."""


class ResultStoreError(ArtifactRefused):
    """The results store did not answer for a result file: unreachable, timed out, an error."""
