"""The user's cache directory, where memrank keeps what it can rebuild (data, embeddings)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["user_cache_dir"]


def user_cache_dir() -> Path:
    """The platform's per-user cache directory (``~/.cache`` on Linux, or ``XDG_CACHE_HOME``)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
