"""memrank upload-results against a loopback server speaking GitHub's release API
(fake_github.py): a signed run's result file uploaded, then `verify --deep` passes from the
release with no --reproduce; an interrupted upload resumed with one asset per digest; the 422
for a name taken, rate limits, a bad token, a missing repository, and bad files, each said in
one line with its exit code."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from click.testing import Result as Outcome

from memrank.artifacts import Attested
from memrank.cli import main
from memrank.result import Result

from .conftest import Store
from .fake_github import READ_TOKEN, REPOSITORY, TOKEN, FakeGitHub


@pytest.fixture(autouse=True)
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # verify --deep looks in this machine's results cache before the store: keep it empty
    monkeypatch.setenv("MEMRANK_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def placed(store: Store, wheel_run: Result, tmp_path: Path) -> Attested:
    """A signed run whose result file is in a results store folder, not in artifacts/."""
    return store.attest(wheel_run, results_store=tmp_path / "store")


def upload(
    github: FakeGitHub, folder: Path, artifacts: Path, *, token: str | None = TOKEN,
    repo: str = REPOSITORY, api_url: str | None = None,
) -> Outcome:  # fmt: skip
    return CliRunner().invoke(
        main,
        ["upload-results", str(folder), "--repo", repo, "--artifacts", str(artifacts),
         "--api-url", api_url or github.api_url, "--uploads-url", github.uploads_url],
        env={"GITHUB_TOKEN": token},
    )  # fmt: skip


def listed(artifacts: Path) -> list[str]:
    digests: list[str] = json.loads((artifacts / "results-store.json").read_text())["digests"]
    return digests


def names(github: FakeGitHub) -> list[tuple[str, str]]:
    return sorted((asset.name, asset.state) for asset in github.assets())


def test_an_uploaded_result_file_verifies_deep_from_the_release_without_reproduce(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    digest = placed.result_file.stem
    done = upload(github, placed.result_file.parent, store.directory)
    assert done.exit_code == 0, done.output
    assert "(made now)" in done.output and f"uploaded:   {digest}.json" in done.output
    assert names(github) == [(f"{digest}.json", "uploaded")]
    assert github.assets()[0].data == placed.result_file.read_bytes()
    assert github.releases["results"]["asked"]["make_latest"] == "false"
    assert listed(store.directory) == [digest]

    verified = CliRunner().invoke(
        main, ["verify", str(store.directory), "--deep", "--store", github.store_url()]
    )
    assert verified.exit_code == 0, verified.output
    assert "1 verified, 0 refused" in verified.output and "not checked" not in verified.output
    downloads = github.logged("GET", f"/releases/download/results/{digest}.json")
    assert len(downloads) == 1 and downloads[0].authorization is None  # read as anyone reads it
    assert all(r.authorization == f"Bearer {TOKEN}" for r in github.requests if "/api/" in r.path)


def test_running_again_uploads_nothing_and_keeps_the_list(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    assert upload(github, placed.result_file.parent, store.directory).exit_code == 0
    again = upload(github, placed.result_file.parent, store.directory)
    assert again.exit_code == 0, again.output
    assert f"present:    {placed.result_file.name}" in again.output
    assert "(made now)" not in again.output
    assert len(github.logged("POST", "/uploads/")) == 1
    assert listed(store.directory) == [placed.result_file.stem]


def test_an_upload_cut_mid_body_is_resumed_in_the_same_run(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    github.cuts = 1
    done = upload(github, placed.result_file.parent, store.directory)
    assert done.exit_code == 0, done.output
    assert f"resumed:    {placed.result_file.name}" in done.output
    assert names(github) == [(placed.result_file.name, "uploaded")]
    assert len(github.logged("DELETE", "/releases/assets/")) == 1
    assert listed(store.directory) == [placed.result_file.stem]


def test_an_interrupted_upload_is_finished_by_the_next_run_without_a_duplicate(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    github.cuts = 3  # every try of this run is cut: GitHub keeps a partial asset
    failed = upload(github, placed.result_file.parent, store.directory)
    assert failed.exit_code == 1, failed.output
    assert "not uploaded after 3 tries" in failed.output and "Traceback" not in failed.output
    assert names(github) == [(placed.result_file.name, "starter")]
    assert not (store.directory / "results-store.json").exists()  # written once all are up

    done = upload(github, placed.result_file.parent, store.directory)
    assert done.exit_code == 0, done.output
    assert f"resumed:    {placed.result_file.name}" in done.output
    assert names(github) == [(placed.result_file.name, "uploaded")]
    assert github.assets()[0].data == placed.result_file.read_bytes()
    assert listed(store.directory) == [placed.result_file.stem]


@pytest.mark.parametrize("digests", [True, False], ids=["github-digest", "read-back"])
def test_a_name_taken_meanwhile_is_the_file_when_its_bytes_are(
    store: Store, placed: Attested, github: FakeGitHub, digests: bool
) -> None:
    # another run uploaded it after this one listed the release: GitHub answers 422
    github.put(placed.result_file.read_bytes(), digest=digests)
    github.stale_listings = 1
    done = upload(github, placed.result_file.parent, store.directory)
    assert done.exit_code == 0, done.output
    assert f"present:    {placed.result_file.name}" in done.output
    assert len(github.logged("POST", "/uploads/")) == 1  # answered 422, not uploaded twice
    assert names(github) == [(placed.result_file.name, "uploaded")]
    read_back = github.logged("GET", f"/releases/download/results/{placed.result_file.name}")
    assert len(read_back) == (0 if digests else 1)
    assert all(r.authorization is None for r in read_back)


@pytest.mark.parametrize(
    ("digests", "said"),
    [(True, "GitHub gives the release's asset the digest sha256:"), (False, "read back")],
)
def test_an_asset_of_the_name_with_other_bytes_is_refused(
    store: Store, placed: Attested, github: FakeGitHub, digests: bool, said: str
) -> None:
    other = placed.result_file.read_bytes().replace(b"word", b"WORD", 1)
    github.put(other, name=placed.result_file.name, digest=digests)
    done = upload(github, placed.result_file.parent, store.directory)
    assert done.exit_code == 1, done.output
    assert said in done.output and "Traceback" not in done.output
    assert not github.logged("POST", "/uploads/")


def test_rate_limits_are_waited_out_as_github_asks(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    github.limits = ["retry-after", "reset", "retry-after"]
    started = time.monotonic()
    done = upload(github, placed.result_file.parent, store.directory)
    assert done.exit_code == 0, done.output
    assert time.monotonic() - started >= 2.0  # 1 s, then until the reset, then 1 s
    assert names(github) == [(placed.result_file.name, "uploaded")]
    assert len(github.logged("GET", "/releases/tags/results")) == 4  # three limited, one served


def test_a_rate_limit_past_the_wait_allowed_ends_the_command(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    github.limits = ["reset-far"]
    started = time.monotonic()
    done = upload(github, placed.result_file.parent, store.directory)
    assert done.exit_code == 1, done.output
    assert "rate limit holds until" in done.output and "UTC" in done.output
    assert time.monotonic() - started < 5
    assert len(github.requests) == 1


def test_a_dropped_connection_is_tried_again(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    github.drops = 2  # the first two asks for the release: reset, answering nothing
    done = upload(github, placed.result_file.parent, store.directory)
    assert done.exit_code == 0, done.output
    assert len(github.logged("GET", "/releases/tags/results")) == 3
    assert len(github.logged("POST", "/api/")) == 1 and len(github.releases) == 1
    assert names(github) == [(placed.result_file.name, "uploaded")]


def test_the_asset_listing_is_read_page_by_page(
    store: Store, placed: Attested, tmp_path: Path
) -> None:
    with FakeGitHub(page_size=2) as github:
        others = [github.put(f"result {n}".encode()) for n in range(4)]
        impostor = github.put(b"something else", name=f"{'0' * 64}.json")
        done = upload(github, placed.result_file.parent, store.directory)
    assert done.exit_code == 0, done.output
    assert len(github.logged("GET", "/assets")) == 6  # two listings of three pages
    held = sorted([placed.result_file.stem, *(a.name.removesuffix(".json") for a in others)])
    assert listed(store.directory) == held
    assert f"not listed: {impostor.name}" in done.output


def test_the_list_is_what_the_release_holds_whatever_it_said_before(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    gone = hashlib.sha256(b"deleted from the release").hexdigest()
    (store.directory / "results-store.json").write_text(json.dumps({"digests": [gone]}))
    assert upload(github, placed.result_file.parent, store.directory).exit_code == 0
    assert listed(store.directory) == [placed.result_file.stem]


@pytest.mark.parametrize(
    ("token", "repo", "code", "said"),
    [
        ("ghs_wrong", REPOSITORY, 1, "GitHub answered 401 (Bad credentials)"),
        (READ_TOKEN, REPOSITORY, 1, "answered 403 (Resource not accessible by integration)"),
        (TOKEN, "octo/nothing", 1, "no repository octo/nothing this token can see"),
        (None, REPOSITORY, 2, "GITHUB_TOKEN is not set"),
        (TOKEN, "octo", 2, "give the repository as OWNER/NAME"),
    ],
)
def test_what_github_refuses_is_said_in_one_line(
    store: Store, placed: Attested, github: FakeGitHub,
    token: str | None, repo: str, code: int, said: str,
) -> None:  # fmt: skip
    done = upload(github, placed.result_file.parent, store.directory, token=token, repo=repo)
    assert done.exit_code == code, done.output
    assert said in done.output
    assert len(done.output.strip().splitlines()) == 1
    assert TOKEN not in done.output and READ_TOKEN not in done.output
    assert not (store.directory / "results-store.json").exists()


def test_a_file_that_is_not_what_its_name_says_is_refused_before_any_request(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    folder = placed.result_file.parent
    (folder / f"{'1' * 64}.json").write_bytes(b"{}")
    done = upload(github, folder, store.directory)
    assert done.exit_code == 2 and "not the result file its name says" in done.output
    (folder / f"{'1' * 64}.json").unlink()
    (folder / "notes.json").write_bytes(b"{}")
    done = upload(github, folder, store.directory)
    assert done.exit_code == 2 and "not named <sha256>.json" in done.output
    assert github.requests == []


def test_the_token_is_never_sent_in_the_clear_off_this_machine(
    store: Store, placed: Attested, github: FakeGitHub
) -> None:
    done = upload(github, placed.result_file.parent, store.directory,
                  api_url="http://api.example.org")  # fmt: skip
    assert done.exit_code == 2 and "--api-url" in done.output and "https://" in done.output
    assert github.requests == []
