"""The one check that a system's optional extra is installed."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

from memrank.errors import MissingExtra

__all__ = ["require_extra"]


def require_extra(system: str, extra: str, modules: Sequence[str]) -> None:
    """Refuse, naming the extra and how to install it, when a module ``system`` needs is not
    installed."""
    missing = [name for name in modules if not _installed(name)]
    if missing:
        raise MissingExtra(
            f"{system} needs the optional extra '{extra}' ({', '.join(missing)} not installed); "
            f"install it with: pip install 'memrank[{extra}]' (or uv run --extra {extra} ...)"
        )


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported; a dotted name whose parent package is missing is not
    (``find_spec`` imports the parents, and raises rather than answer None for those)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False
