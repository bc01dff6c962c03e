"""memrank's one exception tree.

Every error memrank raises on purpose is a ``MemrankError``; each carries a message that says
what went wrong, where (the file, field or argument), and what to do. Because the root is a
``click.ClickException``, the command line prints the message and exits with the class's
``exit_code`` without a traceback.

    MemrankError                    (exit 1)
    ├── UsageError                  (exit 2)  a bad argument, option or name
    │   ├── UnknownName                       a catalog name nothing ships under
    │   ├── MissingExtra                      an optional extra (memrank[serve]) not installed
    │   └── OutputUnwritable                  an output path that cannot be written (checked first)
    ├── DefinitionError             (exit 2)  a system, evaluation or measure that is malformed
    ├── RefusedRun                  (exit 3)  memrank.run refused before touching the system
    ├── MeasureRefused              (exit 3)  a measure reads what the stored run never produced
    ├── PairingRefused              (exit 3)  two results that cannot be read side by side
    ├── MergeRefused                (exit 3)  result files that are not the N shards of one run
    ├── ResultFileError             (exit 4)  a saved result that cannot be read back
    ├── EndpointError               (exit 1)  a running service failed a call, after the retries allowed
    │   └── ContractError                     a response off the contract or API it answers
    ├── CheckFailed                 (exit 1)  `memrank check` found the endpoint not conformant
    ├── TasksFailedInRun            (exit 7)  `memrank run` finished, printed and saved, but tasks failed
    ├── JudgeFailed                 (exit 8)  the judge failed every call it made (the result printed)
    ├── DatasetError                (exit 1)  an evaluation's material cannot be used
    │   ├── DatasetMissing                    a file is not there and could not be downloaded
    │   ├── DatasetMismatch                   a file whose size or sha256 differs from its pin
    │   └── DatasetMalformed                  a file that is not in the format, or counts that differ
    ├── KeyFileError                (exit 2)  a key file that is missing, not PEM, or not Ed25519
    ├── AttestRefused               (exit 3)  attest will not sign this result
    │   └── NotCanonicalizable                a number canonical JSON cannot carry (NaN, beyond 2^53)
    ├── TrustRootRefused            (exit 5)  the trust root and its chain cannot be trusted
    │   ├── RootMalformed                     unreadable, malformed, non-canonical or invalid
    │   ├── RootSignaturesUnmet               a threshold of the old or the new root keys is missing
    │   ├── RootVersionSkipped                version N followed by one above N+1
    │   ├── RootVersionRepeated               two different roots claim one version
    │   ├── RootRollback                      a version lower than one already trusted
    │   └── RootExpired                       the newest root's expiry has passed
    ├── ArtifactRefused             (exit 6)  the verifier refused a signed run, in this order:
    │   ├── OversizeFile                      a file over the size cap
    │   ├── MalformedEnvelope                 not JSON, duplicate or unknown keys, bad base64
    │   ├── WrongPayloadType                  not application/vnd.in-toto+json
    │   ├── SignatureRefused
    │   │   ├── UnknownKey                    a keyid the release role does not list
    │   │   ├── RevokedKey                    a key the trust root revoked
    │   │   ├── BadSignature                  a signature that does not verify under its key
    │   │   ├── ThresholdUnmet                fewer distinct keys than the release threshold
    │   │   └── KeyOutsideWindow              issued_at outside the key's validity window
    │   ├── NonCanonicalPayload               payload bytes that are not RFC 8785 canonical JSON
    │   ├── UnsafeSubjectPath                 a subject name that is absolute or climbs out (..)
    │   ├── SchemaRefused                     a statement that is not a memrank run statement
    │   ├── PolicyRefused
    │   │   ├── DevelopmentObservation        memrank ran from a mutable checkout
    │   │   ├── SliceNotPublishable           a slice is not a measurement
    │   │   ├── UnknownTrack                  a track the trust root does not list
    │   │   ├── EvidenceNotAccepted           an evidence class the track does not accept
    │   │   ├── UnpinnedPipeline              a pipeline code hash the track does not list
    │   │   ├── UnpinnedDataset               a dataset bundle the track does not pin
    │   │   ├── QuestionCountsDiffer          question counts other than the track's baseline
    │   │   ├── TasksFailed                   a run in which a task failed
    │   │   └── UncommittedBuild              a wheel built from a dirty tree, or naming no commit
    │   ├── ArtifactNameMismatch              runs/<name>.json where name is not the artifact id
    │   ├── ScoresMissing                     the scores file the statement names is not there
    │   ├── ScoresMalformed                   a scores file not shaped as the format says
    │   ├── ScoresDigestMismatch              the scores file's sha256 is not the signed one
    │   │   └── ScoresSwapped                 ... because it is another run's scores file
    │   ├── SubjectMissing                    the result file is not there (--deep: nor in the store)
    │   ├── ResultStoreError                  the results store failed to answer (--deep)
    │   ├── SubjectDigestMismatch             the result file's sha256 is not the signed one
    │   ├── ScoresDiffer                      the scores file is not what its result file gives
    │   ├── TimingsMissing                    the timings file the statement names is not there
    │   ├── TimingsDigestMismatch             the timings file's sha256 is not the signed one
    │   ├── TimingsDiffer                     the timings file does not state what the statement does
    │   ├── SemanticRefused                   signed numbers or text no board can show as a run
    │   │   ├── ValueNotFinite                a value that is NaN or infinite
    │   │   ├── ValueNotBinary                a binary-declared measure holding other than 0 or 1
    │   │   ├── ShareInconsistent             a share outside [0, 1], or a count above its total
    │   │   ├── ValueOutOfRange               a value outside its measure's declared range
    │   │   ├── TaskIdsRepeat                 two tasks of one run with one id
    │   │   └── OversizeField                 a text, list or file beyond its documented bound
    │   └── RunConflict                       one run_id, two artifacts, neither supersedes
    ├── BoardError                  (exit 1)  the board cannot be built or checked as asked
    │   ├── BoardConfigError        (exit 2)  board.toml, templates or docs unusable as written
    │   └── SiteOutOfDate           (exit 1)  --check: site/ is not what the artifacts build
    ├── ReproduceRefused            (exit 10) `memrank reproduce` cannot recreate the recorded build
    ├── RerunDiffers                (exit 9)  a rerun's files are not the signed ones (the reading says how)
    └── Interrupted                 (exit 130) Ctrl-C stopped a run; its journal resumes it
        ├── Terminated              (exit 143) SIGTERM stopped it, as Ctrl-C does
        └── HungUp                  (exit 129) SIGHUP stopped it, as Ctrl-C does

A refused run is also returned as a ``Result`` whose ``refusal`` names the reason, so nothing
is lost; ``RefusedRun`` is what the command line raises when it meets one. An
``EndpointError`` raised inside a run is recorded on the task's trace, like any failure of a
system, and never stops the run.
"""

from __future__ import annotations

import click

__all__ = [
    "ArtifactNameMismatch",
    "ArtifactRefused",
    "AttestRefused",
    "BadSignature",
    "BoardConfigError",
    "BoardError",
    "CheckFailed",
    "ContractError",
    "DatasetError",
    "DatasetMalformed",
    "DatasetMismatch",
    "DatasetMissing",
    "DefinitionError",
    "DevelopmentObservation",
    "EndpointError",
    "EvidenceNotAccepted",
    "HungUp",
    "Interrupted",
    "JudgeFailed",
    "KeyFileError",
    "KeyOutsideWindow",
    "MalformedEnvelope",
    "MeasureRefused",
    "MemrankError",
    "MissingExtra",
    "NonCanonicalPayload",
    "NotCanonicalizable",
    "OutputUnwritable",
    "OversizeField",
    "OversizeFile",
    "MergeRefused",
    "PairingRefused",
    "PolicyRefused",
    "QuestionCountsDiffer",
    "ReproduceRefused",
    "RerunDiffers",
    "RefusedRun",
    "ResultFileError",
    "RevokedKey",
    "RootExpired",
    "RootMalformed",
    "RootRollback",
    "RootSignaturesUnmet",
    "RootVersionRepeated",
    "RootVersionSkipped",
    "RunConflict",
    "TimingsDiffer",
    "TimingsDigestMismatch",
    "TimingsMissing",
    "UncommittedBuild",
    "ResultStoreError",
    "ScoresDiffer",
    "ScoresDigestMismatch",
    "ScoresMalformed",
    "ScoresMissing",
    "ScoresSwapped",
    "SchemaRefused",
    "SemanticRefused",
    "ShareInconsistent",
    "SignatureRefused",
    "SiteOutOfDate",
    "SliceNotPublishable",
    "SubjectDigestMismatch",
    "SubjectMissing",
    "TaskIdsRepeat",
    "TasksFailed",
    "TasksFailedInRun",
    "Terminated",
    "ThresholdUnmet",
    "TrustRootRefused",
    "UnknownKey",
    "UnknownName",
    "UnknownTrack",
    "UnpinnedDataset",
    "UnpinnedPipeline",
    "UnsafeSubjectPath",
    "UsageError",
    "ValueNotBinary",
    "ValueNotFinite",
    "ValueOutOfRange",
    "WrongPayloadType",
]


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


class NotCanonicalizable(AttestRefused):
    """A number RFC 8785 canonical JSON cannot carry: NaN, infinity, an integer beyond 2^53."""


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
