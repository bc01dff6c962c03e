"""The site as files: identical across builds, made and written in shares, swapped in whole,
compared file by file, and left as it was when a build fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from memrank import _forked
from memrank.board import folder, reading
from memrank.board.folder import Files, differences, write
from memrank.board.model import Board
from memrank.board.site import make, site_files
from memrank.errors import BoardConfigError, BoardError, OutputUnwritable
from memrank.stats import PairMatrices, PairTests
from tests.board.conftest import DOCS, TEMPLATES, built, files_of


def test_two_builds_of_the_same_artifacts_are_byte_identical(standard: Path) -> None:
    assert built(standard)[1] == built(standard)[1]


def test_write_replaces_the_whole_previous_site(tmp_path: Path, tree: dict[str, bytes]) -> None:
    out = tmp_path / "site"
    write(files_of({"manifest.json": b"{}", "stale/index.html": b"old"}), out)
    assert write(files_of(tree), out) == len(tree)
    assert differences(files_of(tree), out) == []
    assert not (out / "stale").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_the_site_written_is_the_site_in_memory(standard: Path, tmp_path: Path) -> None:
    made = make(standard, TEMPLATES, DOCS)
    write(made.files, tmp_path / "site")
    written = {
        p.relative_to(tmp_path / "site").as_posix(): p.read_bytes()
        for p in (tmp_path / "site").rglob("*")
        if p.is_file()
    }
    assert written == made.files.tree()


def test_write_refuses_a_folder_it_did_not_build(tmp_path: Path, tree: dict[str, bytes]) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(BoardError, match="not a built board"):
        write(files_of(tree), tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_differences_name_missing_extra_and_changed_files(tmp_path: Path) -> None:
    out = tmp_path / "site"
    write(files_of({"manifest.json": b"{}", "a.html": b"a", "b.html": b"b"}), out)
    (out / "c.html").write_text("extra")
    tree = {"manifest.json": b"[]", "a.html": b"A", "d.html": b"d"}
    assert differences(files_of(tree), out) == [
        "missing: d.html",
        "not built: b.html",
        "not built: c.html",
        "differs: a.html",
        "differs: manifest.json",
    ]


def test_two_parts_wanting_one_path_is_an_error(
    board: Board, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = tmp_path / "board.css"
    theirs.write_bytes(b"x")
    files = site_files(board, TEMPLATES, {"static/board.css": theirs})
    with pytest.raises(BoardError, match="both want 'static/board.css'"):
        files.tree()
    # written as made, the second of the two finds the first in the way: nothing is left
    with pytest.raises(BoardError, match="both want 'static/board.css'"):
        write(files, tmp_path / "site")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.css"]


def test_parts_made_in_forked_shares_are_the_files_one_process_makes(
    standard: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The parts handed out one at a time to three processes, two of them forked, as a big
    # board's are: what comes back must be byte for byte what one process makes.
    shares = _apart(monkeypatch, cores=3)
    assert built(standard)[1] == tree
    assert shares == [3]


def test_pair_tests_made_in_a_forked_worker_build_the_site_one_process_builds(
    standard: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The textual track's two columns, their tests cut in parts that a forked worker and this
    # process take as each comes free, as a big board's are. The site must be byte for byte
    # one process's, and each part tested once.
    monkeypatch.setattr(reading, "PAIRS_APART_LEAST", 1)
    monkeypatch.setattr(_forked, "cores", lambda: 2)
    made_by = tmp_path / "made-by"
    test = PairTests.test

    def recorded(tests: PairTests, first: int, last: int, into: PairMatrices) -> None:
        with made_by.open("a") as pids:  # a worker's memory does not come back; a file does
            pids.write(f"{id(into.p_values.base)}:{first} {os.getpid()}\n")
        test(tests, first, last, into)

    monkeypatch.setattr(PairTests, "test", recorded)
    board, again = built(standard)
    assert again == tree
    assert all(page.rows for page in board.evaluations)
    parts = [line.split() for line in made_by.read_text().splitlines()]
    assert len({part for part, _ in parts}) == len(parts) > 2
    assert len({pid for _, pid in parts} - {str(os.getpid())}) == 1


def test_a_first_build_written_by_forked_workers_is_the_whole_tree(
    tmp_path: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A big board's first build: each process writes the files it makes, each whole.
    made_by = tmp_path / "made-by"
    shares = _apart(monkeypatch)
    parts = [_noting(part, "part", made_by) for part in files_of(tree).parts]
    write(Files(parts, files_of(tree).manifest), tmp_path / "site")
    assert shares == [2]
    assert len(_pids(made_by)["part"]) == 2
    assert differences(files_of(tree), tmp_path / "site") == []


def test_a_share_that_cannot_be_written_fails_the_whole_first_build(
    tmp_path: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    _apart(monkeypatch)
    broken = {**tree, "zz/" + "x" * 300: b"x"}
    with pytest.raises(OutputUnwritable, match="File name too long"):
        write(files_of(broken), tmp_path / "site")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("forked", [False, True])
def test_a_build_that_fails_midway_leaves_the_previous_site_as_it_was(
    tmp_path: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch, forked: bool
) -> None:
    # A theme whose last page is in error, after every other file was made (and, in a
    # rebuild, each changed one staged beside the old): nothing of it reaches a site.
    out = tmp_path / "site"
    write(files_of(tree), out)
    before = _read(out)
    if forked:
        _apart(monkeypatch)
    changed = files_of({path: content + b" " for path, content in tree.items()})

    def broken() -> dict[str, bytes]:
        raise BoardConfigError("template run.html (rendering runs/x/index.html): broken")

    failing = Files([*changed.parts, broken], changed.manifest)
    with pytest.raises(BoardConfigError, match="broken"):
        write(failing, out)  # a rebuild
    assert _read(out) == before
    with pytest.raises(BoardConfigError, match="broken"):
        write(failing, tmp_path / "first")  # a first build
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_rebuild_rewrites_what_changed_and_removes_what_it_emptied(
    tmp_path: Path, tree: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    write(files_of(tree), out)
    run = next(path for path in tree if path.startswith("runs/") and path.endswith("index.html"))
    gone = run.rpartition("/")[0]
    again = {path: content for path, content in tree.items() if not path.startswith(gone)}
    changed = next(path for path in again if path.endswith(".html") and path != run)
    again[changed] = b"<p>changed</p>"
    again["new/folder/page.html"] = b"<p>new</p>"
    kept = next(path for path in again if path not in (changed, "manifest.json"))
    before = (out / kept).stat().st_ino, (out / kept).stat().st_mtime_ns
    (out / "left-empty").mkdir()
    folder, _, name = kept.rpartition("/")
    (out / folder / f".{name}.0123456789ab.new").write_bytes(b"staged by a build that was killed")
    shares = _apart(monkeypatch)
    write(files_of(again), out)
    assert shares == [2]
    assert differences(files_of(again), out) == []
    assert not (out / gone).exists() and not (out / "left-empty").exists()
    assert ((out / kept).stat().st_ino, (out / kept).stat().st_mtime_ns) == before  # left alone
    assert not list(out.rglob(".*"))  # nothing staged is left, this build's or a killed one's


def _apart(monkeypatch: pytest.MonkeyPatch, cores: int = 2) -> list[int]:
    """``cores`` cores, and parts handed out one at a time to as many processes: the shares
    each ``split`` of the parts made (in order)."""
    monkeypatch.setattr(folder, "PARTS_LEAST", 1)
    monkeypatch.setattr(folder, "PARTS_BATCH", 1)
    monkeypatch.setattr(_forked, "cores", lambda: cores)
    shares: list[int] = []
    split = _forked.split

    def counted(items: Sequence[object], least: int) -> list[Sequence[object]]:
        made = split(items, least)
        shares.append(len(made))
        return made

    monkeypatch.setattr(_forked, "split", counted)
    return shares


def _read(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_a_theme_template_in_error_is_named_with_the_page_that_renders_it(
    standard: Path, tmp_path: Path
) -> None:
    # A template that does not compile fails where a page renders it, so the error names both.
    theme = tmp_path / "theme"
    shutil.copytree(TEMPLATES, theme)
    run = theme / "run.html"
    run.write_text(run.read_text().replace("{% endblock %}", "{% if %}{% endblock %}", 1))
    with pytest.raises(BoardConfigError, match=r"template run\.html \(rendering runs/.*\): "):
        make(standard, theme, DOCS).files.tree()


def _noting(work: Any, name: str, made_by: Path) -> Any:
    """``work``, noting the process that does it in ``made_by`` as ``name`` (a worker's
    memory does not come back; a file does)."""

    def noted(*args: Any) -> Any:
        with made_by.open("a") as pids:
            pids.write(f"{name} {os.getpid()}\n")
        return work(*args)

    return noted


def _pids(made_by: Path) -> dict[str, set[str]]:
    """The processes ``_noting`` noted, by name."""
    pids: dict[str, set[str]] = {}
    for line in made_by.read_text().splitlines():
        name, pid = line.split()
        pids.setdefault(name, set()).add(pid)
    return pids


_IMPORTS_OF_A_BUILD = """
import sys
from pathlib import Path
from memrank.board.site import make
made = make(Path(sys.argv[1]), None, Path(sys.argv[2]))
made.files.tree()
print(" ".join(sorted(sys.modules)))
"""


def test_a_build_never_imports_numpy_ma(standard: Path) -> None:
    # numpy.unique imports numpy.ma on first use (a twentieth of a second, in the building
    # process, whose board stage every other process waits on); the build counts distinct
    # values another way.
    found = subprocess.run(
        [sys.executable, "-c", _IMPORTS_OF_A_BUILD, str(standard), str(DOCS)],
        capture_output=True,
        check=True,
        text=True,
        timeout=300,
    )
    assert "numpy" in found.stdout.split() and "numpy.ma" not in found.stdout.split()
