"""Writing files so that nothing is half-written: every file memrank writes goes through here.
(And ``read_at_most``: reading a file memrank did not write without holding more of it than a
cap; and ``memrank_cache_dir``: where memrank keeps what it can fetch or compute again.)

``write_atomic`` writes beside the target, flushes it to disk and renames it into place, so a
reader (or a crash) sees the old file or the new one, never a part. ``check_writable`` tries
an output location before the work that fills it starts, so an unwritable path costs nothing.

Neither ever replaces what is not a regular file: a device (``/dev/null``), a FIFO, a socket,
or a link to one is refused, never swapped for a file. Every failure of the file system (a
full disk, a name too long, a folder that takes no files) is an ``OutputUnwritable`` naming the
path and the reason.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path

from memrank.errors import OutputUnwritable

__all__ = [
    "check_writable",
    "memrank_cache_dir",
    "read_at_most",
    "user_cache_dir",
    "write_atomic",
]

_CHUNK = 1 << 16


def write_atomic(
    path: Path,
    data: bytes | bytearray,
    *,
    mode: int | None = None,
    replace: bool = True,
    sync: bool = True,
) -> Path:
    """Write ``data`` to ``path`` in one step; with ``replace=False`` an existing file is kept
    and the write refused (FileExistsError). Parent folders are made as needed. ``sync=False``
    skips flushing to disk (a build's thousands of pages, renamed into place as a whole)."""
    path = Path(path)
    _refuse_special(path, str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError as exc:
        raise _unwritable(path, exc) from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        if replace:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)  # fails if path exists: never overwrites
            os.unlink(temporary)
    except FileExistsError:
        os.unlink(temporary)
        raise
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise _unwritable(path, exc) from None
    if sync:
        _sync_folder(path.parent)
    return path


def read_at_most(path: Path, cap: int) -> bytes:
    """The first ``cap + 1`` bytes of ``path`` at most (more than ``cap`` says the file is over
    it), read without buffering into a ``cap``-sized block: a small file costs what it holds.
    OSError when it cannot be read."""
    with open(path, "rb", buffering=0) as handle:
        # A regular file comes whole in the first read; a file that grows, or one with no size
        # (a pipe), is read on in chunks, never past the cap.
        wanted = min(os.fstat(handle.fileno()).st_size, cap) + 1
        parts: list[bytes] = []
        left = cap + 1
        while left > 0:
            chunk = handle.read(min(wanted, left))
            if not chunk:
                break
            parts.append(chunk)
            left -= len(chunk)
            wanted = _CHUNK
    return b"".join(parts)


def check_writable(path: Path, *, option: str, folder: bool = False) -> None:
    """Refuse now, naming ``option``, if ``path`` (a file, or a folder with ``folder``) could not
    be written: something in the way that is not a folder, or a folder that takes no files."""
    path = Path(path)
    try:
        _check_writable(path, option, folder)
    except OSError as exc:  # a name too long, a loop of links, a folder that cannot be read
        raise OutputUnwritable(
            f"{option} {path}: cannot be written ({exc.strerror or exc}); give another path"
        ) from None


def _check_writable(path: Path, option: str, folder: bool) -> None:
    if not folder:
        _refuse_special(path, f"{option} {path}")
    if path.exists() and path.is_dir() != folder:
        kind = "a folder" if path.is_dir() else "a file"
        raise OutputUnwritable(
            f"{option} {path}: is {kind}; give a {'folder' if folder else 'file'} path"
        )
    probe_in = path if folder else path.parent
    existing = probe_in
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise OutputUnwritable(
            f"{option} {path}: cannot be written, as {existing} is a file, not a folder"
        )
    try:  # permissions, read-only mounts and quotas all show in one real attempt
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise OutputUnwritable(
            f"{option} {path}: cannot be written in {existing} ({exc.strerror}); "
            "give a path you can write to"
        ) from None


_SPECIAL = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
}


def _refuse_special(path: Path, where: str) -> None:
    """Refuse a path that is (or links to) a device, FIFO or socket: never replaced."""
    try:
        kind = stat.S_IFMT(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:
        raise OutputUnwritable(f"{where}: cannot be written ({exc.strerror or exc})") from None
    if kind in _SPECIAL:
        raise OutputUnwritable(
            f"{where}: is {_SPECIAL[kind]}, not a regular file; memrank never replaces one. "
            "Give a file path"
        )


def _unwritable(path: Path, exc: OSError) -> OutputUnwritable:
    return OutputUnwritable(f"{path}: cannot be written ({exc.strerror or exc})")


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable; some platforms cannot open a folder, which is fine."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


_CACHE_DIR_VARIABLE = "MEMRANK_CACHE_DIR"


def user_cache_dir() -> Path:
    """The platform's per-user cache folder (XDG on Linux)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def memrank_cache_dir() -> Path:
    """``MEMRANK_CACHE_DIR`` when set, else memrank's folder in the user's cache dir."""
    given = os.environ.get(_CACHE_DIR_VARIABLE)
    return Path(given).expanduser() if given else user_cache_dir() / "memrank"
