"""memrank serve, memrank check, and memrank run against a served memory, from the command line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import memrank
from memrank.cli import main
from memrank.systems import WordOverlap
from memrank.wire._service import ContractService
from memrank.wire.serve import listen, serving
from tests.wire.test_check import OverReturns

SERVE = [sys.executable, "-c", "from memrank.cli import main; main()", "serve"]


@pytest.fixture
def served_word_overlap() -> Iterator[str]:
    """`memrank serve word-overlap` in its own process, on a free loopback port."""
    process = subprocess.Popen(
        [*SERVE, "word-overlap", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert banner.startswith("serving word-overlap at http://127.0.0.1:"), process.stderr.read()  # type: ignore[union-attr]
        yield banner.split()[3]
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_run_aml_demo_against_serve_word_overlap_matches_in_process(
    served_word_overlap: str, tmp_path: Path
) -> None:
    saved = tmp_path / "aml.json"
    outcome = CliRunner().invoke(
        main,
        ["run", "aml", "demo", "--save", str(saved)],
        env={"AML_BASE_URL": served_word_overlap},
    )
    assert outcome.exit_code == 0, outcome.output
    over_http = memrank.Result.load(saved)
    in_process = memrank.run(WordOverlap(), memrank.evaluation("demo"))
    assert over_http.system.transport == "http" and not over_http.failed
    for measure in ("word-match", "demo-score"):
        assert [(v.task_id, v.group, v.value) for v in over_http.values_of(measure)] == [
            (v.task_id, v.group, v.value) for v in in_process.values_of(measure)
        ]


def test_run_takes_system_options_and_concurrency(served_word_overlap: str) -> None:
    outcome = CliRunner().invoke(
        main,
        [
            "run",
            "aml",
            "demo",
            "--option",
            f"base_url={served_word_overlap}",
            "--option",
            "timeout=10",
            "--concurrency",
            "2",
            "--values",
        ],
        env={"AML_BASE_URL": ""},
    )
    assert outcome.exit_code == 0, outcome.output
    assert re.search(r"\n  failure-rate +0\.000      1         0  memrank  run\n", outcome.output)


@pytest.mark.parametrize(
    "arguments,message",
    [
        (["--option", "base_url"], "is not KEY=VALUE"),
        (["--option", "colour=red"], "--option colour=red: aml takes no option 'colour'"),
        (["--concurrency", "0"], "0 is not in the range x>=1"),
    ],
)
def test_run_refuses_bad_options(arguments: list[str], message: str) -> None:
    outcome = CliRunner().invoke(
        main, ["run", "aml", "demo", *arguments], env={"AML_BASE_URL": "http://127.0.0.1:9"}
    )
    assert outcome.exit_code == 2 and message in outcome.output


def test_check_passes_a_conformant_endpoint_and_prints_json() -> None:
    with serving(ContractService(WordOverlap)) as url:
        printed = CliRunner().invoke(main, ["check", url])
        as_json = CliRunner().invoke(
            main, ["check", f"{url}/add", "--search-url", f"{url}/search", "--json"]
        )
    assert printed.exit_code == 0 and "13 checks: 13 passed, 0 failed" in printed.output
    assert as_json.exit_code == 0
    outcomes = json.loads(as_json.output)
    assert len(outcomes) == 13 and all(o["passed"] for o in outcomes)
    assert set(outcomes[0]) == {"name", "requirement", "passed", "evidence", "warning", "ran"}


def test_check_exits_1_naming_the_failed_checks() -> None:
    with serving(OverReturns(WordOverlap)) as url:
        outcome = CliRunner().invoke(main, ["check", url])
    assert outcome.exit_code == 1
    assert "FAIL  top-k" in outcome.output and "1 check(s) failed: top-k" in outcome.output


def test_check_sends_the_key_named_by_auth(monkeypatch: pytest.MonkeyPatch) -> None:
    from memrank.systems.http._client import Auth

    monkeypatch.setenv("ENDPOINT_KEY", "k-9")
    with serving(ContractService(WordOverlap, Auth("Bearer", "k-9"))) as url:
        keyed = CliRunner().invoke(main, ["check", url, "--auth", "Bearer:ENDPOINT_KEY"])
        anonymous = CliRunner().invoke(main, ["check", url])
    assert keyed.exit_code == 0, keyed.output
    assert anonymous.exit_code == 1 and "HTTP 401" in anonymous.output


def test_serve_refuses_a_bad_auth_spec_and_a_busy_port() -> None:
    bad_auth = CliRunner().invoke(main, ["serve", "word-overlap", "--auth", "Bearer"])
    assert bad_auth.exit_code == 2 and "not SCHEME:ENVVAR" in bad_auth.output
    with listen("127.0.0.1", 0) as busy:
        port = busy.getsockname()[1]
        taken = CliRunner().invoke(main, ["serve", "word-overlap", "--port", str(port)])
    assert taken.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in taken.output
    unknown = CliRunner().invoke(main, ["serve", "nope"])
    assert unknown.exit_code == 2 and "no system named 'nope'" in unknown.output
