"""The results store: result files addressed by digest, outside git.

A full LoCoMo result file is ~11 MB, so result files live in a store named in board.toml
(``results_store`` under ``[site]``): a local directory holding ``<sha256>.json``, or an HTTPS URL template
with ``{sha256}`` in it (the repository's release assets, for example). ``fetch`` never trusts
the store: it reads at most the size the signed scores file states, within a deadline, and
hands back only bytes whose sha256 is the signed one. ``artifacts/results-store.json`` lists
the digests the store holds; ``memrank upload-results`` writes it (memrank.artifacts._store_upload).
"""

from __future__ import annotations

import hashlib
import re
import time
import tomllib
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import orjson

from memrank._files import memrank_cache_dir, read_at_most, write_atomic
from memrank.errors import (
    BoardConfigError,
    OversizeFile,
    ResultStoreError,
    SubjectDigestMismatch,
    SubjectMissing,
)

__all__ = [
    "DIGEST",
    "FETCH_DEADLINE_S",
    "STORE_MANIFEST",
    "ResultsStore",
    "held_by_store",
    "place_result",
    "read_kept",
    "record_stored",
    "results_cache",
    "store_of_board",
]

FETCH_DEADLINE_S = 120.0
"""The whole of one fetch, connection to last byte: a store that trickles is refused."""
_CONNECT_S = 10.0
_READ_S = 30.0
_CHUNK = 1 << 16
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
DIGEST = re.compile(r"[0-9a-f]{64}")
"""A sha256 as result files are named by it: 64 lowercase hex digits."""


STORE_MANIFEST = "results-store.json"
"""In an artifacts directory: the digests of the result files the results store holds."""


def held_by_store(artifacts: Path) -> frozenset[str]:
    """The digests ``artifacts/results-store.json`` says the results store holds (none when it
    is absent). A board links a result file there only when it is listed."""
    path = artifacts / STORE_MANIFEST
    if not path.is_file():
        return frozenset()
    try:
        digests = orjson.loads(path.read_bytes())["digests"]
        if not all(isinstance(d, str) and DIGEST.fullmatch(d) for d in digests):
            raise TypeError("a digest is not 64 lowercase hex digits")
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
        raise BoardConfigError(
            f'{path}: not {{"digests": ["<sha256>", ...]}} ({exc}); memrank upload-results writes it'
        ) from None
    return frozenset(digests)


def record_stored(artifacts: Path, digests: Iterable[str]) -> None:
    """Write ``artifacts/results-store.json``: ``digests`` are what the results store holds
    (all of it: a digest the store no longer holds leaves the list)."""
    write_atomic(
        artifacts / STORE_MANIFEST, orjson.dumps({"digests": sorted(set(digests))}) + b"\n"
    )


def results_cache() -> Path:
    """This machine's copy of result files, by digest: where ``memrank reproduce`` puts the
    result files it regenerated and ``verify --deep`` looks before asking the store."""
    return memrank_cache_dir() / "results"


def read_kept(folder: Path, sha256: str, cap: int) -> tuple[Path, bytes] | None:
    """A result file kept in ``folder`` as ``<sha256>.json`` or gzip-compressed as
    ``<sha256>.json.gz`` (its digest is of the uncompressed bytes), read and inflated to at most
    ``cap`` bytes; None when neither is there. OversizeFile past the cap, SubjectDigestMismatch
    for a file that does not inflate."""
    plain = folder / f"{sha256}.json"
    if plain.is_file():
        return plain, _read_capped(plain, cap)
    packed = plain.with_name(f"{sha256}.json.gz")
    if not packed.is_file():
        return None
    inflate = zlib.decompressobj(wbits=31)  # gzip framing
    try:
        raw = inflate.decompress(_read_capped(packed, cap), cap + 1)
    except zlib.error as exc:
        raise SubjectDigestMismatch(f"{packed}: not a gzip file ({exc}); restore it") from None
    if len(raw) > cap or inflate.unconsumed_tail:
        raise _over_cap(packed, cap)
    return packed, raw


def _read_capped(path: Path, cap: int) -> bytes:
    try:
        raw = read_at_most(path, cap)
    except OSError as exc:
        raise SubjectMissing(f"{path}: cannot read it ({exc.strerror})") from None
    if len(raw) > cap:
        raise _over_cap(path, cap)
    return raw


def _over_cap(path: Path, cap: int) -> OversizeFile:
    return OversizeFile(f"{path}: over the {cap}-byte cap; this is not a file memrank wrote")


def place_result(directory: Path, result_bytes: bytes, sha256: str) -> Path:
    """Put a result file into a store directory as ``<sha256>.json``; idempotent."""
    path = directory / f"{sha256}.json"
    if not (path.is_file() and path.stat().st_size == len(result_bytes)):
        write_atomic(path, result_bytes)
    return path


@dataclass(frozen=True)
class ResultsStore:
    """Where result files are found by their sha256: a directory or a URL template."""

    location: str
    """As written in board.toml or on the command line."""
    directory: Path | None = None
    url_template: str | None = None

    @classmethod
    def parse(cls, location: str, *, base: Path, where: str) -> ResultsStore:
        """A directory (relative to ``base``) or an ``https://…{sha256}…`` template.

        Plain http is accepted for loopback hosts only (a store served on this machine).
        """
        if "://" not in location:
            return cls(location=location, directory=base / location)
        parts = urlsplit(location)
        secure = parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOOPBACK)
        if not secure or "{sha256}" not in location or not parts.hostname:
            raise BoardConfigError(
                f"{where}: results store {location!r} is not a directory nor an https:// URL "
                "with {sha256} in it (for example https://host/releases/download/results/"
                "{sha256}.json)"
            )
        return cls(location=location, url_template=location)

    def address_of(self, sha256: str) -> str:
        """Where the result file with this digest is published (a URL, or a path)."""
        if self.url_template is not None:
            return self.url_template.replace("{sha256}", sha256)
        assert self.directory is not None
        return str(self.directory / f"{sha256}.json")

    def fetch(self, sha256: str, size: int, *, deadline_s: float = FETCH_DEADLINE_S) -> bytes:
        """The result file with this digest, checked: at most ``size`` bytes, sha256 as signed.

        SubjectMissing when the store does not have it, OversizeFile when it serves more than
        ``size`` bytes (refused as soon as it does, never held), SubjectDigestMismatch for
        other bytes, ResultStoreError when the store fails or misses the deadline.
        """
        address = self.address_of(sha256)
        raw = (
            self._read_dir(address, size)
            if self.directory
            else self._get(address, size, deadline_s)
        )
        if hashlib.sha256(raw).hexdigest() != sha256:
            raise SubjectDigestMismatch(
                f"{address}: the results store served bytes whose sha256 is not the signed "
                f"{sha256}; the store holds another file under this digest, so replace it "
                "with the attested result file"
            )
        return raw

    def _read_dir(self, address: str, size: int) -> bytes:
        path = Path(address)
        try:
            raw = read_at_most(path, size)
        except FileNotFoundError:
            raise SubjectMissing(
                f"{address}: the result file is not in the results store {self.location}; "
                "put the attested result file there"
            ) from None
        except OSError as exc:
            raise ResultStoreError(f"{address}: cannot read it ({exc.strerror})") from None
        if len(raw) > size:
            raise _oversize(address, size)
        return raw

    def _get(self, url: str, size: int, deadline_s: float) -> bytes:
        deadline = time.monotonic() + deadline_s
        timeout = httpx.Timeout(_READ_S, connect=_CONNECT_S)
        received = bytearray()
        try:
            # identity: the digest is of the file's bytes, and a compressed body could expand
            # past the size cap inside one chunk.
            with httpx.stream(
                "GET",
                url,
                headers={"Accept-Encoding": "identity"},
                timeout=timeout,
                follow_redirects=True,
            ) as response:
                if response.status_code == 404:
                    raise SubjectMissing(
                        f"{url}: the results store answered 404; the result file was never "
                        "uploaded there (memrank upload-results uploads it)"
                    )
                if response.status_code != 200:
                    raise ResultStoreError(
                        f"{url}: the results store answered HTTP {response.status_code}; "
                        "try again later, or check the store's address in board.toml"
                    )
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > size:
                    raise _oversize(url, size)
                for chunk in response.iter_raw(_CHUNK):
                    received += chunk
                    if len(received) > size:
                        raise _oversize(url, size)
                    if time.monotonic() > deadline:
                        raise ResultStoreError(
                            f"{url}: the results store did not send the file within "
                            f"{deadline_s:g} s; try again later"
                        )
        except httpx.HTTPError as exc:
            raise ResultStoreError(
                f"{url}: the results store did not answer ({type(exc).__name__}: {exc}); "
                "check the address and the network"
            ) from None
        return bytes(received)


def _oversize(address: str, size: int) -> OversizeFile:
    return OversizeFile(
        f"{address}: the results store serves more than the {size} bytes the signed scores "
        "file gives the result file; refused without reading it whole"
    )


def store_of_board(artifacts: Path) -> ResultsStore | None:
    """The results store board.toml in ``artifacts`` names (``[site] results_store``), if any."""
    board = artifacts / "board.toml"
    try:
        data = tomllib.loads(board.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BoardConfigError(f"{board}: cannot read it ({exc})") from None
    site = data.get("site")
    location = site.get("results_store") if isinstance(site, dict) else None
    if location is None:
        return None
    if not isinstance(location, str) or not location:
        raise BoardConfigError(f"{board}: site.results_store must be an https:// URL")
    return ResultsStore.parse(location, base=artifacts, where=f"{board}: site.results_store")
