"""The build memo: a rebuild takes unchanged work from it, and the site is byte for byte the
one a build without it makes, whatever the memo holds."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from memrank.board import pair_memo
from memrank.board.folder import differences, write
from memrank.board.memo import KEEP_DAYS, NO_MEMO, Memo
from memrank.board.site import make
from memrank.cli import main
from memrank.errors import ScoresDigestMismatch
from memrank.stats import PairMatrices
from tests.board.conftest import (
    DOCS,
    TEMPLATES,
    Signed,
    files_of,
    notes,
    sign_artifacts,
    standard_runs,
    wheel_run,
)


def memo_at(folder: Path) -> Memo:
    return Memo(folder, code="this memrank")


def tree_of(artifacts: Path, memo: Memo = NO_MEMO) -> dict[str, bytes]:
    return make(artifacts, TEMPLATES, DOCS, memo).files.tree()


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    return sign_artifacts(tmp_path / "artifacts", standard_runs())


def test_a_rebuild_from_the_memo_is_the_site_a_cold_build_makes(
    artifacts: Path, tmp_path: Path
) -> None:
    memo = memo_at(tmp_path / "memo")
    cold = tree_of(artifacts)
    assert tree_of(artifacts, memo) == cold
    assert memo.hits == 0 and memo.misses > 0
    again = memo_at(tmp_path / "memo")
    assert tree_of(artifacts, again) == cold
    # every run page, evaluation page, docs page, plot and pair matrix came from the memo
    assert again.hits > len([p for p in cold if p.startswith("runs/")]) and again.misses == 0


def test_after_a_run_is_added_only_its_column_is_worked_out_again(
    artifacts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memrank.board.render as render

    memo = memo_at(tmp_path / "memo")
    before = make(artifacts, TEMPLATES, DOCS, memo)
    before.files.tree()  # the files are made, and kept in the memo, when asked for
    grown = sign_artifacts(
        tmp_path / "grown", [*standard_runs(), Signed(wheel_run("bm25", notes()))]
    )
    rendered: list[str] = []
    real = render._render

    def spy(environment: object, template: str, path: str, *rest: object) -> bytes:
        rendered.append(path)
        return real(environment, template, path, *rest)  # type: ignore[arg-type]

    tested: list[tuple[int, list[int] | None]] = []
    real_tests = pair_memo.pairwise_tests

    def tests_spy(matrix: np.ndarray, *rest: object, **options: Any) -> PairMatrices:
        tested.append((len(matrix), options.get("rows")))
        return real_tests(matrix, *rest, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(render, "_render", spy)
    monkeypatch.setattr(pair_memo, "pairwise_tests", tests_spy)
    rebuilt = memo_at(tmp_path / "memo")
    after = make(grown, TEMPLATES, DOCS, rebuilt)
    rebuilt_tree = after.files.tree()
    monkeypatch.undo()
    assert rebuilt_tree == tree_of(grown)
    demo = {run.path for run in before.board.runs if run.predicate.evaluation.name == "demo"}
    notes_runs = {run.path for run in after.board.runs if run.predicate.evaluation.name == "notes"}
    assert demo and not demo & set(rendered)  # the demo column's pages came from the memo
    assert notes_runs <= set(rendered)  # every page of the column that grew was made again
    # and of the column that grew, only the pairs that hold the new run were tested
    (rows, new), *others = tested
    assert not others and rows == len(notes_runs) and new is not None and len(new) == 1


def test_a_corrupt_memo_entry_is_made_again(artifacts: Path, tmp_path: Path) -> None:
    folder = tmp_path / "memo"
    tree_of(artifacts, memo_at(folder))
    entries = [p for p in folder.rglob("*") if p.is_file()]
    for entry in entries:
        raw = bytearray(entry.read_bytes())
        raw[-1] ^= 0xFF  # the content no longer matches the sha256 stored before it
        entry.write_bytes(bytes(raw))
    corrupt = memo_at(folder)
    assert tree_of(artifacts, corrupt) == tree_of(artifacts)
    assert corrupt.hits == 0


def test_an_entry_of_other_code_is_never_read(artifacts: Path, tmp_path: Path) -> None:
    tree_of(artifacts, memo_at(tmp_path / "memo"))
    upgraded = Memo(tmp_path / "memo", code="another memrank")
    tree_of(artifacts, upgraded)
    assert upgraded.hits == 0


def test_the_memo_lets_no_edited_scores_file_through(artifacts: Path, tmp_path: Path) -> None:
    memo = memo_at(tmp_path / "memo")
    tree_of(artifacts, memo)
    scores = sorted((artifacts / "scores").glob("*.json"))[0]
    scores.write_bytes(scores.read_bytes().replace(b'"values":[', b'"values":[1,', 1))
    made = make(artifacts, TEMPLATES, DOCS, memo_at(tmp_path / "memo"))
    assert [r.error for r in made.refusals] == [ScoresDigestMismatch]


def test_a_rebuild_rewrites_only_the_files_that_changed(artifacts: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    tree = tree_of(artifacts)
    write(files_of(tree), out)
    (out / "stale" / "deep").mkdir(parents=True)
    (out / "stale" / "deep" / "index.html").write_text("old page")
    unchanged = next(p for p in sorted(tree) if p.startswith("runs/"))
    before = os.stat(out / unchanged).st_ino
    changed = {**tree, "static/board.css": tree["static/board.css"] + b"/* new */\n"}
    write(files_of(changed), out)
    assert differences(files_of(changed), out) == []
    assert os.stat(out / unchanged).st_ino == before  # left alone, not rewritten
    assert not (out / "stale").exists()
    assert not list(out.rglob(".*"))  # nothing staged is left beside the files


def test_a_file_where_a_folder_now_goes_is_rewritten_whole(tmp_path: Path) -> None:
    out = tmp_path / "site"
    write(files_of({"manifest.json": b"{}", "runs": b"a file"}), out)
    tree = {"manifest.json": b"{}", "runs/a/index.html": b"a page"}
    write(files_of(tree), out)
    assert differences(files_of(tree), out) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_build_site_keeps_its_memo_in_the_cache_folder_unless_told_not_to(
    artifacts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMRANK_CACHE_DIR", str(tmp_path / "cache"))
    base = ["build-site", "--artifacts", str(artifacts), "--templates", str(TEMPLATES)]
    cold = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "cold"), "--no-cache"])
    assert cold.exit_code == 0, cold.output
    assert not (tmp_path / "cache").exists()
    for _ in range(2):
        warm = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "warm")])
        assert warm.exit_code == 0, warm.output
    assert any((tmp_path / "cache" / "board").rglob("*"))
    assert differences(files_of(tree_of(artifacts)), tmp_path / "warm") == []
    assert differences(files_of(tree_of(artifacts)), tmp_path / "cold") == []


def test_a_known_good_artifact_reads_as_the_checked_one_does(artifacts: Path) -> None:
    from memrank.artifacts import load_trust, verify_directory

    trust = load_trust(artifacts / "root.json")
    known: set[str] = set()
    checked = verify_directory(artifacts, trust, known_good=known)
    assert known == {run.artifact_id for run in checked.runs}
    again = verify_directory(artifacts, trust, known_good=known)
    assert [run.checked_scores for run in again.runs] == [None] * len(again.runs)
    assert [run.scores for run in again.runs] == [run.scores for run in checked.runs]


def test_a_cache_folder_that_cannot_be_made_only_costs_time(
    artifacts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a file").write_text("not a folder")
    monkeypatch.setenv("MEMRANK_CACHE_DIR", str(tmp_path / "a file" / "cache"))
    base = ["build-site", "--artifacts", str(artifacts), "--templates", str(TEMPLATES)]
    built = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "site")])
    assert built.exit_code == 0, built.output
    assert differences(files_of(tree_of(artifacts)), tmp_path / "site") == []


def test_entries_unused_for_the_keeping_days_are_pruned_and_a_read_keeps_one(
    tmp_path: Path,
) -> None:
    memo = memo_at(tmp_path / "memo")
    days = 86_400
    paths = {}
    for name in ("read lately", "read long ago", "never read"):
        memo.put(name, name.encode())
        paths[name] = next(p for p in (tmp_path / "memo").rglob(name))
    now = time.time()
    os.utime(paths["read lately"], (now - 3600, now - 3600))
    for name in ("read long ago", "never read"):
        old = now - (KEEP_DAYS + 1) * days
        os.utime(paths[name], (old, old))
    assert memo.get("read lately") == b"read lately"
    assert memo.get("read long ago") == b"read long ago"
    # an entry touched within the day is not written again on a read; an older one is
    assert paths["read lately"].stat().st_mtime == pytest.approx(now - 3600, abs=1)
    assert paths["read long ago"].stat().st_mtime == pytest.approx(time.time(), abs=60)
    memo.prune()
    assert sorted(p.name for p in (tmp_path / "memo").rglob("*") if p.is_file()) == [
        "read lately",
        "read long ago",
    ]


def test_build_site_prunes_after_the_files_are_made_so_an_old_entry_they_read_stays(
    artifacts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every entry of a first build made old: the next build reads some (its pages among
    # them, read as the files are made) and only then prunes, so those are the same files,
    # marked used, and only the ones no part of it read are gone.
    monkeypatch.setenv("MEMRANK_CACHE_DIR", str(tmp_path / "cache"))
    base = ["build-site", "--artifacts", str(artifacts), "--templates", str(TEMPLATES)]
    assert CliRunner().invoke(main, [*base, "--out", str(tmp_path / "a")]).exit_code == 0
    folder = tmp_path / "cache" / "board"
    old = time.time() - (KEEP_DAYS + 1) * 86_400
    # the entries, not the theme's compiled templates beside them (jinja2's own cache)
    entries = {p: p.stat().st_ino for p in folder.glob("*/*") if p.parent.name != "templates"}
    for entry in entries:
        os.utime(entry, (old, old))
    # read in this process or a worker it forked (the docs are made while it verifies)
    reads = tmp_path / "read"
    get = Memo.get

    def recorded(memo: Memo, entry: str) -> bytes | None:
        with reads.open("a") as log:
            log.write(entry + "\n")
        return get(memo, entry)

    monkeypatch.setattr(Memo, "get", recorded)
    built = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "b")])
    assert built.exit_code == 0, built.output
    read = set(reads.read_text().split())
    kept = {p for p in entries if p.name in read}
    assert len(kept) > len([p for p in (tmp_path / "b" / "runs").rglob("index.html")])
    assert all(p.stat().st_ino == entries[p] and p.stat().st_mtime > old for p in kept)
    assert not any(p.exists() for p in set(entries) - kept)
