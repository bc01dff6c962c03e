"""Nothing memrank writes can destroy a file: a device, FIFO, socket or a link to one is never
replaced; a full disk, a name too long or an undecodable name ends in a message and an exit
code, never a traceback."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from memrank._files import check_writable, write_atomic
from memrank.cli import main
from memrank.errors import OutputUnwritable
from memrank.runs.registry import HOME_VARIABLE


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "home"))


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        yield path
    finally:
        server.close()


@pytest.fixture(params=["fifo", "socket", "device", "link to a fifo"])
def special(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    if request.param == "fifo":
        yield _fifo(tmp_path)
    elif request.param == "socket":
        yield from _socket(tmp_path)
    elif request.param == "device":
        # A null device of the test's own, never /dev/null itself: were the refusal ever to
        # regress, the test would replace its own node, not the machine's.
        device = tmp_path / "null"
        try:
            os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device node needs root")
        yield device
    else:
        link = tmp_path / "link"
        link.symlink_to(_fifo(tmp_path))
        yield link


def _kind(path: Path) -> int:
    return os.stat(path).st_mode


def test_write_atomic_never_replaces_what_is_not_a_regular_file(special: Path) -> None:
    before = _kind(special)
    with pytest.raises(OutputUnwritable, match="not a regular file; memrank never replaces one"):
        write_atomic(special, b"data")
    assert _kind(special) == before


def test_check_writable_refuses_it_before_any_work(special: Path) -> None:
    with pytest.raises(OutputUnwritable, match=r"--save .*: is a .*, not a regular file"):
        check_writable(special, option="--save")


def test_run_save_to_a_fifo_is_refused_and_the_fifo_kept(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    done = CliRunner().invoke(main, ["run", "word-overlap", "demo", "--save", str(fifo)])
    assert done.exit_code == 2 and "is a FIFO, not a regular file" in done.output
    assert not isinstance(done.exception, OSError)
    assert Path(fifo).is_fifo()


def test_a_name_too_long_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    too_long = tmp_path / ("x" * 300)
    with pytest.raises(OutputUnwritable, match="File name too long"):
        check_writable(too_long, option="--out", folder=True)
    with pytest.raises(OutputUnwritable, match="File name too long"):
        write_atomic(too_long / "file", b"x")
    done = CliRunner().invoke(main, ["run", "word-overlap", "demo", "--save", str(too_long)])
    assert done.exit_code == 2 and "File name too long" in done.output


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs: a real file system that fills up (needs root to mount)."""
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = shutil.which("mount") and os.geteuid() == 0
    if (
        not mounted
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True
        ).returncode
    ):
        pytest.skip("mounting a small tmpfs needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_full_disk_ends_build_site_with_a_message(full_disk: Path, standard: Path) -> None:
    site = full_disk / "site"
    done = CliRunner().invoke(
        main, ["build-site", "--no-cache", "--artifacts", str(standard), "--out", str(site)]
    )
    assert done.exit_code == 2, done.output
    assert "No space left on device" in done.output
    assert isinstance(done.exception, SystemExit)
    assert not any(full_disk.iterdir())  # the half-built folder is gone


def test_an_undecodable_docs_page_name_is_a_message(standard: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / os.fsdecode(b"\xfe.md")).write_text("# page\n")
    done = CliRunner().invoke(
        main,
        ["build-site", "--no-cache", "--artifacts", str(standard), "--docs", str(docs),
         "--out", str(tmp_path / "site")],
    )  # fmt: skip
    assert done.exit_code == 2 and "not printable UTF-8" in done.output, done.output


def test_attest_refuses_with_no_trust_root(tmp_path: Path) -> None:
    result = tmp_path / "result.json"
    runner = CliRunner()
    assert (
        runner.invoke(main, ["run", "word-overlap", "demo", "--save", str(result)]).exit_code == 0
    )
    keys = tmp_path / "keys"
    assert (
        runner.invoke(main, ["keys", "generate", "--out", str(keys), "--name", "r"]).exit_code == 0
    )
    done = CliRunner().invoke(
        main,
        ["attest", str(result), "--track", "textual", "--division", "open-source",
         "--key", str(keys / "r.pem"), "--artifacts", str(tmp_path / "artifacts")],
    )  # fmt: skip
    assert done.exit_code == 3 and "no trust root at" in done.output, done.output
    assert not (tmp_path / "artifacts" / "runs").exists()


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_serve_refuses_a_port_out_of_range(port: str) -> None:
    done = CliRunner().invoke(main, ["serve", "word-overlap", "--port", port])
    assert done.exit_code == 2 and "0<=x<=65535" in done.output
