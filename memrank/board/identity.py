"""artifacts/systems.toml: who each system is, as the board's maintainers describe it.

A signed run names its system by the class that ran (``BM25Adapter``); readers want a name, an
organisation, a link and a licence. The maintainers keep those here, keyed by the signed name,
so a row's identity is curated text and its numbers stay signed facts. A system the file does
not name is shown by its signed name alone.

A third-party system is measured in one offline configuration, which is not the product as its
makers run it. Its entry says which configuration (``configuration``) and what that leaves out
of the product's default path (``leaves_out``), and its display name reads "system · offline
configuration" (``Mem0 2.2.1 · verbatim, no LLM · MiniLM``), never the bare product name.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memrank._unicode_security import mixed_scripts, skeleton
from memrank.board.text import visible
from memrank.errors import BoardConfigError

__all__ = ["CONFIGURATION_MARK", "SYSTEMS_TOML", "Identity", "load_identities", "plain_https"]

SYSTEMS_TOML = "systems.toml"
CONFIGURATION_MARK = " · "
"""What separates the system from its configuration in a configured entry's display name."""


class Identity(BaseModel):
    """Who a system is, from the maintainers' systems file (artifacts/systems.toml); never
    from a signed run."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    display_name: str = Field(min_length=1, max_length=80)
    """The name rows show."""
    organisation: str = Field(default="", max_length=120)
    """Who makes it."""
    homepage: str = Field(default="", max_length=300, pattern=r"^(https://\S+)?$")
    """An https:// address, or empty."""
    licence: str = Field(default="", max_length=80)
    """An SPDX identifier or a short phrase (``proprietary``)."""
    description: str = Field(default="", max_length=400)
    """One sentence."""
    configuration: str = Field(default="", max_length=300)
    """A third-party system: the offline configuration its runs measure, in a sentence or two."""
    leaves_out: str = Field(default="", max_length=300)
    """A third-party system: what that configuration leaves out of the product's default path
    (LLM fact extraction, a cross-encoder reranker, ...)."""
    control: bool = False
    """A control arm, not a system: one of memrank's reference arms (recalling nothing, at
    random, the most recent words, everything), run and ranked like a system and shown apart."""


def plain_https(address: str) -> bool:
    """An https address with a host and no user:password@ (which can hide the real host)."""
    parts = urlsplit(address)
    return parts.scheme == "https" and bool(parts.hostname) and "@" not in parts.netloc


def load_identities(path: Path) -> dict[str, Identity]:
    """The identities of ``path`` by signed system name; an absent file names none."""
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise BoardConfigError(f"{path}: cannot read the systems file ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise BoardConfigError(f"{path}: not valid TOML ({exc})") from None
    systems = data.get("systems", {})
    if set(data) - {"systems"} or not isinstance(systems, dict):
        raise BoardConfigError(f"{path}: give one [systems.<signed name>] table per system")
    found: dict[str, Identity] = {}
    for name, entry in systems.items():
        try:
            found[name] = Identity.model_validate(entry)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or name}: {error['msg']}"
                for error in exc.errors()
            )
            raise BoardConfigError(f"{path}: systems.{name}: {problems}") from None
        _homepage_is_plain(path, name, found[name].homepage)
        _configuration_is_named(path, name, found[name])
        _in_one_script(path, name, found[name].display_name)
    _display_names_distinct(path, found)
    return found


def _homepage_is_plain(path: Path, name: str, homepage: str) -> None:
    if homepage and not plain_https(homepage):
        raise BoardConfigError(
            f"{path}: systems.{name}: homepage {homepage!r} is not a plain https:// address; "
            "give https://host/path, without user:password@"
        )


def _configuration_is_named(path: Path, name: str, identity: Identity) -> None:
    """A configured entry says both what it measured and what that leaves out, and its display
    name names the configuration after the system."""
    if not identity.configuration and not identity.leaves_out:
        return
    for field in ("configuration", "leaves_out"):
        if not getattr(identity, field).strip():
            raise BoardConfigError(
                f"{path}: systems.{name}: {field} is missing; a third-party entry gives both "
                "configuration (what was measured) and leaves_out (what the product's default "
                "path has that it lacks)"
            )
    system, _, configuration = identity.display_name.partition(CONFIGURATION_MARK)
    if not system.strip() or not configuration.strip():
        raise BoardConfigError(
            f"{path}: systems.{name}: display_name {identity.display_name!r} does not name the "
            f"configuration; write it as 'system{CONFIGURATION_MARK}offline configuration', "
            f"like 'Mem0 2.2.1{CONFIGURATION_MARK}verbatim, no LLM{CONFIGURATION_MARK}MiniLM'"
        )


def _in_one_script(path: Path, name: str, display_name: str) -> None:
    """A display name's letters are of scripts written together (UTS #39): a Cyrillic letter
    among Latin ones reads like another system's name."""
    scripts = mixed_scripts(display_name)
    if scripts:
        raise BoardConfigError(
            f"{path}: systems.{name}: display_name {visible(display_name)!r} mixes "
            f"{' and '.join(scripts)} letters, which can read like another name; write it in "
            "one script"
        )


def _display_names_distinct(path: Path, identities: dict[str, Identity]) -> None:
    """No two systems under one display name, nor under two that read alike (TR39)."""
    seen: dict[str, str] = {}
    for name, identity in identities.items():
        other = seen.setdefault(skeleton(visible(identity.display_name)), name)
        if other != name:
            raise BoardConfigError(
                f"{path}: systems.{other} and systems.{name} are both shown as "
                f"{identities[other].display_name!r}"
                + (
                    ""
                    if identities[other].display_name == identity.display_name
                    else f" / {identity.display_name!r} (names that read alike)"
                )
                + "; give each system its own display name"
            )
