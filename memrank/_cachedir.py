"""Where memrank keeps what it can fetch or compute again: the user's cache dir, or an override."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["CACHE_DIR_VARIABLE", "memrank_cache_dir", "user_cache_dir"]

CACHE_DIR_VARIABLE = "MEMRANK_CACHE_DIR"


def user_cache_dir() -> Path:
    """The platform's per-user cache folder (XDG on Linux)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def memrank_cache_dir() -> Path:
    """``MEMRANK_CACHE_DIR`` when set, else memrank's folder in the user's cache dir."""
    given = os.environ.get(CACHE_DIR_VARIABLE)
    return Path(given).expanduser() if given else user_cache_dir() / "memrank"
