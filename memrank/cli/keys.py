"""memrank keys: make an Ed25519 signing key pair, and name a public key by its keyid."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["keys_group"]


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
