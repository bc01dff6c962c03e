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
    ├── RunSuspect                  (exit 11) `memrank run` finished and saved an endpoint run whose integrity is suspect
    ├── DatasetError                (exit 1)  an evaluation's material cannot be used
    │   ├── DatasetMissing                    a file is not there and could not be downloaded
    │   ├── DatasetMismatch                   a file whose size or sha256 differs from its pin
    │   └── DatasetMalformed                  a file that is not in the format, or counts that differ
    ├── KeyFileError                (exit 2)  a key file that is missing, not PEM, or not Ed25519
    ├── AttestRefused               (exit 3)  attest will not sign this result
    │   ├── SuspectRun                        a run whose integrity verdict is suspect
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
    │   │   ├── IntegritySuspect              an endpoint run whose integrity verdict is suspect
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
    ├── StoreUploadFailed           (exit 1)  result files not uploaded to the results store's release
    └── Interrupted                 (exit 130) Ctrl-C stopped a run; its journal resumes it
        ├── Terminated              (exit 143) SIGTERM stopped it, as Ctrl-C does
        └── HungUp                  (exit 129) SIGHUP stopped it, as Ctrl-C does

A refused run is also returned as a ``Result`` whose ``refusal`` names the reason, so nothing
is lost; ``RefusedRun`` is what the command line raises when it meets one. An
``EndpointError`` raised inside a run is recorded on the task's trace, like any failure of a
system, and never stops the run.
"""

from __future__ import annotations

from memrank._errors import (
    ArtifactNameMismatch,
    ArtifactRefused,
    AttestRefused,
    BadSignature,
    BoardConfigError,
    BoardError,
    CheckFailed,
    ContractError,
    DatasetError,
    DatasetMalformed,
    DatasetMismatch,
    DatasetMissing,
    DefinitionError,
    DevelopmentObservation,
    EndpointError,
    EvidenceNotAccepted,
    HungUp,
    IntegritySuspect,
    Interrupted,
    JudgeFailed,
    KeyFileError,
    KeyOutsideWindow,
    MalformedEnvelope,
    MeasureRefused,
    MemrankError,
    MergeRefused,
    MissingExtra,
    NonCanonicalPayload,
    NotCanonicalizable,
    OutputUnwritable,
    OversizeField,
    OversizeFile,
    PairingRefused,
    PolicyRefused,
    QuestionCountsDiffer,
    RefusedRun,
    ReproduceRefused,
    RerunDiffers,
    ResultFileError,
    ResultStoreError,
    RevokedKey,
    RootExpired,
    RootMalformed,
    RootRollback,
    RootSignaturesUnmet,
    RootVersionRepeated,
    RootVersionSkipped,
    RunConflict,
    RunSuspect,
    SchemaRefused,
    ScoresDiffer,
    ScoresDigestMismatch,
    ScoresMalformed,
    ScoresMissing,
    ScoresSwapped,
    SemanticRefused,
    ShareInconsistent,
    SignatureRefused,
    SiteOutOfDate,
    SliceNotPublishable,
    StoreUploadFailed,
    SubjectDigestMismatch,
    SubjectMissing,
    SuspectRun,
    TaskIdsRepeat,
    TasksFailed,
    TasksFailedInRun,
    Terminated,
    ThresholdUnmet,
    TimingsDiffer,
    TimingsDigestMismatch,
    TimingsMissing,
    TrustRootRefused,
    UncommittedBuild,
    UnknownKey,
    UnknownName,
    UnknownTrack,
    UnpinnedDataset,
    UnpinnedPipeline,
    UnsafeSubjectPath,
    UsageError,
    ValueNotBinary,
    ValueNotFinite,
    ValueOutOfRange,
    WrongPayloadType,
)

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
    "StoreUploadFailed",
    "SubjectDigestMismatch",
    "SubjectMissing",
    "TaskIdsRepeat",
    "TasksFailed",
    "IntegritySuspect",
    "RunSuspect",
    "SuspectRun",
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
