"""docs/*.md as board pages, rendered by markdown-it-py with raw HTML off.

The ``js-default`` preset is markdown-it's safe one: HTML in the source is shown as text, and
links with scripting schemes (``javascript:``, ``vbscript:``, ``data:``) are not made links.
A link to another page of docs/ (``methodology.md#values``) is pointed at that page on the board.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
from markupsafe import Markup

if TYPE_CHECKING:
    from markdown_it.token import Token

from memrank.board import urls
from memrank.board.memo import NO_MEMO, Memo
from memrank.board.model import DocPage
from memrank.errors import BoardConfigError

__all__ = ["render_docs"]

_SCROLLING = frozenset({"table_open", "fence", "code_block"})
"""Tokens rendered as boxes that scroll when wide (tables, code blocks)."""
_DOC_LINK = re.compile(r"(?:\./)?(?:docs/)?(?P<name>[A-Za-z0-9_-]+)\.md(?P<fragment>#.*)?")


def render_docs(folder: Path, memo: Memo = NO_MEMO) -> tuple[DocPage, ...]:
    """Every ``*.md`` file of ``folder``, in name order; an absent folder gives none. ``memo``
    gives back the pages an earlier build rendered from the same files."""
    if not folder.is_dir():
        return ()
    sources = sorted(folder.glob("*.md"))
    for source in sources:
        if not _plain_name(source.name):
            raise BoardConfigError(
                f"{folder}: the docs page {os.fsencode(source.name)!r} has a file name that is "
                "not printable UTF-8; rename it (its name becomes the page's address)"
            )
    names = {source.stem for source in sources}
    made = memo.through(
        lambda: _parts(sources),
        lambda: orjson.dumps([_render(source, names).model_dump() for source in sources]),
    )
    return tuple(DocPage(**{**page, "html": Markup(page["html"])}) for page in orjson.loads(made))


def _plain_name(name: str) -> bool:
    """A file name that is printable UTF-8 (an undecodable byte is a lone surrogate here)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return name.isprintable()


def _parts(sources: list[Path]) -> tuple[str | bytes, ...]:
    """What the pages are made from: each source's name and bytes (and when one cannot be
    read, why: rendering it then says so to the user)."""
    try:
        return ("docs", *(part for s in sources for part in (s.name, s.read_bytes())))
    except OSError as exc:
        return ("docs unreadable", str(exc))


def _render(source: Path, names: set[str]) -> DocPage:
    from markdown_it import MarkdownIt

    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BoardConfigError(f"{source}: cannot read this docs page ({exc})") from None
    path = urls.doc(source.stem)
    md = MarkdownIt("js-default")
    tokens = md.parse(text)
    title = source.stem
    for position, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1":
            title = tokens[position + 1].content
            break
    for token in tokens:
        _align_by_class(token)
        if token.type in _SCROLLING:
            # They scroll sideways when wide: a keyboard must be able to reach and scroll them.
            token.attrSet("tabindex", "0")
        for child in token.children or ():
            if child.type == "link_open":
                child.attrSet("href", _link(str(child.attrGet("href") or ""), path, names))
    html = md.renderer.render(tokens, md.options, {})
    return DocPage(
        name=source.stem,
        title=title,
        label=title.split(":", 1)[0],
        path=path,
        html=Markup(html),
    )


def _align_by_class(token: Token) -> None:
    """A table cell's alignment as a class: the pages' Content-Security-Policy refuses inline
    ``style`` attributes, which markdown-it would otherwise write."""
    style = token.attrs.pop("style", None)
    if isinstance(style, str) and style.startswith("text-align:"):
        token.attrJoin("class", "align-" + style.removeprefix("text-align:"))


def _link(target: str, page: str, names: set[str]) -> str:
    """A link to another docs page, pointed at its board page; anything else unchanged."""
    found = _DOC_LINK.fullmatch(target)
    if found is None or found["name"] not in names:
        return target
    return urls.href(page, urls.doc(found["name"])) + (found["fragment"] or "")
