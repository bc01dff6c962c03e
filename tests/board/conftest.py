"""Signed artifacts made in the test, the Board built from them, and a real browser to look
at the pages with. Keys are throwaway; nothing here reads the maintainers' keys."""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import memrank
from memrank import Clearing, Document, Evaluation, Expected, Task
from memrank.artifacts import Root, _semantic, attest, sign_root, write_root
from memrank.board import urls
from memrank.board.folder import Files
from memrank.board.model import Board
from memrank.board.site import make
from memrank.provenance import Evidence
from memrank.result import Result
from tests.artifacts.conftest import LONG_AGO, NOW, as_installed

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page

REPOSITORY = Path(__file__).parents[2]
TEMPLATES = REPOSITORY / "memrank" / "board" / "templates"
DOCS = REPOSITORY / "docs"

BOARD_TOML = """
[site]
title = "memrank board"
description = "Signed runs of memory systems."
base_url = "https://example.org/board/"

[tracks.textual]
title = "Textual memory"
description = "Conversation memory."
rank_by = "notes"

[[tracks.textual.columns]]
evaluation = "demo"
version = "memrank-demo@v1+def0"
title = "Demo"
measure = "word-match"
direction = "higher"

[[tracks.textual.columns]]
evaluation = "notes"
version = "notes@v1"
title = "Notes"
measure = "word-match"
direction = "higher"

[tracks.coding]
title = "Coding memory"
description = "Repository experience."
"""


def notes() -> Evaluation:
    """30 one-fact tasks: a memory that recalls finds every span, the no-memory floor none,
    enough discordant tasks for a paired test to tell them apart."""
    tasks = tuple(
        Task(
            id=f"n{i:02d}",
            prompt=f"What colour is gadget {i}?",
            group=f"g{i % 6}",
            context=(Document(id=f"d{i}", content=f"Gadget {i} is painted colour{i}."),),
            expected=Expected(required_spans=(f"colour{i}",), evidence_doc_ids=(f"d{i}",)),
        )
        for i in range(30)
    )
    return Evaluation(
        name="notes",
        version="notes@v1",
        tasks=tasks,
        measures=(memrank.WordMatch(),),
        clearing=Clearing.PER_GROUP,
    )


LABELLED_TOML = BOARD_TOML.replace(
    'title = "Notes"\nmeasure = "word-match"\ndirection = "higher"\n',
    'title = "Notes"\nmeasure = "word-match"\ndirection = "higher"\n'
    'categories = { "1" = "single fact", "2" = "colour words" }\n',
)
"""The board with labels for two of the notes column's categories (see ``categorised``)."""


def categorised() -> Evaluation:
    """notes with each task in category 1, 2 or 3."""
    base = notes()
    tasks = tuple(
        task.model_copy(update={"category": str(1 + i % 3)}) for i, task in enumerate(base.tasks)
    )
    return Evaluation(
        name=base.name,
        version=base.version,
        tasks=tasks,
        measures=(memrank.WordMatch(),),
        clearing=Clearing.PER_GROUP,
    )


@dataclass(frozen=True)
class Signed:
    """A result to sign, and how."""

    result: Result
    division: str = "open-source"


def wheel_run(system: str, evaluation: Evaluation, *, transport: str | None = None) -> Result:
    """A real run, recorded as the installed wheel would record it (over ``transport``)."""
    result = as_installed(memrank.run(memrank.system(system), evaluation))
    if transport is not None:
        result = result.model_copy(
            update={"system": result.system.model_copy(update={"transport": transport})}
        )
    return result


def named(result: Result, name: str) -> Result:
    """The run under another system name."""
    return result.model_copy(update={"system": result.system.model_copy(update={"name": name})})


@functools.cache
def standard_runs() -> tuple[Signed, ...]:
    """Three systems on demo and notes; full-context as a commercial endpoint."""
    signed = []
    for evaluation in (memrank.evaluation("demo"), notes()):
        signed += [
            Signed(wheel_run("word-overlap", evaluation)),
            Signed(wheel_run("no-context", evaluation)),
            Signed(wheel_run("full-context", evaluation, transport="http"), "commercial"),
        ]
    return tuple(signed)


@functools.cache
def keys() -> tuple[Ed25519PrivateKey, Ed25519PrivateKey]:
    """Throwaway root and release keys."""
    return Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()


def sign_artifacts(
    directory: Path,
    runs: Sequence[Signed],
    board_toml: str = BOARD_TOML,
    *,
    before_text_checks: bool = False,
) -> Path:
    """An artifacts folder: board.toml, a trust root pinning the runs' pipelines and datasets
    for the textual track (both evidence classes), and each run attested in turn.

    ``before_text_checks`` signs as a memrank from before attestation refused invisible
    characters and over-long names did: the board must still show such artifacts safely."""
    root_key, release_key = keys()
    root = Root.first(
        [root_key.public_key()],
        [release_key.public_key()],
        root_threshold=1,
        release_threshold=1,
        expires=NOW + timedelta(days=365),
        valid_from=LONG_AGO,
    )
    for run in runs:
        root = root.pinning("textual", run.result)
    root = root.accepting("textual", (Evidence.REPRODUCIBLE, Evidence.ENDPOINT))
    directory.mkdir(parents=True, exist_ok=True)
    write_root(directory / "root.json", sign_root(root, [root_key]))
    (directory / "board.toml").write_text(board_toml)
    with pytest.MonkeyPatch.context() as patch:
        if before_text_checks:
            patch.setattr(_semantic, "check_shown_text", lambda system: None)
        for position, run in enumerate(runs):
            attest(
                run.result,
                "textual",
                run.division,
                release_key,
                artifacts=directory,
                issued_at=run.result.finished + timedelta(minutes=position),
            )
    return directory


def built(artifacts: Path, docs: Path = DOCS) -> tuple[Board, dict[str, bytes]]:
    """The Board of an artifacts folder and the site tree it renders to."""
    made = make(artifacts, TEMPLATES, docs)
    return made.board, made.files.tree()


def files_of(tree: Mapping[str, bytes]) -> Files:
    """A site made already (``tree``, manifest.json included) as files to write or compare,
    a part per file."""
    parts = [
        functools.partial(dict, {path: content})
        for path, content in tree.items()
        if path != urls.MANIFEST
    ]
    return Files(parts, lambda _: tree[urls.MANIFEST])


PAYLOADS = {
    "system": '<script>window.__pwned = "system"</script>',
    "version": "<img src=x onerror=\"window.__pwned = 'version'\">",
    "why": '</script><script>window.__pwned = "why"</script> <a href="javascript:window.__pwned=1">go</a>',
    "task": "<img src=x onerror=\"window.__pwned = 'task'\">",
    "link": 'javascript:window.__pwned = "link"',
}
"""Text an attacker would put into a signed artifact; the board must show it, never run it."""


def tainted(result: Result) -> Result:
    """The run with HTML and script in its system name, version, every why and task id."""
    task_id = {t.task.id: f"{PAYLOADS['task']} {t.task.id}" for t in result.traces}
    return result.model_copy(
        update={
            "system": result.system.model_copy(
                update={
                    "name": f"{PAYLOADS['system']} {result.system.name}",
                    "version": PAYLOADS["version"],
                    "declared_name": PAYLOADS["link"],
                    "components": {PAYLOADS["task"]: PAYLOADS["link"]},
                }
            ),
            "traces": tuple(
                t.model_copy(update={"task": t.task.model_copy(update={"id": task_id[t.task.id]})})
                for t in result.traces
            ),
            "values": tuple(
                v.model_copy(
                    update={
                        "task_id": task_id[v.task_id] if v.task_id else None,
                        "why": f"{PAYLOADS['why']} {v.why}",
                    }
                )
                for v in result.values
            ),
        }
    )


@pytest.fixture(scope="session")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Artifacts, properly signed, whose every text field carries a payload."""
    runs = [Signed(tainted(signed.result), signed.division) for signed in standard_runs()]
    return sign_artifacts(tmp_path_factory.mktemp("hostile") / "artifacts", runs)


@pytest.fixture(scope="session")
def standard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sign_artifacts(tmp_path_factory.mktemp("standard") / "artifacts", standard_runs())


@pytest.fixture(scope="session")
def committed_board() -> tuple[Board, dict[str, bytes]]:
    """The Board the committed artifacts build, with the working tree's theme, and its site."""
    made = make(REPOSITORY / "artifacts", TEMPLATES, DOCS)
    return made.board, made.files.tree()


@pytest.fixture(scope="session")
def board(standard: Path) -> Board:
    return built(standard)[0]


@pytest.fixture(scope="session")
def tree(standard: Path) -> dict[str, bytes]:
    return built(standard)[1]


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

    if not CHROMIUM.exists():
        message = (
            f"{CHROMIUM} is missing: install Debian's chromium (`apt-get install chromium`; "
            "bash .ci/run does) or set MEMRANK_CHROMIUM to a Chromium binary"
        )
        if os.environ.get("CI"):  # under CI the browser checks must run, never skip
            pytest.fail(message)
        pytest.skip(message)
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


def pick(page: Page, label: str, system: str) -> None:
    """Pick ``system`` in the compare-two picker's select ``label``: each option reads a
    system's name, then its version."""
    select = page.get_by_label(label)
    option = select.locator("option", has_text=re.compile(rf"^{re.escape(system)} "))
    select.select_option(value=option.first.get_attribute("value"))


@contextmanager
def browse(chromium: Browser, *, javascript: bool = True) -> Iterator[Watched]:
    context = chromium.new_context(java_script_enabled=javascript)
    try:
        yield Watched(context.new_page())
    finally:
        context.close()


@pytest.fixture(autouse=True)
def _board_memo_of_the_session(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memrank build-site` keeps a build memo in memrank's cache folder: the tests' builds
    keep theirs apart from the user's."""
    monkeypatch.setenv("MEMRANK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
