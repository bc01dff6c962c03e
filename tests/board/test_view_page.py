"""`memrank view`: a locomo:smoke result (a slice, unsigned, from a checkout) as a local page
that headless Chromium opens: headline, measures, per category, and a page per task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from memrank.result import Result
from tests.board.conftest import browse, serve
from tests.runs.conftest import memrank_here


@pytest.fixture
def smoke(shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEMRANK_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMRANK_LOCOMO_FILE", str(shared_data / "locomo" / "locomo10.json"))
    saved = tmp_path / "smoke.json"
    outcome = memrank_here("run", "bm25", "locomo:smoke", "--save", str(saved), "--json")
    assert outcome.returncode == 0, outcome.stderr
    return saved


def test_view_of_a_smoke_result_is_a_page_a_browser_opens(
    smoke: Path,
    tmp_path: Path,
    chromium: Browser,  # noqa: F811
) -> None:
    out = tmp_path / "page"
    outcome = memrank_here("view", str(smoke), "--out", str(out))
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.stdout.strip() == str(out / "index.html")
    result = Result.load(smoke)
    headline = [v.value for v in result.values if v.measure == "evidence-recall@500w"]
    decided = [v for v in headline if v is not None]
    with serve(out) as base, browse(chromium, javascript=False) as watched:
        page = watched.page
        page.goto(base + "index.html")
        shown = page.locator("#headline").inner_text()
        assert shown == f"evidence-recall@500w {sum(decided) / len(decided):.3f}"
        assert page.locator("#tasks tbody tr").count() == len(result.traces)
        categories = page.locator("#categories tbody th").all_inner_texts()
        assert categories == sorted({t.task.category or "uncategorised" for t in result.traces})
        assert "a slice (smoke) is not a measurement" in page.inner_text("main").lower().replace(
            "A slice", "a slice"
        )
        page.locator("#tasks tbody a").first.click()
        first = result.traces[0]
        assert page.locator("#question").inner_text() == first.task.prompt
        assert first.recalled is not None
        assert page.locator("#recalled li").count() == len(first.recalled.documents)
        assert page.locator("table.values tbody tr").count() == len(
            [v for v in result.values if v.task_id == first.task.id]
        )
        assert watched.problems == []


def test_view_of_a_run_id_writes_into_its_folder_and_refuses_a_missing_file(
    smoke: Path, tmp_path: Path
) -> None:
    run_id = json.loads(memrank_here("runs", "ls", "--json").stdout)[0]["id"]
    outcome = memrank_here("view", run_id)
    assert outcome.returncode == 0, outcome.stderr
    assert Path(outcome.stdout.strip()).is_file()
    missing = memrank_here("view", str(tmp_path / "nothing.json"))
    assert missing.returncode == 4
    assert "nothing.json" in missing.stderr
