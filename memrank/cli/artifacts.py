"""memrank attest and memrank verify: sign a result into an artifacts directory; check them all.

Also what every command that reads or signs into an artifacts directory shares: the
``--artifacts`` option, and the checks before signing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memrank.errors import ArtifactRefused, AttestRefused, UsageError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from memrank.artifacts import Verification

__all__ = ["artifacts_option", "attest_command", "check_signable", "verify_command"]


def artifacts_option(help_text: str) -> Callable[[Any], Any]:
    """``--artifacts DIR`` (default ``artifacts``), passed as ``directory``; ``help_text`` says
    what the command does with it."""
    return click.option(
        "--artifacts",
        "directory",
        default=Path("artifacts"),
        show_default=True,
        type=click.Path(file_okay=False, path_type=Path),
        help=help_text,
    )


def check_signable(artifacts: Path, keys: Sequence[Ed25519PrivateKey], track: str) -> None:
    """Refuse before writing anything what the verifier would refuse later: a key the release
    role does not list (the root key, say), a revoked key, or a track the root does not list,
    and signing into a directory with no root.json, whose every run the verifier refuses."""
    from memrank.artifacts import KeyStatus, keyid_of, load_trust

    root_file = artifacts / "root.json"
    if not root_file.is_file():
        raise AttestRefused(
            f"no trust root at {root_file}: nothing signed here could be verified. Create it "
            "first (`memrank trust init`), or give the --artifacts that holds it"
        )
    root = load_trust(root_file).root
    release = root.roles.release.keyids
    for key in keys:
        keyid = keyid_of(key.public_key())
        if keyid not in release:
            root_key = keyid in root.roles.root.keyids
            role = " (it is a root key: root keys sign root.json, never runs)" if root_key else ""
            raise AttestRefused(
                f"key {keyid} is not a release key of {root_file}{role}; sign with a release key "
                "(`memrank trust show` lists them)"
            )
        if root.keys[keyid].status is KeyStatus.REVOKED:
            raise AttestRefused(f"key {keyid} is revoked in {root_file}; sign with another")
    if track not in root.tracks:
        known = ", ".join(sorted(root.tracks)) or "none yet"
        raise AttestRefused(
            f"--track {track!r} is not a track of {root_file} (tracks: {known}); check the "
            "spelling, or add it with `memrank trust update --accept`"
        )


@click.command("attest")
@click.argument("result_file", metavar="RESULT", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--track", required=True, help="The board track the run is published on.")
@click.option(
    "--division",
    required=True,
    type=click.Choice(["open-source", "commercial"]),
    help="Which division of the track.",
)
@click.option(
    "--key",
    "key_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Release private key (PKCS8 PEM); repeat to sign with several. "
    "Default: the PEM text in MEMRANK_SIGNING_KEY.",
)
@artifacts_option("The artifacts directory to write runs/, scores/ and timings/ into.")
@click.option(
    "--results-store",
    type=click.Path(file_okay=False, path_type=Path),
    help="The results store directory to place the result file in. "
    "Default: results/ of the artifacts directory (keep only small result files there).",
)
@click.option("--supersedes", metavar="ARTIFACT_ID", help="The artifact of this run it corrects.")
def attest_command(
    result_file: Path,
    track: str,
    division: str,
    key_files: tuple[Path, ...],
    directory: Path,
    results_store: Path | None,
    supersedes: str | None,
) -> None:
    """Sign the result file RESULT (from `memrank run --save`) into the artifacts directory.

    Writes the envelope (runs/), the scores file (scores/) and the timings file (timings/)
    into the artifacts directory and places the result file in the results store.
    """
    from memrank._files import check_writable
    from memrank.artifacts import attest, signing_key
    from memrank.result import Result

    keys = [signing_key(path) for path in key_files] or [signing_key(None)]
    check_writable(directory, option="--artifacts", folder=True)
    if results_store is not None:
        check_writable(results_store, option="--results-store", folder=True)
    check_signable(directory, keys, track)
    attested = attest(
        Result.load(result_file),
        track,
        division,
        keys,
        artifacts=directory,
        results_store=results_store,
        supersedes=supersedes,
    )
    predicate = attested.statement.predicate
    click.echo(f"artifact:   {attested.artifact_id}")
    click.echo(f"envelope:   {attested.envelope}")
    click.echo(f"scores:     {attested.scores_file}")
    click.echo(f"timings:    {attested.timings_file}")
    click.echo(f"result:     {attested.result_file}")
    click.echo(f"run:        {predicate.run_id}")
    publishable = "publishable" if predicate.publishable else "not publishable"
    click.echo(f"evidence:   {predicate.evidence.value} ({publishable})")


@click.command("verify")
@click.argument("paths", nargs=-1, metavar="[PATH]...", type=click.Path(path_type=Path))
@click.option(
    "--trust",
    "trust_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The trust root. Default: root.json of each PATH's artifacts directory.",
)
@click.option(
    "--anchor",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A root file already trusted (say, main's): the chain must extend it.",
)
@click.option(
    "--deep",
    is_flag=True,
    help="Also check every result file, fetching those not in results/ from the results store.",
)
@click.option(
    "--store",
    metavar="LOCATION",
    help="The results store for --deep: a directory, or an https:// URL with {sha256}. "
    "Default: results_store in [site] of each artifacts directory's board.toml.",
)
@click.option(
    "--reproduce",
    is_flag=True,
    help="With --deep: regenerate each reproducible run's result file that is not at hand "
    "by `memrank reproduce` (into this machine's results cache), then check it.",
)
def verify_command(
    paths: tuple[Path, ...],
    trust_file: Path | None,
    anchor: Path | None,
    deep: bool,
    store: str | None,
    reproduce: bool,
) -> None:
    """Verify signed runs and report each one, ok or refused (with its error class).

    Each PATH is an artifacts directory (every runs/*.json in it) or an envelope file
    runs/<artifact-id>.json; the default is ./artifacts. A run whose result file is not in
    results/ verifies from its scores file, and its line says "result file not checked";
    --deep requires every result file, looking in this machine's results cache and then the
    results store; --reproduce regenerates the missing ones of reproducible runs first.
    Exits 6 when any is refused.
    """
    if reproduce and not deep:
        raise UsageError("--reproduce regenerates result files for --deep; give both")
    from memrank.artifacts import (
        ResultsStore,
        TrustRoot,
        load_trust,
        store_of_board,
        verify_all,
        verify_directory,
    )

    trusts: dict[Path, TrustRoot] = {}

    def trust_at(root_file: Path) -> TrustRoot:
        chosen = trust_file or root_file
        if chosen not in trusts:
            trusts[chosen] = load_trust(chosen, anchor=anchor)
        return trusts[chosen]

    def store_at(directory: Path) -> ResultsStore | None:
        if store is not None:
            return ResultsStore.parse(store, base=Path.cwd(), where="--store")
        return store_of_board(directory) if deep else None

    if reproduce:
        for path in paths or (Path("artifacts"),):
            directory = path if path.is_dir() else path.parent.parent
            _regenerate(
                verify_all([path] if path.is_file() else sorted((path / "runs").glob("*.json")),
                           trust_at(directory / "root.json")),
                directory,
            )  # fmt: skip
    verifications: list[Verification] = []
    loose: dict[Path, list[Path]] = {}
    for path in paths or (Path("artifacts"),):
        if path.is_dir():
            verifications.append(
                verify_directory(
                    path, trust_at(path / "root.json"), store=store_at(path), deep=deep
                )
            )
        elif path.is_file():  # runs/<artifact-id>.json of an artifacts directory
            loose.setdefault(path.parent.parent, []).append(path)
        else:
            raise UsageError(f"{path}: no such artifacts directory or envelope file")
    verifications += [
        verify_all(files, trust_at(parent / "root.json"), store=store_at(parent), deep=deep)
        for parent, files in loose.items()
    ]
    for verification in verifications:
        _report(verification)
    refused = sum(len(v.refusals) for v in verifications)
    total = refused + sum(len(v.runs) for v in verifications)
    click.echo(f"{total - refused} verified, {refused} refused")
    if refused:
        raise ArtifactRefused(f"{refused} of {total} artifact(s) refused; see above")


def _report(verification: Verification) -> None:
    lines = [
        (
            str(run.path),
            f"ok       {run.path}  {run.predicate.run_id}  {run.predicate.track}/"
            f"{run.predicate.division.value}  {run.predicate.evidence.value}  "
            f"signed by {', '.join(k[:16] for k in run.keyids)}"
            + (f"  ({run.note})" if run.note else ""),
        )
        for run in verification.runs
    ]
    lines += [
        (str(r.path), f"refused  {r.error.__name__}: {r.reason}") for r in verification.refusals
    ]
    for _, line in sorted(lines):
        click.echo(line)


def _regenerate(verification: Verification, directory: Path) -> None:
    """Reproduce each verified, reproducible run whose result file is not at hand, so that the
    deep check finds it in the results cache; a rerun that differs is reported and left for
    the deep check to refuse."""
    from memrank.artifacts import results_cache
    from memrank.errors import MemrankError
    from memrank.provenance import Evidence
    from memrank.runs.reproduce import repository_of, reproduce

    wanted = [
        run
        for run in verification.runs
        if not run.result_checked
        and run.predicate.evidence is Evidence.REPRODUCIBLE
        and not (results_cache() / run.statement.result_subject.name.split("/")[1]).is_file()
    ]
    for position, run in enumerate(wanted, 1):
        click.echo(
            f"reproduce {position}/{len(wanted)}: {run.path.name[:16]}  {run.predicate.run_id}"
        )
        try:
            done = reproduce(
                run.path,
                artifacts=directory,
                repository=repository_of(directory),
                progress=False,
                say=lambda line: click.echo(f"  {line}"),
            )
        except MemrankError as exc:
            click.echo(f"  could not reproduce: {exc.message}")
            continue
        click.echo(
            "  byte-identical" if done.identical else "  differs: its result file stays missing"
        )
