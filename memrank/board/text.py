"""Text from artifacts as the board shows it: invisible characters made visible, direction
isolated, long names shortened where a table has no room.

Signed text is still the signer's text: a U+202E (right-to-left override) in a system name
would reverse the words the board itself writes after it, and a zero-width space lets one name
read exactly like another. So every character that is invisible or steers direction is shown
as ``⟨U+202E⟩``, and artifact text sits in ``<bdi>`` (or between U+2068 and U+2069 where no
element can go, as in a page title), so even a right-to-left name keeps to its own box.
"""

from __future__ import annotations

import functools
import re

from markupsafe import Markup, escape

from memrank._unicode_security import invisible, nothing_invisible

__all__ = ["ISOLATED_LIMIT", "category_order", "isolated", "plain", "short", "visible"]

ISOLATED_LIMIT = 160
"""Characters a table or list shows of one name before ``short`` cuts it."""

_FIRST_STRONG_ISOLATE, _POP_ISOLATE = "\u2068", "\u2069"


def _shown(character: str) -> str:
    return f"⟨U+{ord(character):04X}⟩" if invisible(character) else character


def visible(text: str) -> str:
    """``text`` with every invisible or direction-steering character written out as
    ``⟨U+XXXX⟩``; anything else unchanged."""
    if nothing_invisible(text):
        return text
    return "".join(_shown(character) for character in text)


def short(text: str, limit: int = ISOLATED_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, saying how many more there are."""
    if len(text) <= limit:
        return text
    more = len(text) - limit
    return f"{text[:limit]}… ({more:,} more character{'' if more == 1 else 's'})"


def isolated(text: object) -> Markup:
    """Artifact text for an element's content: visible, escaped, in its own ``<bdi>``."""
    return _isolated(str(text))


@functools.lru_cache(maxsize=8192)
def _isolated(text: str) -> Markup:
    # Kept by text: this runs a hundred times per run page, mostly on the same few thousand
    # names (systems, categories, measures); escape() and concatenation, not Markup.format.
    return Markup(f"<bdi>{escape(visible(text))}</bdi>")


def plain(text: object) -> str:
    """Artifact text where no element can go (a page title, an attribute): visible, and
    isolated by U+2068 ... U+2069 so it cannot steer the words around it. Escaped later."""
    return f"{_FIRST_STRONG_ISOLATE}{visible(str(text))}{_POP_ISOLATE}"


@functools.lru_cache(maxsize=4096)
def category_order(category: str) -> tuple[tuple[int, str], ...]:
    """Categories in natural order: LoCoMo's 1 to 5, and MemoryCode's sessions-1, sessions-2
    ... sessions-100 (numbers inside a name compared as numbers, not as text). Kept by name:
    every run page sorts its evaluation's few categories again."""
    return tuple(
        (int(part), "") if part.isdigit() else (-1, part)
        for part in re.split(r"(\d+)", category)
        if part
    )
