"""The verdict where people meet it: `memrank run aml locomo:smoke` against a cheater and an
honest server, `memrank review` and `memrank approve`, `memrank.artifacts.attest`, and the
verifier of a statement signed anyway."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from click.testing import Result as Invoked
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from memrank import Memory
from memrank.artifacts import (
    Root,
    TrackPolicy,
    attest,
    generate_key_files,
    load_private_key,
    load_trust,
    sign_root,
    verify,
    write_root,
)
from memrank.cli import main
from memrank.errors import IntegritySuspect, SuspectRun
from memrank.evaluation import Evaluation
from memrank.integrity.record import VERDICT
from memrank.provenance import Evidence
from memrank.result import Result
from memrank.systems.bm25 import BM25Adapter
from memrank.wire._service import ContractService
from memrank.wire.serve import serving
from tests.artifacts.conftest import as_installed
from tests.endpoints import over_aml
from tests.integrity.hostile import PublicLocomo, StoresNothing

SUSPECT = "integrity: suspect — recall on the benchmark's questions"


@dataclass(frozen=True)
class Ran:
    """One `memrank run aml locomo:smoke`, as printed, and the result it saved."""

    printed: Invoked
    result: Result
    run_id: str


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("memrank-home")


@pytest.fixture(scope="module")
def memrank_cli(home: Path, shared_data: Path) -> Callable[..., Invoked]:
    """`memrank ARGS` through click's runner, with this module's run registry and data dir."""

    def invoke(*args: str, url: str = "", standalone: bool = True) -> Invoked:
        env = {"MEMRANK_HOME": str(home), "MEMRANK_DATA_DIR": str(shared_data)}
        if url:
            env["AML_BASE_URL"] = url
        return CliRunner().invoke(main, list(args), env=env, standalone_mode=standalone)

    return invoke


def _run(memrank_cli: Callable[..., Invoked], make: Callable[[], Memory], where: Path) -> Ran:
    saved = where / "run.json"
    with serving(ContractService(make)) as url:
        printed = memrank_cli("run", "aml", "locomo:smoke", "--save", str(saved), url=url)
    run_id = next(
        line.split()[-1] for line in printed.stderr.splitlines() if line.startswith("run:")
    )
    return Ran(printed, Result.load(saved), run_id)


@pytest.fixture(scope="module")
def cheater(
    memrank_cli: Callable[..., Invoked],
    public: PublicLocomo,
    tmp_path_factory: pytest.TempPathFactory,
) -> Ran:
    return _run(memrank_cli, lambda: StoresNothing(public), tmp_path_factory.mktemp("cheater"))


def test_a_cheaters_run_prints_the_suspect_line_and_exits_11(cheater: Ran) -> None:
    printed = cheater.printed
    assert printed.exit_code == 11, printed.output
    (line,) = [line for line in printed.stdout.splitlines() if line.startswith("integrity:")]
    assert line.startswith(SUSPECT) and "one-sided p = < 0.001" in line
    assert "Error: the run was saved, and its integrity: suspect" in printed.stderr
    assert cheater.result.integrity is not None and cheater.result.integrity.line == line


def test_an_honest_servers_run_prints_clean_and_exits_0(
    memrank_cli: Callable[..., Invoked], tmp_path: Path
) -> None:
    honest = _run(memrank_cli, BM25Adapter, tmp_path)
    assert honest.printed.exit_code == 0, honest.printed.output
    assert "integrity: clean" in honest.printed.stdout.splitlines()
    assert "integrity: suspect" not in honest.printed.output


def test_json_carries_the_verdict_and_its_evidence_without_the_secret(
    memrank_cli: Callable[..., Invoked], public: PublicLocomo
) -> None:
    with serving(ContractService(lambda: StoresNothing(public))) as url:
        printed = memrank_cli("run", "aml", "locomo:smoke", "--json", url=url)
    assert printed.exit_code == 11
    shown = json.loads(printed.stdout)
    integrity = shown["integrity"]
    assert integrity["verdict"] == "suspect" and integrity["reasons"][0].startswith(
        SUSPECT.removeprefix("integrity: suspect — ")
    )
    assert integrity["test"]["canary_mean"] == 0.0 and integrity["test"]["p_value"] < 0.001
    assert set(integrity["foreign"]) == {"documents", "tasks", "recalled"}
    assert not {"secret", "traces", "values"} & set(integrity)


def test_review_lists_the_suspect_run_as_not_publishable_with_its_reason(
    memrank_cli: Callable[..., Invoked], cheater: Ran, tmp_path: Path
) -> None:
    printed = memrank_cli("review", "--artifacts", str(tmp_path))
    assert printed.exit_code == 0, printed.output
    lines = printed.stdout.splitlines()
    (at,) = [n for n, line in enumerate(lines) if line.startswith(cheater.run_id)]
    assert lines[at].endswith("not publishable")
    reasons = []
    for line in lines[at + 1 :]:
        if not line.startswith("  - "):
            break
        reasons.append(line.removeprefix("  - "))
    assert any(reason.startswith(SUSPECT) for reason in reasons), reasons


@dataclass(frozen=True)
class Signing:
    """An artifacts directory whose trust root admits ``release`` for the textual track."""

    artifacts: Path
    release: Path
    key: Ed25519PrivateKey


def _signing(where: Path, pinned: Result) -> Signing:
    """Keys and a trust root whose textual track admits endpoint observations of ``pinned``'s
    pipeline and dataset, as a board's does for the endpoint rows it carries."""
    keys, artifacts = where / "keys", where / "artifacts"
    keys.mkdir()
    artifacts.mkdir()
    root_pem, root_pub, _ = generate_key_files(keys, "root")
    release_pem, release_pub, _ = generate_key_files(keys, "release")
    now = datetime.now(UTC)
    root = Root.first(
        [load_private_key(root_pem).public_key()],
        [load_private_key(release_pem).public_key()],
        root_threshold=1,
        release_threshold=1,
        expires=now + timedelta(days=30),
        valid_from=now - timedelta(days=1),
    )
    endpoints = TrackPolicy(evidence=(Evidence.REPRODUCIBLE, Evidence.ENDPOINT))
    root = root.model_copy(update={"tracks": {"textual": endpoints}}).pinning("textual", pinned)
    write_root(artifacts / "root.json", sign_root(root, [load_private_key(root_pem)]))
    return Signing(artifacts, release_pem, load_private_key(release_pem))


@pytest.fixture
def signing(cheater: Ran, tmp_path: Path) -> Iterator[Signing]:
    yield _signing(tmp_path, cheater.result)


def test_approve_refuses_the_suspect_run_before_writing_anything(
    memrank_cli: Callable[..., Invoked], cheater: Ran, signing: Signing
) -> None:
    before = sorted(signing.artifacts.rglob("*"))
    refused = memrank_cli(
        "approve", cheater.run_id, "--track", "textual", "--division", "open-source",
        "--key", str(signing.release), "--artifacts", str(signing.artifacts), standalone=False,
    )  # fmt: skip
    assert isinstance(refused.exception, SuspectRun), refused.output
    assert f"run {cheater.run_id} cannot be published: {SUSPECT}" in str(refused.exception)
    assert SuspectRun.exit_code == 3
    assert sorted(signing.artifacts.rglob("*")) == before


def test_attest_refuses_the_suspect_run(cheater: Ran, signing: Signing) -> None:
    with pytest.raises(SuspectRun, match="the run's integrity: suspect — recall on"):
        attest(
            as_installed(cheater.result),
            "textual",
            "open-source",
            signing.key,
            artifacts=signing.artifacts,
        )
    assert not (signing.artifacts / "runs").exists()


def test_the_verifier_refuses_a_suspect_run_signed_anyway(cheater: Ran, tmp_path: Path) -> None:
    # a signer who drops the integrity record gets past attest; the summary still says suspect
    evaluation = cheater.result.evaluation.model_copy(update={"slice": None})
    forged = as_installed(cheater.result).model_copy(
        update={"evaluation": evaluation, "integrity": None}
    )
    signing = _signing(tmp_path, forged)
    attested = attest(forged, "textual", "open-source", signing.key, artifacts=signing.artifacts)
    with pytest.raises(
        IntegritySuspect, match=r"integrity verdict is suspect \(integrity: suspect"
    ):
        verify(attested.envelope, load_trust(signing.artifacts / "root.json"))


def test_a_clean_endpoint_run_signed_verifies(demo: Evaluation, tmp_path: Path) -> None:
    honest = as_installed(over_aml(BM25Adapter, demo))
    assert honest.integrity is not None and honest.integrity.verdict == "clean"
    signing = _signing(tmp_path, honest)
    attested = attest(honest, "textual", "open-source", signing.key, artifacts=signing.artifacts)
    verified = verify(attested.envelope, load_trust(signing.artifacts / "root.json"))
    assert [v.value for v in verified.predicate.summary if v.measure == VERDICT] == [0.0]
