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
``⟨U+XXXX⟩``, so such a name no longer reads like the plain one. The skeleton is taken of the
text's compatibility form (NFKC) first: confusables.txt maps fullwidth letters to their plain
ones but leaves fullwidth digits alone ("ＢＭ２５" would skeleton to "BM２５"), and a
compatibility character (a fullwidth "２", a superscript "²", a ligature "ﬁ") is drawn as its
plain form by design.

Mixed scripts (UTS #39, section 5): a name whose letters come from scripts that no one writing
system uses together, such as Latin with one Cyrillic letter ("BM25Аdapter"), reads as a plain
name of the one script and is another string. Each character's scripts are its
Script_Extensions (characters common to all scripts, digits and punctuation, fit any); Han with
kana (Japanese), with Bopomofo or with Hangul (Korean) are one writing system, and each of those
beside Latin letters is allowed, as UTS #39's "highly restrictive" level allows it.
"""

from __future__ import annotations

import functools
import importlib.resources
import unicodedata

import orjson
import regex

__all__ = ["first_invisible", "invisible", "mixed_scripts", "nothing_invisible", "skeleton"]

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
    """TR39's skeleton of ``text``'s compatibility form: NFKC, NFD, each character to its
    prototype, NFD again."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    mapped = "".join(prototypes.get(c, c) for c in decomposed)
    return unicodedata.normalize("NFD", mapped)


_ANY_SCRIPT = frozenset({"COMMON", "INHERITED"})
_WRITING_SYSTEMS = {
    "HAN": ("JAPANESE", "KOREAN", "HAN_WITH_BOPOMOFO"),
    "HIRAGANA": ("JAPANESE",),
    "KATAKANA": ("JAPANESE",),
    "HANGUL": ("KOREAN",),
    "BOPOMOFO": ("HAN_WITH_BOPOMOFO",),
}
"""UTS #39's augmented script sets: a script and the writing systems that use it with others."""
_BESIDE_LATIN = frozenset(("JAPANESE", "KOREAN", "HAN_WITH_BOPOMOFO"))


@functools.cache
def _script_names() -> tuple[tuple[str, regex.Pattern[str]], ...]:
    """Every script Unicode names (as the confusable-homoglyphs package lists them), each with
    a pattern matching the characters whose Script_Extensions hold it."""
    text = importlib.resources.files("confusable_homoglyphs").joinpath("categories.json")
    names: list[str] = orjson.loads(text.read_bytes())["iso_15924_aliases"]
    return tuple((name, regex.compile(rf"\p{{scx={name}}}")) for name in names)


@functools.lru_cache(maxsize=4096)
def _scripts_of(character: str) -> frozenset[str] | None:
    """The scripts ``character`` is written in, with the writing systems they make up; None
    for one that fits any (a digit, a space, a combining mark with no script of its own). A
    character of a script newer than the list is in one named ``UNLISTED``."""
    found = {name for name, pattern in _script_names() if pattern.match(character)}
    if found <= _ANY_SCRIPT:
        return None if found else frozenset({"UNLISTED"})
    return frozenset(found.union(*(_WRITING_SYSTEMS.get(name, ()) for name in found)))


def mixed_scripts(text: str) -> tuple[str, ...]:
    """The scripts ``text`` mixes when no one writing system uses them together (UTS #39's
    "highly restrictive" level: one script, or Latin beside Japanese, Korean or Han with
    Bopomofo), by name in alphabetical order; empty when it does not mix them."""
    if text.isascii():
        return ()
    sets = [found for found in map(_scripts_of, text) if found is not None]
    if not sets or frozenset.intersection(*sets):
        return ()
    beside_latin = [found for found in sets if "LATIN" not in found]
    if frozenset.intersection(*beside_latin) & _BESIDE_LATIN:
        return ()
    # named by the characters of one script alone (a middle dot is in sixteen)
    named = {min(own) for found in sets if len(own := found - _BESIDE_LATIN) == 1}
    return tuple(sorted(name.replace("_", " ").title() for name in named))
