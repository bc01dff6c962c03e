"""memrank trust: create the trust root, sign its next version, and show the one in force; and
memrank keys: make an Ed25519 signing key pair, and name a public key by its keyid."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar, cast

import click

from memrank.errors import UsageError

if TYPE_CHECKING:
    from memrank.artifacts import Root, TrustRoot

__all__ = ["keys_group", "trust_group"]

FC = TypeVar("FC", bound=Callable[..., object])

_DATE = click.DateTime(formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"])
_FILE = click.Path(dir_okay=False, path_type=Path)
_ROLE = click.Choice(["root", "release"])
"""The two roles of the trust root, as --add-key, --remove-key and --threshold name them."""
_ROOT_OPTION = click.option(
    "--root",
    "root_file",
    default=Path("artifacts/root.json"),
    show_default=True,
    type=_FILE,
    help="The trust root file; earlier versions are kept in roots/ beside it.",
)
_SIGN_OPTION = click.option(
    "--sign",
    "signing_files",
    multiple=True,
    required=True,
    type=_FILE,
    help="A root private key to sign with; repeat until every threshold is met.",
)
_EXPIRES_HELP = "When this version expires (UTC, YYYY-MM-DD[THH:MM:SS])"


def _role_keys_option(role: str, signs: str) -> Callable[[FC], FC]:
    """``--<role>-key``: the public keys of one role, at least one, repeatable."""
    return click.option(
        f"--{role}-key",
        f"{role}_keys",
        multiple=True,
        required=True,
        type=_FILE,
        help=f"Public key of the {role} role (signs {signs}); repeatable.",
    )


@click.group("trust")
def trust_group() -> None:
    """Create and rotate the trust root (root.json): who may sign runs, and what is pinned."""


@trust_group.command("init")
@_ROOT_OPTION
@_role_keys_option("root", signs="root.json")
@_role_keys_option("release", signs="runs")
@click.option("--root-threshold", default=1, show_default=True, type=click.IntRange(min=1))
@click.option("--release-threshold", default=1, show_default=True, type=click.IntRange(min=1))
@click.option("--expires", type=_DATE, help=_EXPIRES_HELP + "; default a year from now.")
@_SIGN_OPTION
def init_command(
    root_file: Path,
    root_keys: tuple[Path, ...],
    release_keys: tuple[Path, ...],
    root_threshold: int,
    release_threshold: int,
    expires: datetime | None,
    signing_files: tuple[Path, ...],
) -> None:
    """Create version 1 of the trust root, signed by the root keys."""
    from pydantic import ValidationError

    from memrank._basics import now_utc
    from memrank._files import check_writable
    from memrank.artifacts import Root, load_public_key

    if root_file.exists():
        raise UsageError(f"{root_file} already exists; use `memrank trust update` to rotate it")
    check_writable(root_file, option="--root")
    now = now_utc()
    try:
        root = Root.first(
            [load_public_key(p) for p in root_keys],
            [load_public_key(p) for p in release_keys],
            root_threshold=root_threshold,
            release_threshold=release_threshold,
            expires=_utc(expires) if expires else now + timedelta(days=365),
            valid_from=now,
        )
    except ValidationError as exc:
        raise UsageError(f"cannot make that root: {exc.errors()[0]['msg']}") from None
    _write(root_file, root, signing_files)


@trust_group.command("update")
@_ROOT_OPTION
@click.option("--expires", type=_DATE, help=_EXPIRES_HELP + "; default unchanged.")
@click.option(
    "--add-key",
    "added",
    multiple=True,
    type=(_ROLE, _FILE),
    metavar="ROLE PUBLIC.pem",
    help="Add a key to a role, valid from now; repeatable.",
)
@click.option(
    "--remove-key",
    "removed",
    multiple=True,
    type=(_ROLE, str),
    metavar="ROLE KEYID",
    help="Take a key out of a role (rotate a root key out); repeatable.",
)
@click.option(
    "--retire",
    multiple=True,
    metavar="KEYID",
    help="End a key's window now; runs it signed before still count. Repeatable.",
)
@click.option(
    "--revoke",
    multiple=True,
    metavar="KEYID",
    help="Revoke a key: nothing it signed counts, whatever the date. Repeatable.",
)
@click.option(
    "--threshold",
    "thresholds",
    multiple=True,
    type=(_ROLE, click.IntRange(min=1)),
    metavar="ROLE N",
    help="Set a role's threshold.",
)
@click.option(
    "--pin",
    "pinned",
    multiple=True,
    type=(str, _FILE),
    metavar="TRACK RESULT",
    help="Admit RESULT's pipeline hash and dataset bundle (with question counts) to TRACK.",
)
@click.option(
    "--accept",
    "accepted",
    multiple=True,
    type=(str, click.Choice(["reproducible_evidence", "endpoint_observation"])),
    metavar="TRACK EVIDENCE",
    help="An evidence class TRACK accepts; repeat for each (replaces the track's list).",
)
@_SIGN_OPTION
def update_command(
    root_file: Path,
    expires: datetime | None,
    added: tuple[tuple[str, Path], ...],
    removed: tuple[tuple[str, str], ...],
    retire: tuple[str, ...],
    revoke: tuple[str, ...],
    thresholds: tuple[tuple[str, int], ...],
    pinned: tuple[tuple[str, Path], ...],
    accepted: tuple[tuple[str, str], ...],
    signing_files: tuple[Path, ...],
) -> None:
    """Sign the next version of the trust root with the changes given.

    The new version must be signed by a threshold of the current root keys and a threshold of
    its own; the current version moves to roots/<version>.json.
    """
    from memrank._basics import now_utc
    from memrank.artifacts import load_public_key, read_root
    from memrank.provenance import Evidence
    from memrank.result import Result

    now = now_utc()
    current = read_root(root_file)
    root = current.next(_utc(expires) if expires else current.expires)
    for role, public in added:
        root = root.with_key(_role(role), load_public_key(public), now)
    for role, keyid in removed:
        root = root.without_key(_role(role), _known(root, keyid))
    for keyid in retire:
        root = root.with_key_status(_known(root, keyid), valid_until=now)
    for keyid in revoke:
        root = root.with_key_status(_known(root, keyid), revoked=True)
    for role, threshold in thresholds:
        root = root.with_threshold(_role(role), threshold)
    for track, result_file in pinned:
        result = Result.load(result_file)
        if result.provenance is None:
            raise UsageError(f"{result_file}: records no provenance; pin a fresh run")
        root = root.pinning(track, result)
    for track in dict.fromkeys(track for track, _ in accepted):
        root = root.accepting(track, tuple(Evidence(e) for t, e in accepted if t == track))
    _write(root_file, root, signing_files)


@trust_group.command("show")
@_ROOT_OPTION
def show_command(root_file: Path) -> None:
    """Verify the trust root's chain and print the version in force."""
    from memrank.artifacts import load_trust

    _show(load_trust(root_file))


@click.group("keys")
def keys_group() -> None:
    """Make and identify Ed25519 signing keys (PKCS8 PEM files)."""


@keys_group.command("generate")
@click.option(
    "--out",
    "directory",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to write NAME.pem (private, mode 0600) and NAME.pub.pem into.",
)
@click.option(
    "--name",
    default="signing",
    show_default=True,
    help="File name stem of the pair: letters, digits, -, _ and . (not . first).",
)
def generate_command(directory: Path, name: str) -> None:
    """Write a new key pair and print its keyid. Keep the private key out of the repository."""
    from memrank._files import check_writable
    from memrank.artifacts import generate_key_files

    check_writable(directory, option="--out", folder=True)
    private, public, keyid = generate_key_files(directory, name)
    click.echo(f"private:    {private}")
    click.echo(f"public:     {public}")
    click.echo(f"keyid:      {keyid}")


@keys_group.command("id")
@click.argument("public_key", metavar="PUBLIC.pem", type=click.Path(path_type=Path))
def id_command(public_key: Path) -> None:
    """Print the keyid of PUBLIC.pem: sha256 of the raw 32-byte Ed25519 public key."""
    from memrank.artifacts import keyid_of, load_public_key

    click.echo(keyid_of(load_public_key(public_key)))


def _write(root_file: Path, root: Root, signing_files: tuple[Path, ...]) -> None:
    from memrank.artifacts import load_private_key, sign_root, write_root

    keys = [load_private_key(path) for path in signing_files]
    _show(write_root(root_file, sign_root(root, keys)))


def _show(trust: TrustRoot) -> None:
    root = trust.root
    click.echo(f"root:       {trust.path} version {root.version}, expires {root.expires:%Y-%m-%d}")
    click.echo(f"chain:      {' -> '.join(map(str, trust.versions))}")
    for name in ("root", "release"):
        role = getattr(root.roles, name)
        click.echo(f"{name + ':':<11} {role.threshold} of {len(role.keyids)} key(s)")
        for keyid in role.keyids:
            key = root.keys[keyid]
            until = f" until {key.valid_until:%Y-%m-%d}" if key.valid_until else ""
            click.echo(f"  {keyid}  {key.status.value}, from {key.valid_from:%Y-%m-%d}{until}")
    for track, policy in sorted(root.tracks.items()):
        click.echo(f"track:      {track} accepts {', '.join(e.value for e in policy.evidence)}")
        for pipeline in policy.pipelines:
            click.echo(f"  pipeline {pipeline}")
        for evaluation, bundle in sorted(policy.dataset_bundles.items()):
            counts = sum(bundle.question_counts.values())
            click.echo(f"  dataset  {bundle.sha256}  {evaluation} ({counts} questions)")


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _role(name: str) -> Literal["root", "release"]:
    return cast(Literal["root", "release"], name)


def _known(root: Root, keyid: str) -> str:
    if keyid not in root.keys:
        raise UsageError(f"no key {keyid!r} in the trust root; `memrank trust show` lists them")
    return keyid
