"""Text that misleads a reader, by Unicode's own definitions (UTS #39, Unicode Security
Mechanisms): characters that draw nothing or steer text direction, and names that look alike.

Invisible characters: one definition, from the Unicode Character Database, for the two places
that must agree on it: attestation (which refuses them in what a board shows as a name) and the
board (which shows any it meets, in artifacts signed before, as ``⟨U+XXXX⟩``). The definition is
the Unicode properties, not a list kept by hand: every Default_Ignorable_Code_Point (zero-width
characters, the combining grapheme joiner U+034F, Hangul fillers, Khmer inherent vowels, tag
characters ...), every Bidi_Control and Variation_Selector, the general categories that draw
nothing or are not text (controls, format characters, surrogates, private use, unassigned, line
and paragraph separators), and the blank braille pattern U+2800, a symbol that draws nothing.
Tab and newline are plain whitespace on a page and are kept.

Confusable skeletons (UTS #39, section 4): two names with one skeleton look alike.
"BM25Adapter" with a Cyrillic "а" is another string and the same picture. The data is
Unicode's confusables.txt as the confusable-homoglyphs package ships it (both directions of
each source -> prototype line); the prototype of each class is recovered from it: a sequence of
several characters when the class has one (sources are single code points), else the member
that the most others map to, ties broken by code point, so equal skeletons mean what UTS #39's
do. Callers compare text as readers see it: the board writes a character that draws nothing as
``⟨U+XXXX⟩``, so such a name no longer reads like the plain one.
"""

from __future__ import annotations

import functools
import importlib.resources
import unicodedata

import orjson
import regex

__all__ = ["first_invisible", "invisible", "nothing_invisible", "skeleton"]

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


_DISPLAY_MARKS = str.maketrans("", "", "\u200e\u200f")
"""confusables.txt wraps right-to-left characters in direction marks in its comments."""


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> the prototype of its class."""
    text = importlib.resources.files("confusable_homoglyphs").joinpath("confusables.json")
    # orjson, not json: a build reads these 900 kB once, in the process every other waits on
    data: dict[str, list[dict[str, str]]] = orjson.loads(text.read_bytes())
    parent: dict[str, str] = {}

    def root(item: str) -> str:
        while parent.setdefault(item, item) != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    links: dict[str, int] = {}
    for raw, entries in data.items():
        key = raw.translate(_DISPLAY_MARKS)
        links[key] = links.get(key, 0) + len(entries)
        for entry in entries:
            other = entry["c"].translate(_DISPLAY_MARKS)
            parent[root(key)] = root(other)
    classes: dict[str, list[str]] = {}
    for item in list(parent):
        classes.setdefault(root(item), []).append(item)
    prototypes: dict[str, str] = {}
    for members in classes.values():
        prototype = min(members, key=lambda m: (len(m) == 1, -links.get(m, 0), m))
        prototypes.update({m: prototype for m in members if len(m) == 1})
    return prototypes


def skeleton(text: str) -> str:
    """TR39's skeleton of ``text``: NFD, each character to its prototype, NFD again."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)
