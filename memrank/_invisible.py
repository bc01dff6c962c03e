"""Characters that draw nothing or steer text direction: one definition, from the Unicode
Character Database, for the two places that must agree on it: attestation (which refuses them
in what a board shows as a name) and the board (which shows any it meets, in artifacts signed
before, as ``⟨U+XXXX⟩``).

The definition is the Unicode properties, not a list kept by hand: every
Default_Ignorable_Code_Point (zero-width characters, the combining grapheme joiner U+034F,
Hangul fillers, Khmer inherent vowels, tag characters ...), every Bidi_Control and
Variation_Selector, the general categories that draw nothing or are not text (controls,
format characters, surrogates, private use, unassigned, line and paragraph separators), and
the blank braille pattern U+2800, a symbol that draws nothing. Tab and newline are plain
whitespace on a page and are kept.
"""

from __future__ import annotations

import regex

__all__ = ["first_invisible", "invisible", "nothing_invisible"]

_INVISIBLE = regex.compile(
    r"(?V1)[[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\p{Variation_Selector}"
    r"\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u2800]--[\t\n]]"
)


def invisible(character: str) -> bool:
    """Whether ``character`` draws nothing or steers direction (tab, newline and space do not)."""
    return _INVISIBLE.match(character) is not None


def nothing_invisible(text: str) -> bool:
    """Whether no character of ``text`` is invisible; printable ASCII is answered at C speed."""
    if text.isascii() and text.isprintable():
        return True
    return _INVISIBLE.search(text) is None


def first_invisible(text: str) -> str | None:
    """The first invisible or direction-steering character of ``text``, or None."""
    if text.isascii() and text.isprintable():
        return None
    found = _INVISIBLE.search(text)
    return None if found is None else found.group()
