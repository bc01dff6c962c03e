"""How a service is authenticated: a scheme and its secret, which is never printed."""

from __future__ import annotations

import hmac
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from memrank.errors import UsageError

__all__ = ["SCHEMES", "Auth"]

SCHEMES = ("Token", "Bearer", "X-Api-Key")
"""The authentication schemes a service may use: ``Authorization: Token|Bearer <key>`` or
an ``X-Api-Key: <key>`` header."""


@dataclass(frozen=True)
class Auth:
    """An authentication scheme and its secret (never printed)."""

    scheme: str
    secret: str = field(repr=False)

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise UsageError(
                f"auth scheme {self.scheme!r} is not one of {', '.join(SCHEMES)}; "
                "pick the one the endpoint expects"
            )
        if not self.secret:
            raise UsageError(f"the {self.scheme} secret is empty; give the key")

    @classmethod
    def named(cls, scheme: str, secret: str) -> Auth:
        """An Auth from a scheme name given in any letter case."""
        canonical = {s.lower(): s for s in SCHEMES}.get(scheme.lower(), scheme)
        return cls(canonical, secret)

    @classmethod
    def from_spec(cls, spec: str) -> Auth:
        """``SCHEME:ENVVAR`` (as ``--auth`` takes it): the scheme, keyed by that variable."""
        scheme, colon, variable = spec.partition(":")
        if not colon or not variable:
            raise UsageError(
                f"--auth {spec!r} is not SCHEME:ENVVAR; e.g. --auth Bearer:AML_API_KEY "
                f"(schemes: {', '.join(SCHEMES)})"
            )
        secret = os.environ.get(variable, "")
        if not secret:
            raise UsageError(f"--auth {spec}: the environment variable {variable} is not set")
        return cls.named(scheme, secret)

    def headers(self) -> dict[str, str]:
        """The header that carries the secret."""
        if self.scheme == "X-Api-Key":
            return {"X-Api-Key": self.secret}
        return {"Authorization": f"{self.scheme} {self.secret}"}

    def accepts(self, headers: Mapping[str, str]) -> bool:
        """Whether request headers (looked up by lower-case name) carry this secret."""
        ((name, expected),) = self.headers().items()
        given = headers.get(name.lower(), "")
        return hmac.compare_digest(given.encode(), expected.encode())
