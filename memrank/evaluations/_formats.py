"""Reading a benchmark file: a file that trips the parser is DatasetMalformed, naming the file.

Shared by LoCoMo, LongMemEval and BEAM, so every malformed file is refused with one message
shape (what file, which format it is not in, what broke) rather than a stray KeyError.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson

from memrank.errors import DatasetMalformed

__all__ = ["in_format"]

_PARSE_ERRORS: tuple[type[Exception], ...] = (
    orjson.JSONDecodeError,
    KeyError,
    TypeError,
    ValueError,
)
"""What a file off its format raises while it is read: bad JSON, a missing key, a wrong type."""


@contextmanager
def in_format(
    path: Path, format_name: str, *, also: tuple[type[Exception], ...] = ()
) -> Iterator[None]:
    """Read ``path`` inside this block; a parse error (or one of ``also``) becomes
    DatasetMalformed saying the file is not in ``format_name``."""
    try:
        yield
    except (*_PARSE_ERRORS, *also) as exc:
        raise DatasetMalformed(
            f"{path}: not in {format_name} ({type(exc).__name__}: {exc})"
        ) from None
