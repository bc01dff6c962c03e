"""The build's second stage: every envelope in artifacts/runs/ verified against the trust root.

The verifier is memrank.artifacts' own (what ``memrank verify`` runs): a refused artifact, a
development observation among them, is reported with its reason and never reaches a page.
"""

from __future__ import annotations

from pathlib import Path

from memrank.artifacts import Verification, verify_directory
from memrank.board.load import Inputs
from memrank.board.memo import Memo

__all__ = ["verify_runs"]


def verify_runs(artifacts: Path, inputs: Inputs, memo: Memo) -> Verification:
    """Verify every ``artifacts/runs/*.json`` against ``inputs.trust``. ``memo`` remembers
    which artifacts' scores files passed every check, which then are not checked again (their
    artifact id names the scores file's sha256: the checks are a function of those bytes)."""
    entry = memo.entry("artifacts whose scores file passed every check")
    known = memo.get(entry)
    known_good = set(known.decode().split()) if known else set()
    before = len(known_good)
    verification = verify_directory(artifacts, inputs.trust, known_good=known_good)
    if memo.active and len(known_good) > before:
        memo.put(entry, "\n".join(sorted(known_good)).encode())
    return verification
