"""Pinned material: found where documented, downloaded once, checked on every load."""

from __future__ import annotations

import hashlib
import http.server
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memrank.errors import DatasetMismatch, DatasetMissing, OutputUnwritable
from memrank.evaluations import locomo
from memrank.evaluations._cache import Pin, data_dir, load
from memrank.evaluations.locomo import PIN

BODY = b'{"material": "a small pinned file"}\n'


@pytest.fixture(autouse=True)
def _direct(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loopback servers below are reached directly, whatever proxy the machine names."""
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(variable, raising=False)
        monkeypatch.delenv(variable.lower(), raising=False)


def _pin(url: str, body: bytes = BODY) -> Pin:
    return Pin("toy", "toy.json", url, hashlib.sha256(body).hexdigest(), len(body))


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A loopback server answering every GET with BODY; it records the paths asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(BODY)))
            self.end_headers()
            self.wfile.write(BODY)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", asked
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_data_dir_is_the_variable_or_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if sys.platform.startswith("linux"):  # macOS and Windows name their own cache dirs
        assert data_dir() == tmp_path / "cache" / "memrank"
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(tmp_path / "data"))
    assert data_dir() == tmp_path / "data"


def test_the_shared_copy_serves_through_memrank_data_dir(data_dir: Path) -> None:
    evaluation = locomo()
    assert evaluation.dataset is not None
    assert evaluation.dataset.sha256 == PIN.sha256
    assert [(f.name, f.size) for f in evaluation.dataset.files] == [("locomo10.json", 2_805_274)]


def test_a_missing_file_is_downloaded_once_then_read_from_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: tuple[str, list[str]]
) -> None:
    url, asked = server
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(tmp_path))
    pin = _pin(f"{url}/files/toy.json")
    first = load(pin, None, "TOY_FILE")
    second = load(pin, None, "TOY_FILE")
    assert first.raw == second.raw == BODY
    assert first.path == tmp_path / "toy" / "toy.json"
    assert asked == ["/files/toy.json"]
    assert [p.name for p in (tmp_path / "toy").iterdir()] == ["toy.json"]


def test_a_download_with_other_bytes_is_refused_and_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: tuple[str, list[str]]
) -> None:
    url, _ = server
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(tmp_path))
    pin = _pin(f"{url}/toy.json", body=b"what the pin expects, which the server does not send")
    with pytest.raises(DatasetMismatch) as refused:
        load(pin, None, "TOY_FILE")
    assert pin.sha256 in str(refused.value)
    assert hashlib.sha256(BODY).hexdigest() in str(refused.value)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_missing_offline_says_where_to_put_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(tmp_path))
    pin = _pin(f"http://127.0.0.1:{_closed_port()}/toy.json")
    with pytest.raises(DatasetMissing) as missing:
        load(pin, None, "TOY_FILE")
    message = str(missing.value)
    assert str(tmp_path / "toy" / "toy.json") in message
    assert "MEMRANK_DATA_DIR" in message and "TOY_FILE" in message and pin.sha256 in message
    assert not (tmp_path / "toy" / "toy.json.part").exists()


def test_a_given_path_is_never_downloaded_into(tmp_path: Path) -> None:
    with pytest.raises(DatasetMissing, match="no such file .the path given.; put locomo10.json"):
        locomo(path=tmp_path / "nowhere.json")


def test_the_file_variable_names_a_copy(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(tmp_path))  # empty: the variable must win
    monkeypatch.setenv("MEMRANK_LOCOMO_FILE", str(shared_data / "locomo" / "locomo10.json"))
    assert len(locomo().tasks) == 1986
    monkeypatch.setenv("MEMRANK_LOCOMO_FILE", str(tmp_path / "gone.json"))
    with pytest.raises(DatasetMissing, match=r"\$MEMRANK_LOCOMO_FILE"):
        locomo()


def test_a_wrong_hash_refuses_with_both_digests(shared_data: Path, tmp_path: Path) -> None:
    raw = bytearray((shared_data / "locomo" / "locomo10.json").read_bytes())
    raw[100] = ord("X") if raw[100] != ord("X") else ord("Y")
    edited = tmp_path / "locomo10.json"
    edited.write_bytes(bytes(raw))
    with pytest.raises(DatasetMismatch) as refused:
        locomo(path=edited)
    message = str(refused.value)
    assert PIN.sha256 in message
    assert hashlib.sha256(bytes(raw)).hexdigest() in message
    assert str(edited) in message and "has the pinned size but different bytes" in message


def test_a_shorter_file_is_named_without_guessing_it_was_truncated(
    shared_data: Path, tmp_path: Path
) -> None:
    shorter = tmp_path / "locomo10.json"
    shorter.write_bytes((shared_data / "locomo" / "locomo10.json").read_bytes()[:1_000_000])
    with pytest.raises(DatasetMismatch) as refused:
        locomo(path=tmp_path)
    message = str(refused.value)
    assert f"{shorter} is 1,000,000 bytes, shorter than the pinned 2,805,274" in message
    assert "truncated" not in message
    assert "delete it" not in message  # a path given is never downloaded


def test_a_file_named_by_its_variable_is_not_offered_a_download(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "mine.json"
    other.write_bytes((shared_data / "locomo" / "locomo10.json").read_bytes()[:-10] + b"    ]    ]")
    monkeypatch.setenv("MEMRANK_LOCOMO_FILE", str(other))
    with pytest.raises(DatasetMismatch) as refused:
        locomo()
    message = str(refused.value)
    assert "delete it to download it again" not in message
    assert "stop naming it ($MEMRANK_LOCOMO_FILE)" in message


def test_a_file_in_the_data_dir_is_offered_a_download(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "locomo").mkdir()
    (tmp_path / "locomo" / "locomo10.json").write_bytes(b"[]")
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(tmp_path))
    with pytest.raises(DatasetMismatch, match="delete it to download it again"):
        locomo()


def test_a_download_the_data_dir_cannot_take_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: tuple[str, list[str]]
) -> None:
    # Written through write_atomic: a folder that cannot be made is named as unwritable, not
    # told as a failed download.
    url, _ = server
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(tmp_path))
    (tmp_path / "toy").write_bytes(b"a file where the evaluation's folder goes")
    with pytest.raises(OutputUnwritable, match=r"toy\.json: cannot be written"):
        load(_pin(f"{url}/toy.json"), None, "TOY_FILE")
