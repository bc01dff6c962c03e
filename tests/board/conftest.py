"""A small Board built by hand, so templates and files can be tested without artifacts,
and a real browser to look at the pages with."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import memrank
from memrank.board import urls
from memrank.board.config import Column, Direction, Overall
from memrank.board.model import (
    Board,
    Cell,
    DatasetFacts,
    Division,
    Evidence,
    PairPage,
    PipelineFacts,
    Row,
    RunLink,
    RunPage,
    TaskRow,
    Track,
    TrustFacts,
    TrustKey,
)
from memrank.measure import Decider, Value
from memrank.paired import Paired

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page

TEMPLATES = Path(__file__).parents[2] / "templates"
ISSUED = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)


def artifact_id(n: int) -> str:
    return f"{n:02x}" * 32


def run_page(n: int, system: str, version: str | None, evaluation: str = "demo") -> RunPage:
    aid = artifact_id(n)
    task_values = tuple(
        TaskRow(
            task_id=task,
            values=(
                Value(
                    measure="word-match",
                    decider=Decider.RULE,
                    task_id=task,
                    value=1.0,
                    why=f"matched in {task}",
                ),
            ),
        )
        for task in ("q_job", "q_diet")
    )
    return RunPage(
        artifact_id=aid,
        path=urls.run(aid),
        track="textual",
        division=Division.OPEN_SOURCE,
        evidence=Evidence.REPRODUCIBLE,
        system=system,
        system_kind="memory",
        version=version,
        transport="in-process",
        components={"embedder": "none"},
        evaluation=evaluation,
        evaluation_version="memrank-demo@v1+def0",
        task_count=2,
        clearing="per-group",
        dataset=DatasetFacts(
            sha256="ab" * 32,
            files=(("demo.json", "cd" * 32, 1234),),
            question_counts={"single-hop": 1, "paraphrase": 1},
        ),
        pipeline=PipelineFacts(
            memrank_version="0.4.0",
            code_sha256="ef" * 32,
            install="wheel",
            git_commit=None,
            dirty=None,
        ),
        environment={"python": "3.11.9", "platform": "linux-x86_64", "cpus": "2"},
        started_at=ISSUED,
        finished_at=ISSUED,
        issued_at=ISSUED,
        key_id="12" * 32,
        summary=(
            Value(measure="word-match.mean", decider=Decider.RULE, value=0.5, why="1 of 2 tasks"),
        ),
        values=(
            Value(
                measure="failure-rate",
                decider=Decider.MEMRANK,
                value=0.0,
                why="0 of 2 traces carry an error",
            ),
        ),
        task_measures=("word-match",),
        tasks=task_values,
        envelope_path=urls.envelope(aid),
        result_path=urls.result_file(aid),
        supersedes=None,
        superseded_by=None,
        pairs=(),
    )


def link(run: RunPage) -> RunLink:
    return RunLink(
        path=run.path,
        system=run.system,
        version=run.version,
        evaluation=run.evaluation,
        issued_at=run.issued_at,
    )


def cell(run: RunPage, value: float | None, bar: float) -> Cell:
    why = "could not decide: no task names spans" if value is None else "mean of 2 tasks"
    return Cell(
        value=Value(measure="word-match", decider=Decider.RULE, value=value, why=why),
        bar=bar,
        run=run.path,
    )


def overall(value: float | None) -> Cell:
    why = "mean of Demo and LoCoMo" if value is not None else "no accepted run on LoCoMo"
    return Cell(
        value=Value(measure="overall-mean", decider=Decider.RULE, value=value, why=why),
        bar=1.0 if value is not None else 0.0,
        run=None,
    )


def row(
    key: str,
    rank: int | None,
    run: RunPage,
    cells: tuple[Cell | None, ...],
    division: Division = Division.OPEN_SOURCE,
    evidence: Evidence = Evidence.REPRODUCIBLE,
) -> Row:
    combined = None if any(c is None for c in cells) else 0.6
    return Row(
        key=key,
        rank=rank,
        system=run.system,
        version=run.version,
        division=division,
        evidence=evidence,
        cells=cells,
        overall=overall(combined),
        published=run.issued_at,
    )


@functools.cache
def demo_reading() -> Paired:
    """A real paired reading: word-overlap against the no-context control on demo."""
    evaluation = memrank.evaluation("demo")
    return memrank.paired(
        memrank.run(memrank.system("word-overlap"), evaluation),
        memrank.run(memrank.system("no-context"), evaluation),
    )


def make_board(
    system_names: tuple[str, str, str] = ("alpha", "beta", "gamma"),
    why: str = "mean of 2 tasks",
    doc_html: str = "<p>methodology</p>",
) -> Board:
    """Three systems on a textual track with two columns, plus an empty coding track."""
    from markupsafe import Markup

    from memrank.board.model import DocPage

    a, b, c = (run_page(n, name, f"{n}.0") for n, name in enumerate(system_names, start=1))
    other = run_page(4, system_names[0], "1.0", evaluation="locomo")
    columns = (
        Column(
            evaluation="demo",
            version="memrank-demo@v1+def0",
            title="Demo",
            measure="word-match",
            direction=Direction.HIGHER,
        ),
        Column(
            evaluation="locomo",
            version="locomo@v1",
            title="LoCoMo",
            measure="word-match",
            direction=Direction.HIGHER,
        ),
    )
    demo_a = cell(a, 0.8, 1.0).model_copy(
        update={"value": Value(measure="word-match", decider=Decider.RULE, value=0.8, why=why)}
    )
    rows = (
        row("a", 1, a, (demo_a, cell(other, 0.4, 1.0))),
        row(
            "b",
            1,
            b,
            (cell(b, 0.6, 0.75), None),
            division=Division.COMMERCIAL,
            evidence=Evidence.ENDPOINT,
        ),
        row("c", 3, c, (cell(c, 0.2, 0.25), None)),
    )
    textual = Track(
        name="textual",
        title="Textual memory",
        description="Conversation memory.",
        path=urls.track("textual"),
        csv_path=urls.track_data("textual", "csv"),
        json_path=urls.track_data("textual", "json"),
        columns=columns,
        overall=Overall(measure="overall-mean", how="mean"),
        ranking_column="Demo",
        rows=rows,
    )
    coding = Track(
        name="coding",
        title="Coding memory",
        description="Repository experience.",
        path=urls.track("coding"),
        csv_path=urls.track_data("coding", "csv"),
        json_path=urls.track_data("coding", "json"),
        columns=(),
        overall=None,
        ranking_column=None,
        rows=(),
    )
    pair = PairPage(
        path=urls.pair("demo", a.artifact_id, b.artifact_id),
        track="textual",
        a=link(a),
        b=link(b),
        reading=demo_reading(),
    )
    return Board(
        title="memrank board",
        description="Signed runs of memory systems.",
        base_url="https://example.org/board/",
        updated=ISSUED,
        tracks=(textual, coding),
        runs=(a, b, c, other),
        pairs=(pair,),
        unlisted=(),
        docs=(
            DocPage(
                name="methodology",
                title="Methodology",
                path=urls.doc("methodology"),
                html=Markup(doc_html),
            ),
        ),
        trust=TrustFacts(
            version=1,
            expires=datetime(2027, 1, 1, tzinfo=UTC),
            keys=(
                TrustKey(
                    key_id="12" * 32,
                    roles=("release",),
                    status="active",
                    valid_from=ISSUED,
                    valid_until=None,
                ),
            ),
            tracks={},
        ),
    )


@pytest.fixture
def board() -> Board:
    return make_board()


# -- a real browser on a loopback server ---------------------------------------------------------

CHROMIUM = Path(os.environ.get("MEMRANK_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a browser that navigates on mid-response closes the connection; that is fine


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 at a free port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    """Headless Chromium from the system (Debian's package; .ci/run installs it)."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), (
        f"{CHROMIUM} is missing: install Debian's chromium (bash .ci/run does) or set "
        "MEMRANK_CHROMIUM to a Chromium binary"
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()


class Watched:
    """A browser page that records console errors, uncaught exceptions and dialogs."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.problems: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"exception: {error}"))
        page.on("dialog", self._dialog)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def _dialog(self, dialog: Dialog) -> None:
        self.problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()


@contextmanager
def browse(chromium: Browser, *, javascript: bool = True) -> Iterator[Watched]:
    context = chromium.new_context(java_script_enabled=javascript)
    try:
        yield Watched(context.new_page())
    finally:
        context.close()
