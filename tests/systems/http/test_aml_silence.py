"""A run over the wire is never silent: it states its deadlines and the worst case at the
start, and names a call stuck past a minute as it happens, at the default settings."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import pytest

from memrank._inflight import STUCK_AFTER, in_flight
from memrank.runs.progress import Progress, in_flight_part, watching
from memrank.systems import WordOverlap
from memrank.wire._service import ContractService
from tests.loopback import Canned, Logged, _Handler, _Loopback

long_wait = pytest.mark.skipif(
    os.environ.get("MEMRANK_SLOW") != "1",
    reason="waits out the default minute before a stuck call is named: MEMRANK_SLOW=1",
)


class HungSearch(_Loopback):
    """A real ContractService whose Search never answers (held until the test ends)."""

    def __init__(self) -> None:
        super().__init__()
        self.service = ContractService(WordOverlap)
        self.released = threading.Event()

    def answer(self, handler: _Handler, body: bytes) -> None:
        self.record(Logged(handler.command, handler.path, handler.lowered_headers(), body))
        if handler.command == "GET":
            handler.reply(Canned(200, b'{"status":"ok"}'))
        elif handler.path == "/search":
            self.released.wait(150)
            handler.reset()
        else:
            answer = self.service.add(body, handler.lowered_headers())
            handler.reply(Canned(answer.status, answer.body))


def _run_against_hung_search(
    server: HungSearch, until: Callable[[str], bool]
) -> list[tuple[float, str]]:
    """`memrank run aml demo` at the default settings against ``server``: its stderr lines
    with their time since the command started, read until ``until`` holds (or 90 s)."""
    lines: list[tuple[float, str]] = []
    command = [sys.executable, "-m", "memrank", "run", "aml", "demo"]
    started = time.monotonic()
    with subprocess.Popen(
        [*command, "--option", f"base_url={server.url}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as run:
        try:
            assert run.stderr is not None
            for line in run.stderr:  # the run would wait out 32 minutes: read until told
                lines.append((time.monotonic() - started, line.rstrip()))
                if until(line) or time.monotonic() - started > 90:
                    break
        finally:
            run.kill()
            server.released.set()
    return lines


def test_a_run_states_its_deadlines_and_worst_case_before_it_runs() -> None:
    with HungSearch() as server:
        lines = _run_against_hung_search(server, lambda line: line.startswith("running:"))
    said = "\n".join(text for _, text in lines)
    limits = next(text for _, text in lines if "each request's deadline" in text)
    assert "each request's deadline 1800 s; each call's budget 1920 s" in limits, said
    assert "declared down after about 1800 s when three or more units run at once" in limits
    assert "(3720 s when two do, 9480 s when one does)" in limits  # timed: test_aml_worst_case
    assert said.index(limits) < said.index("running:")
    # the watch names a stuck call after the documented minute (the wait itself is opt-in below)
    assert STUCK_AFTER == 60


@long_wait  # a minute of waiting, as the default asks
def test_a_hung_search_at_the_defaults_is_named_within_90_seconds() -> None:
    with HungSearch() as server:
        lines = _run_against_hung_search(server, lambda line: line.startswith("still waiting"))
    said = "\n".join(text for _, text in lines)
    when, named = lines[-1]
    print(f"the stuck Search was named after {when:.1f} s: {named}")
    assert when < 90, said
    assert named.startswith("still waiting after 6")
    assert re.search(r"Search for user_id 'eval:r[0-9a-f]{24}:e[0-9a-f]{24}:u[0-9a-f]{24}'", named)
    assert f"(POST {server.url}/search)" in named


def test_the_progress_piece_counts_calls_in_flight_and_a_watch_names_the_stuck_once() -> None:
    stream = io.StringIO()
    assert in_flight_part() == ""
    with watching(stream, stuck_after=0.2), in_flight("Search for user_id 'u' (POST /search)"):
        time.sleep(0.1)
        assert in_flight_part() == "1 call in flight, oldest 0 s"
        line = Progress(io.StringIO(), tasks=5, units=1, label="aml × demo", live=False).line()
        assert line.endswith("ETA --:--:--  1 call in flight, oldest 0 s")
        time.sleep(2.3)  # the watch looks once a second: it names the call once, not twice
    assert in_flight_part() == ""
    assert stream.getvalue() == ("still waiting after 1 s: Search for user_id 'u' (POST /search)\n")
