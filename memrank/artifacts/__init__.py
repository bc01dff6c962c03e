"""Signed, content-addressed run artifacts and the trust root that says whose signatures count.

``attest`` signs a result; ``verify`` checks one envelope; ``verify_directory`` checks every
envelope in an artifacts directory against its ``root.json`` and reports each refusal. The
format is documented in docs/artifacts.md so that a verifier can be written from it alone.
"""

from memrank.artifacts._attest import Attested, attest
from memrank.artifacts._canonical import canonical_bytes, parse_canonical
from memrank.artifacts._envelope import IN_TOTO_PAYLOAD_TYPE, Opened, open_envelope, pae, seal
from memrank.artifacts._keys import (
    SIGNING_KEY_VARIABLE,
    generate_key_files,
    keyid_of,
    load_private_key,
    load_public_key,
    public_hex,
    signing_key,
)
from memrank.artifacts._results_store import (
    ResultsStore,
    held_by_store,
    record_stored,
    results_cache,
    store_of_board,
)
from memrank.artifacts._root import (
    DatasetBaseline,
    KeyStatus,
    Role,
    Roles,
    Root,
    TrackPolicy,
    TrustedKey,
)
from memrank.artifacts._scored import result_of_scores, signed_result
from memrank.artifacts._scores import (
    SCORES_SCHEMA,
    ScoreColumn,
    ScoredEvaluation,
    Scores,
    read_scores,
    scores_of,
)
from memrank.artifacts._statement import (
    PREDICATE_TYPE,
    STATEMENT_TYPE,
    Division,
    RunPredicate,
    Statement,
)
from memrank.artifacts._store import (
    Refusal,
    Verification,
    envelope_naming,
    locate,
    verify_all,
    verify_directory,
)
from memrank.artifacts._timings import TIMINGS_SCHEMA, RunFiles, join, run_files
from memrank.artifacts._trust import (
    ROOT_PAYLOAD_TYPE,
    TrustRoot,
    load_trust,
    read_root,
    sign_root,
    write_root,
)
from memrank.artifacts._verify import MAX_ENVELOPE_BYTES, MAX_RESULT_BYTES, VerifiedRun, verify

__all__ = [
    "IN_TOTO_PAYLOAD_TYPE",
    "MAX_ENVELOPE_BYTES",
    "MAX_RESULT_BYTES",
    "PREDICATE_TYPE",
    "ROOT_PAYLOAD_TYPE",
    "SCORES_SCHEMA",
    "SIGNING_KEY_VARIABLE",
    "TIMINGS_SCHEMA",
    "STATEMENT_TYPE",
    "Attested",
    "DatasetBaseline",
    "Division",
    "KeyStatus",
    "Opened",
    "Refusal",
    "ResultsStore",
    "Role",
    "Roles",
    "RunFiles",
    "Root",
    "RunPredicate",
    "ScoreColumn",
    "ScoredEvaluation",
    "Scores",
    "Statement",
    "TrackPolicy",
    "TrustRoot",
    "TrustedKey",
    "VerifiedRun",
    "Verification",
    "attest",
    "canonical_bytes",
    "envelope_naming",
    "generate_key_files",
    "held_by_store",
    "join",
    "keyid_of",
    "load_private_key",
    "load_public_key",
    "load_trust",
    "locate",
    "open_envelope",
    "pae",
    "parse_canonical",
    "public_hex",
    "read_root",
    "read_scores",
    "record_stored",
    "result_of_scores",
    "results_cache",
    "run_files",
    "scores_of",
    "seal",
    "sign_root",
    "signed_result",
    "signing_key",
    "store_of_board",
    "verify",
    "verify_all",
    "verify_directory",
    "write_root",
]
