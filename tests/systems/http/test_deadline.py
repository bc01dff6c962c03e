"""A deadline over the whole exchange and a cap on the answer: a peer that trickles, hangs or
floods is reported within twice the configured deadline, and never fills memory."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from memrank.errors import ContractError, EndpointError
from memrank.systems.http import Mem0
from memrank.systems.http._client import NO_RETRY, HttpClient
from tests.systems.http.raw import Raw, body_of, hang, trickle

DEADLINE = 1.0


def _timed_failure(url: str, **client: object) -> tuple[float, str]:
    http = HttpClient(None, timeout=DEADLINE, **client)  # type: ignore[arg-type]
    started = time.monotonic()
    with pytest.raises(EndpointError) as caught:
        http.post(f"{url}/search", b"{}", NO_RETRY, what="Search")
    took = time.monotonic() - started
    http.close()
    return took, str(caught.value)


@pytest.mark.parametrize(
    "behaviour",
    [trickle(0.2), trickle(0.2, headers_too=True), hang],
    ids=["trickled-body", "trickled-head", "hung"],
)
def test_a_slow_peer_is_reported_within_twice_the_deadline(behaviour: object) -> None:
    with Raw(behaviour) as server:  # type: ignore[arg-type]
        took, message = _timed_failure(server.url)
    assert took < 2 * DEADLINE, took
    assert f"did not answer in full within the {DEADLINE:g} s deadline" in message
    assert "could not be reached" not in message


def test_engine_clients_share_the_deadline() -> None:
    with Raw(trickle(0.2)) as server:
        mem0 = Mem0(server.url, timeout=DEADLINE, attempts=1)
        started = time.monotonic()
        with pytest.raises(EndpointError, match="deadline"):
            mem0.prepare("unit-1")
        mem0.close()
    assert time.monotonic() - started < 2 * DEADLINE


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "streamed"])
def test_an_answer_past_the_cap_is_refused_naming_the_url_and_cap(declared: bool) -> None:
    with Raw(body_of(8 << 20, declared=declared)) as server:
        http = HttpClient(None, timeout=5, max_response_bytes=1 << 20)
        with pytest.raises(ContractError) as caught:
            http.post(f"{server.url}/search", b"{}", NO_RETRY, what="Search")
        http.close()
    message = str(caught.value)
    assert f"{server.url}/search" in message and "1,048,576-byte response cap" in message


# VmHWM is this process's own peak; ru_maxrss would carry the forking test runner's over exec.
_FLOOD = """
import re, sys
from pathlib import Path
from memrank.errors import ContractError
from memrank.systems.http._client import NO_RETRY, HttpClient
http = HttpClient(None, timeout=60)
try:
    http.post(sys.argv[1] + "/search", b"{}", NO_RETRY, what="Search")
except ContractError as exc:
    print("refused:", str(exc)[:80], file=sys.stderr)
status = Path("/proc/self/status").read_text()
print(int(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1)) // 1024)
"""


def test_a_200_mb_answer_keeps_peak_memory_under_200_mb() -> None:
    with Raw(body_of(200 << 20, declared=False)) as server:
        done = subprocess.run(
            [sys.executable, "-c", _FLOOD, server.url],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=Path(__file__).parents[3],
        )
    assert "refused:" in done.stderr, done.stderr
    peak_mb = int(done.stdout.strip())
    print(f"peak RSS reading a 200 MB answer: {peak_mb} MB")
    assert peak_mb < 200
