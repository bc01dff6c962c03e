"""memrank review, approve, withdraw, supersede: from a finished run to a signed artifact; and
memrank upload-results: its result file into the results store.

approve signs a run of the registry through ``memrank.artifacts.attest`` (the one way a run is
placed in an artifacts directory) after the same checks ``attest`` makes and the run's review,
and records who approved what in the run's record.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memrank.cli.artifacts import artifacts_option, check_signable
from memrank.errors import AttestRefused, MemrankError, SuspectRun, UsageError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from memrank.artifacts import Root
    from memrank.runs.registry import RunRecord

__all__ = [
    "approve_command",
    "review_command",
    "supersede_command",
    "upload_results_command",
    "withdraw_command",
]

_ARTIFACTS = artifacts_option(
    "The artifacts directory: its root.json is the trust root checked against."
)
_KEYS = click.option(
    "--key",
    "key_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Release private key (PKCS8 PEM); repeatable. Default: MEMRANK_SIGNING_KEY.",
)
_PLACE = (
    click.option("--track", required=True, help="The board track to publish on."),
    click.option("--division", required=True, type=click.Choice(["open-source", "commercial"])),
    click.option(
        "--results-store",
        type=click.Path(file_okay=False, path_type=Path),
        help="The results store directory for the result file (default: results/ of --artifacts).",
    ),
)


def _placed(command: Callable[..., None]) -> Callable[..., None]:
    """--track, --division and --results-store, shared by approve and supersede."""
    for option in reversed(_PLACE):
        command = option(command)
    return command


@click.command("review")
@_ARTIFACTS
def review_command(directory: Path) -> None:
    """List finished runs not yet approved: publishable, or every reason why not."""
    from memrank.runs.review import review_all

    reviews = review_all(_root(directory), directory / "root.json")
    if not reviews:
        click.echo("no finished runs waiting for review (`memrank runs ls` lists every run)")
    for reviewed in reviews:
        record = reviewed.record
        verdict = "publishable" if reviewed.publishable else "not publishable"
        click.echo(
            f"{record.id}  {record.target} × {record.evaluation}  track {reviewed.track}: {verdict}"
        )
        for reason in reviewed.reasons:
            click.echo(f"  - {reason}")


@click.command("approve")
@click.argument("run_id", metavar="ID")
@_placed
@_KEYS
@_ARTIFACTS
def approve_command(
    run_id: str,
    track: str,
    division: str,
    results_store: Path | None,
    key_files: tuple[Path, ...],
    directory: Path,
) -> None:
    """Sign run ID for TRACK and DIVISION into the artifacts directory, and record it.

    Refused (exit 3) before anything is written when the run is not publishable (see
    `memrank review`) or the key or track is not what the trust root admits.
    """
    from memrank.runs.registry import find

    record = find(run_id)
    if record.approved is not None:
        raise UsageError(
            f"run {record.id} is already approved as {record.approved}; "
            f"`memrank supersede {record.id}` corrects it"
        )
    _sign(record, track, division, results_store, _keys(key_files), directory, supersedes=None)


@click.command("supersede")
@click.argument("run_id", metavar="ID")
@_placed
@_KEYS
@_ARTIFACTS
def supersede_command(
    run_id: str,
    track: str,
    division: str,
    results_store: Path | None,
    key_files: tuple[Path, ...],
    directory: Path,
) -> None:
    """Sign approved run ID again (another track or division) as a correction of its artifact.

    The new artifact names the old one in `supersedes`; the board shows the new one instead.
    """
    from memrank.runs.registry import find

    record = find(run_id)
    if record.approved is None:
        raise UsageError(f"run {record.id} is not approved; `memrank approve {record.id}` it")
    keys = _keys(key_files)
    _sign(record, track, division, results_store, keys, directory, supersedes=record.approved)


@click.command("withdraw")
@click.argument("run_id", metavar="ID")
@click.option("--reason", required=True, help="Why, in one line: kept in the run's record.")
@_ARTIFACTS
def withdraw_command(run_id: str, reason: str, directory: Path) -> None:
    """Take run ID off the board: every envelope signed for it (the approval and each
    correction) leaves runs/ (git keeps their history)."""
    from memrank._basics import now_utc
    from memrank.runs.registry import find, save_record

    record = find(run_id)
    envelopes = _envelopes_of(record, directory)
    if not envelopes:
        if record.approved is None:
            raise UsageError(
                f"run {record.id} has no envelope in {directory / 'runs'}; there is nothing "
                "to withdraw (give the --artifacts it was approved into)"
            )
        raise UsageError(
            f"{directory / 'runs' / f'{record.approved}.json'}: not there; give the "
            "--artifacts it was approved into"
        )
    for envelope in envelopes:
        envelope.unlink()
    gone = ", ".join(envelope.stem for envelope in envelopes)
    note = f"withdrew {gone} at {now_utc():%Y-%m-%dT%H:%M:%SZ}: {reason}"
    save_record(record.model_copy(update={"approved": None, "envelopes": (), "approval": note}))
    for envelope in envelopes:
        click.echo(f"withdrawn:  {envelope.stem} ({envelope} removed)")
    click.echo("next:       memrank build-site, then commit artifacts/ and site/")


@click.command("upload-results")
@click.argument("store", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--repo",
    envvar="GITHUB_REPOSITORY",
    metavar="OWNER/NAME",
    help="The GitHub repository whose release is the results store. Default: GITHUB_REPOSITORY.",
)
@click.option("--tag", default="results", show_default=True, help="The release's tag.")
@artifacts_option("The artifacts directory whose results-store.json lists what the release holds.")
@click.option(
    "--api-url", default="https://api.github.com", show_default=True, help="GitHub's REST API."
)
@click.option(
    "--uploads-url",
    default="https://uploads.github.com",
    show_default=True,
    help="GitHub's host for uploading release assets.",
)
def upload_results_command(
    store: Path, repo: str | None, tag: str, directory: Path, api_url: str, uploads_url: str
) -> None:
    """Upload the result files in STORE to the GitHub release that is the results store.

    STORE is a results store folder (`memrank attest --results-store`): every file in it is
    checked first (named <sha256>.json, its bytes of that sha256), then uploaded to the release
    tagged --tag (made when there is none) unless the release holds it whole. A partial asset
    an upload left behind is deleted and the file uploaded again. Then results-store.json in
    the artifacts directory lists every result file the release holds. The token is the one in
    GITHUB_TOKEN. Exits 2 for a bad argument or a file that is not what its name says, 1 when
    GitHub refuses (a bad token, a repository it does not show, a rate limit past the wait) or
    an upload keeps failing.
    """
    import os

    from memrank._files import check_writable
    from memrank.artifacts._github_release import GitHubReleases
    from memrank.artifacts._store_upload import upload_results

    if not repo:
        raise UsageError("give the repository as --repo OWNER/NAME (or set GITHUB_REPOSITORY)")
    check_writable(directory, option="--artifacts", folder=True)
    token = os.environ.get("GITHUB_TOKEN", "")
    with GitHubReleases(repo, token, api_url=api_url, uploads_url=uploads_url) as releases:
        done = upload_results(store, directory, releases, tag=tag)
    made = " (made now)" if done.created else ""
    click.echo(f"release:    {repo} {tag}, id {done.release_id}{made}")
    for digest, outcome in done.outcomes.items():
        click.echo(f"{outcome + ':':<11} {digest}.json")
    for name in done.unlisted:
        click.echo(f"not listed: {name} (GitHub's digest of it is not its name; delete it)")
    click.echo(
        f"held:       {len(done.held)} result file(s), listed in {directory / 'results-store.json'}"
    )


def _envelopes_of(record: RunRecord, directory: Path) -> list[Path]:
    """Every envelope in ``directory/runs`` signed for the run: those its record names, and any
    other whose statement names the same signed run id (an approval recorded before the record
    listed every envelope, or one signed by hand)."""
    import orjson

    from memrank.artifacts import open_envelope
    from memrank.artifacts._statement import facts_of
    from memrank.runs.registry import RESULT, run_folder

    known = {*record.envelopes, *([record.approved] if record.approved else [])}
    try:
        signed_run = facts_of(orjson.loads((run_folder(record.id) / RESULT).read_bytes()))["run_id"]
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        signed_run = None
    found = []
    for path in sorted((directory / "runs").glob("*.json")):
        if path.stem in known:
            found.append(path)
            continue
        try:
            predicate = orjson.loads(open_envelope(path.read_bytes(), source=str(path)).payload)
            theirs = predicate["predicate"]["run_id"]
        except (MemrankError, OSError, orjson.JSONDecodeError, KeyError, TypeError):
            continue  # not an envelope of a run: the verifier says what it is
        if signed_run is not None and theirs == signed_run:
            found.append(path)
    return found


def _keys(key_files: tuple[Path, ...]) -> list[Ed25519PrivateKey]:
    from memrank.artifacts import signing_key

    return [signing_key(path) for path in key_files] or [signing_key(None)]


def _root(directory: Path) -> Root | None:
    from memrank.artifacts import load_trust

    root_file = directory / "root.json"
    return load_trust(root_file).root if root_file.is_file() else None


def _sign(
    record: RunRecord,
    track: str,
    division: str,
    results_store: Path | None,
    keys: list[Ed25519PrivateKey],
    directory: Path,
    *,
    supersedes: str | None,
) -> None:
    from memrank._basics import now_utc
    from memrank._files import check_writable
    from memrank.artifacts import attest, keyid_of
    from memrank.result import Result
    from memrank.runs.registry import RESULT, run_folder, save_record
    from memrank.runs.review import review

    check_signable(directory, keys, track)
    reviewed = review(record, _root(directory), directory / "root.json", track)
    suspect = next((r for r in reviewed.reasons if r.startswith("integrity: suspect")), None)
    if suspect is not None:
        raise SuspectRun(f"run {record.id} cannot be published: {suspect}")
    if not reviewed.publishable:
        raise AttestRefused(
            f"run {record.id} cannot be published on {track!r}: " + "; ".join(reviewed.reasons)
        )
    check_writable(directory, option="--artifacts", folder=True)
    attested = attest(
        Result.load(run_folder(record.id) / RESULT),
        track,
        division,
        keys,
        artifacts=directory,
        results_store=results_store,
        supersedes=supersedes,
    )
    signers = ", ".join(keyid_of(key.public_key())[:12] for key in keys)
    approval = f"{track}/{division} at {now_utc():%Y-%m-%dT%H:%M:%SZ} by key {signers}"
    envelopes = record.envelopes or ((record.approved,) if record.approved else ())
    update = {"approved": attested.artifact_id, "approval": approval}
    save_record(
        record.model_copy(update={**update, "envelopes": (*envelopes, attested.artifact_id)})
    )
    click.echo(f"approved:   {record.id} as {attested.artifact_id}")
    click.echo(f"envelope:   {attested.envelope}")
    click.echo(f"scores:     {attested.scores_file}")
    click.echo(f"result:     {attested.result_file}")
    click.echo("next:       memrank build-site, then commit artifacts/ and site/")
