"""Characters that draw nothing or steer text direction: one definition for the two places
that must agree on it, attestation (which refuses them in what a board shows as a name) and the
board (which shows any it meets, in artifacts signed before, as ``⟨U+XXXX⟩``)."""

from __future__ import annotations

import unicodedata

__all__ = ["first_invisible", "invisible", "nothing_invisible"]

_KEPT = frozenset("\n\t ")
"""Control and separator characters that are plain whitespace on a page."""
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters (zero-width, direction marks, overrides, isolates), surrogates,
private-use and unassigned code points, and line and paragraph separators."""
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")
"""Letters and symbols that draw nothing (Hangul fillers, the blank braille pattern)."""


def invisible(character: str) -> bool:
    """Whether ``character`` draws nothing or steers direction (plain whitespace does not)."""
    if character in _KEPT:
        return False
    return character in _FILLERS or unicodedata.category(character) in _INVISIBLE_CATEGORIES


def nothing_invisible(text: str) -> bool:
    """The common case, answered fast: no character of ``text`` is invisible. (Space is
    printable and a newline is not; the fillers are printable letters, so they are looked for.)"""
    return text.isprintable() and _FILLERS.isdisjoint(text)


def first_invisible(text: str) -> str | None:
    """The first invisible or direction-steering character of ``text``, or None."""
    if nothing_invisible(text):
        return None
    return next((character for character in text if invisible(character)), None)
