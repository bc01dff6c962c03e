"""The prompt texts, read from the package (or a user's folder) and checked against their pins.

``prompts/prompts.toml`` names every text a protocol sends: its file, the sha256 of its bytes,
where it was read from (repository, path, commit), its licence, and whether it ships. A text
that ships is read from the package; one whose licence does not let memrank ship it is read
from ``MEMRANK_PROMPTS_DIR`` when the user supplies it. Either way its sha256 is checked before
a single request is made, so a run that names a protocol sends exactly the pinned bytes.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from memrank.errors import DatasetMismatch, UsageError

__all__ = ["PROMPTS_DIR_VARIABLE", "Prompt", "PromptPin", "pins", "prompt"]

PROMPTS_DIR_VARIABLE = "MEMRANK_PROMPTS_DIR"
_PACKAGE = "memrank.answer"


@dataclass(frozen=True)
class PromptPin:
    """What the package knows about one prompt text, whether or not it ships."""

    id: str
    file: str
    sha256: str
    source: str
    commit: str
    licence: str
    shipped: bool
    placeholders: tuple[str, ...]
    order: tuple[str, ...] = ()
    """For a positional template (``{}`` slots, as ``str.format(a, b, c)`` fills them): the
    name of each slot in turn."""
    unverified: str | None = None
    """Why the pin itself may not match the source, when it may not."""


@dataclass(frozen=True)
class Prompt:
    """A prompt text whose bytes matched its pin."""

    pin: PromptPin
    text: str

    @property
    def id(self) -> str:
        return self.pin.id

    @property
    def sha256(self) -> str:
        return self.pin.sha256

    def render(self, **slots: str) -> str:
        """The text with every placeholder replaced by its value in one pass (no other change),
        so a value that happens to contain a placeholder's spelling is left as it is."""
        return self.render_spans(**slots)[0]

    def render_spans(self, **slots: str) -> tuple[str, dict[str, tuple[int, int]]]:
        """The rendered text and where each slot's value landed in it (first to last use)."""
        named = self.pin.order or tuple(_slot(p) for p in self.pin.placeholders)
        missing = [name for name in named if name not in slots]
        if missing:
            raise UsageError(f"prompt {self.id}: no value for {', '.join(missing)}")
        if not self.pin.placeholders:  # a fixed text (Mem-Gallery's system prompt)
            return self.text, {}
        positional = iter(self.pin.order)
        pattern = "|".join(
            re.escape(p) for p in sorted(self.pin.placeholders, key=len, reverse=True)
        )
        pieces: list[str] = []
        spans: dict[str, tuple[int, int]] = {}
        length = last = 0
        for found in re.finditer(pattern, self.text):
            name = next(positional, None) if self.pin.order else _slot(found.group(0))
            if name is None:
                raise UsageError(f"prompt {self.id}: more {{}} slots than the {len(named)} named")
            pieces.append(self.text[last : found.start()])
            length += found.start() - last
            value = slots[name]
            start = spans[name][0] if name in spans else length
            spans[name] = (start, length + len(value))
            pieces.append(value)
            length += len(value)
            last = found.end()
        pieces.append(self.text[last:])
        return "".join(pieces), spans


def _slot(placeholder: str) -> str:
    """A placeholder's slot name: ``{{question}}``, ``{question}`` and ``[question]`` all
    name ``question``."""
    return placeholder.strip("{}[]")


@cache
def pins() -> dict[str, PromptPin]:
    """Every prompt the package knows, by id."""
    raw = resources.files(_PACKAGE).joinpath("prompts/prompts.toml").read_text("utf-8")
    return {
        name: PromptPin(
            id=name,
            file=entry["file"],
            sha256=entry["sha256"],
            source=entry["source"],
            commit=entry["commit"],
            licence=entry["licence"],
            shipped=entry["shipped"],
            placeholders=tuple(entry["placeholders"]),
            order=tuple(entry.get("order", ())),
            unverified=entry.get("unverified"),
        )
        for name, entry in tomllib.loads(raw).items()
    }


def prompt(prompt_id: str) -> Prompt:
    """The text of ``prompt_id``, its bytes checked against the pin."""
    pin = pins().get(prompt_id)
    if pin is None:
        raise UsageError(f"no prompt {prompt_id!r}; known: {', '.join(sorted(pins()))}")
    if pin.shipped:
        data = resources.files(_PACKAGE).joinpath(f"prompts/{pin.file}").read_bytes()
        where = f"the packaged prompts/{pin.file}"
    else:
        folder = os.environ.get(PROMPTS_DIR_VARIABLE)
        if not folder:
            raise UsageError(
                f"prompt {prompt_id} ({pin.source}) does not ship with memrank (licence: "
                f"{pin.licence}); put its text in a folder as {pin.file} and set "
                f"{PROMPTS_DIR_VARIABLE} to that folder"
            )
        path = Path(folder) / pin.file
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise UsageError(
                f"prompt {prompt_id}: cannot read {path} ({exc.strerror}); put the text of "
                f"{pin.source} there"
            ) from None
        where = str(path)
    found = hashlib.sha256(data).hexdigest()
    if found != pin.sha256:
        raise DatasetMismatch(
            f"prompt {prompt_id}: {where} has sha256 {found}, not the pinned {pin.sha256}; "
            "use the exact text of the source"
        )
    return Prompt(pin=pin, text=data.decode("utf-8"))
