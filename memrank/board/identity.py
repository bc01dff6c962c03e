"""artifacts/systems.toml: who each system is, as the board's maintainers describe it.

A signed run names its system by the class that ran (``BM25Adapter``); readers want a name, an
organisation, a link and a licence. The maintainers keep those here, keyed by the signed name,
so a row's identity is curated text and its numbers stay signed facts. A system the file does
not name is shown by its signed name alone.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import ValidationError

from memrank._skeleton import skeleton
from memrank.board.model import Identity
from memrank.board.text import visible
from memrank.errors import BoardConfigError

__all__ = ["SYSTEMS_TOML", "load_identities"]

SYSTEMS_TOML = "systems.toml"


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
    _display_names_distinct(path, found)
    return found


def _homepage_is_plain(path: Path, name: str, homepage: str) -> None:
    """An https address with a host and no user:password@ (which can hide the real host)."""
    if not homepage:
        return
    parts = urlsplit(homepage)
    if parts.scheme != "https" or not parts.hostname or "@" in parts.netloc:
        raise BoardConfigError(
            f"{path}: systems.{name}: homepage {homepage!r} is not a plain https:// address; "
            "give https://host/path, without user:password@"
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
