"""`pair` reads two results as one configuration only on evidence: a version the running
system declares in both, or the same answers to memrank's fixed probe recorded in both.
Another system behind the same address is never called a rerun of the first."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

import memrank
from memrank.reruns import differing_tasks, is_rerun
from memrank.result import Result
from memrank.runs import probe
from memrank.system import Document
from memrank.systems import WordOverlap
from memrank.systems.http import AmlMemory
from memrank.wire._service import Answer, ContractService
from memrank.wire.serve import serving
from tests.loopback import Canned, _Handler, _Loopback
from tests.runs.conftest import memrank_here


class HalfKeeping(WordOverlap):
    """Keeps about half of what it is told (the documents whose text hashes even, whatever
    else is told around them): another system behind the same contract."""

    def ingest(self, documents: Sequence[Document]) -> None:
        super().ingest(
            [d for d in documents if not hashlib.sha256(d.text.encode()).digest()[0] % 2]
        )


class Versioned(ContractService):
    """A ContractService whose health answer names its version."""

    def health(self) -> Answer:
        return Answer(200, b'{"status":"ok","version":"7.1"}')


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _tracked_run(service: ContractService, port: int, saved: Path) -> Result:
    """`memrank run aml demo` against ``service`` served at ``port``: a tracked run, probed."""
    with serving(service, port=port) as url, pytest.MonkeyPatch.context() as patch:
        patch.setenv("AML_BASE_URL", url)
        done = memrank_here("run", "aml", "demo", "--save", str(saved))
    assert done.returncode in (0, 7), done.stderr
    return Result.load(saved)


def _reading(a: Path, b: Path) -> dict[str, object]:
    shown = memrank_here("pair", str(a), str(b), "--json")
    assert shown.returncode == 0, shown.stderr
    reading: dict[str, object] = json.loads(shown.stdout)
    return reading


def test_another_system_at_the_same_address_is_two_systems_and_the_same_one_is_a_rerun(
    tmp_path: Path,
) -> None:
    port = _free_port()
    first = _tracked_run(ContractService(WordOverlap), port, tmp_path / "a.json")
    other = _tracked_run(ContractService(HalfKeeping), port, tmp_path / "b.json")
    again = _tracked_run(ContractService(WordOverlap), port, tmp_path / "c.json")
    assert first.system.components["endpoint"] == other.system.components["endpoint"]
    assert first.system.declared_version is None
    assert first.system.components["probe"].startswith("probe/1 sha256:")
    assert differing_tasks(first, other)[0] > 0  # a real drop

    reading = _reading(tmp_path / "a.json", tmp_path / "b.json")
    assert reading["rerun"] is None and reading["unsure"] is None
    assert "probe: memrank's fixed probe was answered differently" in str(reading["differ"])
    assert not is_rerun(first, other)

    assert again.system.components["probe"] == first.system.components["probe"]
    assert is_rerun(first, again)
    reading = _reading(tmp_path / "a.json", tmp_path / "c.json")
    assert reading["rerun"] is None and reading["differ"] is None and reading["unsure"] is None


def test_without_a_declared_version_or_common_probe_answers_the_reading_cannot_tell() -> None:
    """memrank.run records no probe: two systems behind one address, naming no version, are
    neither called one configuration nor two."""
    port = _free_port()
    results = []
    for service in (ContractService(WordOverlap), ContractService(HalfKeeping)):
        with serving(service, port=port) as url:
            memory = AmlMemory(url)
            results.append(memrank.run(memory, memrank.evaluation("demo")))
            memory.close()
    a, b = results
    assert a.system == b.system and "probe" not in a.system.components
    assert differing_tasks(a, b)[0] > 0
    assert not is_rerun(a, b)
    reading = memrank.paired(a, b)
    assert reading.rerun is None and reading.differ is None
    assert reading.unsure is not None and "cannot tell whether they ran one configuration" in (
        reading.unsure
    )
    assert f"cannot tell: A and B both ran AmlMemory at http://127.0.0.1:{port}" in str(reading)

    # a probe recorded on one side only is neither evidence of one configuration nor of two
    probed = a.system.model_copy(update={"components": {**a.system.components, "probe": "p"}})
    one_sided = memrank.paired(a.model_copy(update={"system": probed}), b)
    assert one_sided.unsure is not None and one_sided.differ is None and one_sided.rerun is None


def test_a_version_the_endpoint_declares_in_both_is_evidence() -> None:
    port, results = _free_port(), []
    for _ in range(2):
        with serving(Versioned(WordOverlap), port=port) as url:
            memory = AmlMemory(url)
            results.append(memrank.run(memory, memrank.evaluation("demo")))
            memory.close()
    a, b = results
    assert a.system.declared_version == "7.1"
    assert is_rerun(a, b)
    assert memrank.paired(a, b).unsure is None


class HungSearch(_Loopback):
    """A real ContractService whose searches are held until ``released``, then dropped."""

    def __init__(self) -> None:
        super().__init__()
        self.service = ContractService(WordOverlap)
        self.released = threading.Event()

    def answer(self, handler: _Handler, body: bytes) -> None:
        if handler.command == "GET":
            handler.reply(Canned(200, b'{"status":"ok"}'))
        elif handler.path == "/search":
            self.released.wait(30)
            handler.reset()
        else:
            answer = self.service.add(body, handler.lowered_headers())
            handler.reply(Canned(answer.status, answer.body))


def test_a_probe_left_unanswered_is_abandoned_and_records_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(probe, "_WITHIN_S", 0.5)
    with HungSearch() as server:
        memory = AmlMemory(server.url, attempts=1)  # abandoned, it sends nothing more
        started = time.monotonic()
        assert probe.probed(memory) is None
        took = time.monotonic() - started
        server.released.set()
        memory.close()
    assert took < 2
