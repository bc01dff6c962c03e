"""Opaque names for everything memrank sends an endpoint, keyed by a per-run secret.

A name is ``<kind letter><24 hex digits>``: the first 96 bits of HMAC-SHA256 over the kind and
the real name (``"<kind>\\x00<real name>"``, UTF-8) under the run's 16-byte secret. The same
real name maps to the same opaque name within a run, and to an unrelated one in the next run;
nobody without the secret can tell which unit, session or document a name stands for. The
secret is recorded in the result when the run ends, so a reviewer (or a rerun) recomputes the
map with any HMAC implementation.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

__all__ = ["WireNames"]

_KINDS = {"unit": "u", "document": "d", "session": "s", "run": "r", "evaluation": "e"}


class WireNames:
    """The opaque names of one run, and the way back from each to what it stands for."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) != 16:
            raise ValueError("a run's secret is 16 bytes")
        self.secret = secret
        self._real: dict[str, str] = {}

    @classmethod
    def fresh(cls) -> WireNames:
        return cls(secrets.token_bytes(16))

    def of(self, kind: str, real: str) -> str:
        """The opaque name of ``real``, a name of ``kind`` (unit, document, session, run or
        evaluation); remembered so ``real_of`` can map it back."""
        mac = hmac.new(self.secret, f"{kind}\x00{real}".encode(), hashlib.sha256)
        opaque = _KINDS[kind] + mac.hexdigest()[:24]
        self._real[opaque] = real
        return opaque

    def real_of(self, opaque: str) -> str | None:
        """What an opaque name handed out in this run stands for; None for any other text."""
        return self._real.get(opaque)
