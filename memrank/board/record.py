"""The board's record of change, as the changes page lists it: each run added or corrected,
and each verified version of the trust root with what it changed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from memrank._basics import UTCDateTime

__all__ = ["Change", "RootVersion", "Words"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Change(BaseModel):
    """One line of the board's history."""

    model_config = _FROZEN
    at: UTCDateTime
    what: str
    """``added`` or ``corrected``."""
    text: str
    path: str | None


class Words(BaseModel):
    """Part of a line: memrank's own words, or text copied from a signed artifact."""

    model_config = _FROZEN
    text: str
    signed: bool = False
    """Copied from the artifact (a key id, a track or evaluation name): shown made visible and
    isolated, so it cannot steer the words around it."""


class RootVersion(BaseModel):
    """One version of the trust root, as the verified chain says, and what it changed."""

    model_config = _FROZEN
    version: int
    dated: UTCDateTime
    """The newest key date the chain signs up to this version: the ``valid_from`` of a key it
    adds or the ``valid_until`` of a key it retires. A root carries no date of issue."""
    dated_by: int
    """The version that signs the key date ``dated``: this one, or an earlier one when this
    version adds or retires no key (or only earlier-dated ones)."""
    expires: UTCDateTime
    edits: tuple[tuple[Words, ...], ...]
    """One line per change from the version before (for the first version walked: everything
    it holds)."""

    @property
    def anchor(self) -> str:
        """The fragment naming this version on the changelog page."""
        return f"root-{self.version}"
