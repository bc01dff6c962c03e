"""Every class of memrank's exception tree, in the order ``memrank.errors`` draws it.

``memrank.errors`` draws the tree and is where callers import from; tests/test_errors.py
holds the drawing and these classes to each other (names, parents, exit codes)."""

from __future__ import annotations

import click


class MemrankError(click.ClickException):
    """The root of every error memrank raises on purpose."""

    exit_code = 1


class UsageError(MemrankError):
    """A bad argument, option or name given by the caller."""

    exit_code = 2


class UnknownName(UsageError):
    """A name that nothing in the catalog ships under."""


class MissingExtra(UsageError):
    """A command or system needs an optional extra that is not installed
    (``pip install 'memrank[serve]'``, ``'memrank[dense]'``)."""


class OutputUnwritable(UsageError):
    """An output path that cannot be written: checked before the work that fills it starts."""


class DefinitionError(MemrankError):
    """A system, evaluation or measure whose definition cannot be used as written."""

    exit_code = 2


class RefusedRun(MemrankError):
    """memrank.run refused the run before touching the system."""

    exit_code = 3


class MeasureRefused(MemrankError):
    """A measure reads a trace field or value name that the run never produced."""

    exit_code = 3


class PairingRefused(MemrankError):
    """memrank.paired refused two results: not one evaluation at one version, a refused run, or
    two values of one measure for one task."""

    exit_code = 3


class MergeRefused(MemrankError):
    """memrank merge refused: not shards, a shard missing or repeated, or shards of different
    systems, evaluations, pipelines or dataset bundles."""

    exit_code = 3


class ResultFileError(MemrankError):
    """A saved result file that is missing, malformed or of an unknown schema."""

    exit_code = 4


class EndpointError(MemrankError):
    """A running service answered an error status or could not be reached, after the retries
    its operation allows; the message names the URL and status, capped and free of secrets."""


class ContractError(EndpointError):
    """A response that breaks the contract or API it answers (the Add/Search contract, an
    engine's documented API, the translator contract); the message carries the evidence."""


class CheckFailed(MemrankError):
    """``memrank check`` found at least one check the endpoint does not pass."""


class KeyFileError(MemrankError):
    """A key file that is missing, unreadable, not PEM, or not an Ed25519 key."""

    exit_code = 2


class AttestRefused(MemrankError):
    """attest will not sign this result (refused run, no provenance, unknown division...)."""

    exit_code = 3


class SuspectRun(AttestRefused):
    """A run whose integrity verdict is suspect (memrank.integrity): neither review, approve
    nor attest signs it for publication."""


class RunSuspect(MemrankError):
    """`memrank run` finished, printed and saved an endpoint run whose integrity verdict is
    suspect."""

    exit_code = 11


class NotCanonicalizable(AttestRefused):
    """A number RFC 8785 canonical JSON cannot carry: NaN, infinity, an integer beyond 2^53."""


# -- evaluation material ----------------------------------------------------------------------


class DatasetError(MemrankError):
    """An evaluation's material that cannot be used; the message names the file."""


class DatasetMissing(DatasetError):
    """A file that is not where it should be and could not be downloaded there."""


class DatasetMismatch(DatasetError):
    """A file whose size or sha256 differs from its pin (truncated, edited, or another version)."""


class DatasetMalformed(DatasetError):
    """A file that does not parse in its format, or whose counts differ from the fingerprint."""


class BoardError(MemrankError):
    """The board cannot be built or checked as asked."""

    exit_code = 1


class BoardConfigError(BoardError):
    """board.toml, the templates or the docs cannot be used as written."""

    exit_code = 2


class SiteOutOfDate(BoardError):
    """``build-site --check``: the committed site is not what the artifacts build."""

    exit_code = 1


class Interrupted(MemrankError):
    """Ctrl-C (or ``memrank kill``) stopped a run; the message says how to resume it."""

    exit_code = 130


class Terminated(Interrupted):
    """SIGTERM (CI cancellation, ``docker stop``, systemd) stopped a run, as Ctrl-C does."""

    exit_code = 143


class HungUp(Interrupted):
    """SIGHUP (the terminal closed) stopped a run, as Ctrl-C does."""

    exit_code = 129


class TasksFailedInRun(MemrankError):
    """``memrank run`` finished (the result printed, and saved when asked) but tasks failed."""

    exit_code = 7


class JudgeFailed(MemrankError):
    """The judge failed every call (``run`` or ``measure``): nothing was judged, though the
    result was printed (and saved when asked); the message quotes the first failure."""

    exit_code = 8


class ReproduceRefused(MemrankError):
    """``memrank reproduce`` cannot recreate the recorded build (the commit is not in the
    repository, a distribution cannot be had, the run records no build) or rerun it."""

    exit_code = 10


class RerunDiffers(MemrankError):
    """A rerun's deterministic files are not the signed ones; the printed reading says which
    tasks flipped and which fields differ."""

    exit_code = 9


class StoreUploadFailed(MemrankError):
    """Result files could not be uploaded to the results store's GitHub release: a token it
    refuses, a repository it does not show, a rate limit past the wait allowed, an upload that
    kept failing, or an asset of a result file's name holding other bytes."""

    exit_code = 1


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
