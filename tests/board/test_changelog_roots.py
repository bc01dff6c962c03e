"""The changelog's trust-root history: each version the chain walk verified, with what it
changed, newest first, on the changes page and in the Atom feed; a tampered version is
refused and the build fails, so nothing unverified is ever shown."""

from __future__ import annotations

import base64
import json
import shutil
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from memrank.artifacts import (
    DatasetBaseline,
    Root,
    TrackPolicy,
    TrustedKey,
    canonical_bytes,
    keyid_of,
    load_trust,
    public_hex,
    read_root,
    sign_root,
    write_root,
)
from memrank.board.model import Board, RootVersion
from memrank.board.roots import root_history
from memrank.errors import RootMalformed, RootSignaturesUnmet, RootVersionSkipped
from memrank.provenance import Evidence
from tests.artifacts.conftest import LONG_AGO, NOW
from tests.board.conftest import built, keys, sign_artifacts, standard_runs
from tests.board.test_cli import build_site

ROTATED = NOW - timedelta(days=20)
"""When the keys version 2 adds become valid."""
RETIRES = NOW + timedelta(days=30)
"""When version 2 retires the first release key (after every run it signed)."""
JOINS = NOW - timedelta(days=10)
"""When the root key version 3 adds becomes valid: earlier than RETIRES."""
EVIL = "evil\u202e<b>track</b>"
"""A track name that would reverse the page's words and inject markup if shown raw."""
PIPELINE = "ab" * 32
ATOM = "{http://www.w3.org/2005/Atom}"


@dataclass(frozen=True)
class Chain:
    """An artifacts folder whose root has three versions, and the keys that made them."""

    artifacts: Path
    root1: Ed25519PrivateKey
    root2: Ed25519PrivateKey
    root3: Ed25519PrivateKey
    release1: Ed25519PrivateKey
    release2: Ed25519PrivateKey
    spare: Ed25519PrivateKey


def short(key: Ed25519PrivateKey) -> str:
    return keyid_of(key.public_key())[:16] + "…"


def moment(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S UTC")


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Chain:
    """Version 1 as the board's conftest signs it (notes runs only); version 2 rotates the root
    key, adds two release keys, retires the first and pins a demo bundle; version 3 adds a root
    key and raises the root threshold, revokes a release key, pins a pipeline, re-pins the demo
    bundle and adds a track with a hostile name. Every version is signed as the walk requires."""
    runs = [signed for signed in standard_runs() if signed.result.evaluation.name == "notes"]
    artifacts = sign_artifacts(tmp_path_factory.mktemp("roots") / "artifacts", runs)
    root1, release1 = keys()
    root2, root3, release2, spare = (Ed25519PrivateKey.generate() for _ in range(4))
    path = artifacts / "root.json"
    first = read_root(path)
    textual = first.tracks["textual"]
    second = (
        first.next(NOW + timedelta(days=200))
        .with_key("root", root2.public_key(), ROTATED)
        .without_key("root", keyid_of(root1.public_key()))
        .with_key("release", release2.public_key(), ROTATED)
        .with_key("release", spare.public_key(), ROTATED)
        .with_key_status(keyid_of(release1.public_key()), valid_until=RETIRES)
    )
    demo = DatasetBaseline(sha256="cd" * 32, question_counts={"single-hop": 3})
    second = second.model_copy(
        update={
            "tracks": {
                "textual": textual.model_copy(
                    update={"dataset_bundles": {**textual.dataset_bundles, "demo": demo}}
                )
            }
        }
    )
    write_root(path, sign_root(second, [root1, root2]))
    third = (
        second.next(second.expires)
        .with_key("root", root3.public_key(), JOINS)
        .with_threshold("root", 2)
        .with_key_status(keyid_of(spare.public_key()), revoked=True)
    )
    pinned = second.tracks["textual"]
    third = third.model_copy(
        update={
            "tracks": {
                "textual": pinned.model_copy(
                    update={
                        "pipelines": (*pinned.pipelines, PIPELINE),
                        "dataset_bundles": {
                            **pinned.dataset_bundles,
                            "demo": demo.model_copy(update={"sha256": "ef" * 32}),
                        },
                    }
                )
            }
        }
    ).accepting(EVIL, (Evidence.REPRODUCIBLE,))
    write_root(path, sign_root(third, [root2, root3]))
    return Chain(artifacts, root1, root2, root3, release1, release2, spare)


Built = tuple[Board, dict[str, bytes]]


@pytest.fixture(scope="module")
def made(chain: Chain) -> Built:
    return built(chain.artifacts)


def said(version: RootVersion) -> set[str]:
    return {"".join(words.text for words in line) for line in version.edits}


def test_the_chain_walked_is_the_one_the_board_lists(chain: Chain, made: Built) -> None:
    board, _ = made
    walked = load_trust(chain.artifacts / "root.json").chain
    assert [root.version for root in walked] == [1, 2, 3]
    assert walked[-1] == board.trust
    assert [v.version for v in board.roots] == [3, 2, 1]
    # The runs signed by the retired key inside its window still count.
    assert len(board.changes) == 3


def test_each_version_says_what_it_changed(chain: Chain, made: Built) -> None:
    third, second, first = made[0].roots
    pinned = read_root(chain.artifacts / "roots" / "1.json").tracks["textual"]
    assert said(first) == {
        f"the first version, expiring {moment(NOW + timedelta(days=365))}",
        f"root key {short(chain.root1)} added, valid from {moment(LONG_AGO)}, no end date",
        f"release key {short(chain.release1)} added, valid from {moment(LONG_AGO)}, no end date",
        "root threshold 1 of 1 key",
        "release threshold 1 of 1 key",
        "track textual added, accepting reproducible evidence, endpoint observation",
        *(f"track textual: pipeline {p[:16]}… pinned" for p in pinned.pipelines),
        f"track textual: dataset bundle of notes pinned: "
        f"{pinned.dataset_bundles['notes'].sha256[:16]}… (30 questions)",
    }
    assert said(second) == {
        f"expiry moved to {moment(NOW + timedelta(days=200))} "
        f"(was {moment(NOW + timedelta(days=365))})",
        f"root key {short(chain.root2)} added, valid from {moment(ROTATED)}, no end date",
        f"key {short(chain.root1)} leaves the root role (rotated out)",
        f"release key {short(chain.release2)} added, valid from {moment(ROTATED)}, no end date",
        f"release key {short(chain.spare)} added, valid from {moment(ROTATED)}, no end date",
        f"release key {short(chain.release1)} retired: valid from {moment(LONG_AGO)} "
        f"until {moment(RETIRES)}",
        f"track textual: dataset bundle of demo pinned: {'cd' * 8}… (3 questions)",
    }
    assert said(third) == {
        f"root key {short(chain.root3)} added, valid from {moment(JOINS)}, no end date",
        "root threshold 2 of 2 keys (was 1)",
        f"release key {short(chain.spare)} revoked: nothing it signed counts, whatever its dates",
        f"track textual: pipeline {'ab' * 8}… pinned",
        f"track textual: dataset bundle of demo re-pinned: {'ef' * 8}… (3 questions), "
        f"was {'cd' * 8}…",
        f"track {EVIL} added, accepting reproducible evidence",
    }
    # Key ids and track names are the root's text, marked so the page isolates them.
    assert {w.text for line in third.edits for w in line if w.signed} == {
        short(chain.root3),
        short(chain.spare),
        "textual",
        "demo",
        EVIL,
    }


def test_versions_are_dated_by_the_key_dates_they_sign_never_going_back(made: Built) -> None:
    third, second, first = made[0].roots
    assert (first.dated, first.dated_by) == (LONG_AGO, 1)
    assert (second.dated, second.dated_by) == (RETIRES, 2)  # the retirement, not ROTATED
    # Version 3's own key date (JOINS) is earlier than version 2's: it keeps version 2's.
    assert (third.dated, third.dated_by) == (RETIRES, 2)


def test_the_changes_page_lists_every_version_newest_first(made: Built) -> None:
    board, tree = made
    page = tree["changes/index.html"].decode()
    section = page[page.index('<h2 id="trust-root">') :]
    positions = [section.index(f'<li id="root-{n}">') for n in (3, 2, 1)]
    assert positions == sorted(positions)
    assert "A root version carries no date of issue" in section
    for version in board.roots:
        item = section[section.index(f'<li id="root-{version.version}">') :]
        item = item[: item.index("</ul>")]
        assert f"<strong>Version {version.version}</strong>" in item
        assert f'datetime="{version.dated:%Y-%m-%dT%H:%M:%SZ}"' in item
        assert item.count("<li>") == len(version.edits)
        carried = f"(from version {version.dated_by})"
        assert (carried in item) is (version.dated_by != version.version)
    # The hostile track name is shown, made visible, escaped and isolated; never obeyed.
    assert "track <bdi>evil⟨U+202E⟩&lt;b&gt;track&lt;/b&gt;</bdi> added" in section
    assert "\u202e" not in page and "<b>track" not in page


def test_the_feed_is_atom_with_every_version_and_run_newest_first(
    chain: Chain, made: Built
) -> None:
    board, tree = made
    feed = ElementTree.fromstring(tree["changes/feed.xml"])
    entries = feed.findall(f"{ATOM}entry")
    ids = [entry.findtext(f"{ATOM}id") or "" for entry in entries]
    base = "https://example.org/board/changes/index.html#root-"
    runs = [f"https://example.org/board/{c.path}#added" for c in board.changes]
    assert ids == [base + "3", base + "2", *runs, base + "1"]
    stamps = [entry.findtext(f"{ATOM}updated") or "" for entry in entries]
    assert stamps == sorted(stamps, reverse=True)
    assert feed.findtext(f"{ATOM}updated") == f"{RETIRES:%Y-%m-%dT%H:%M:%SZ}" == stamps[0]
    third = entries[0]
    assert third.findtext(f"{ATOM}title") == "trust root: version 3"
    assert third.find(f"{ATOM}link").get("href") == base + "3"  # type: ignore[union-attr]
    summary = third.findtext(f"{ATOM}summary") or ""
    assert "root threshold 2 of 2 keys (was 1)" in summary
    assert f"release key {short(chain.spare)} revoked" in summary
    assert "track evil⟨U+202E⟩<b>track</b> added" in summary and "\u202e" not in summary


# -- a tampered chain ---------------------------------------------------------------------------


def _edit_payload(raw: bytes, change: dict[str, object]) -> bytes:
    """The envelope with its payload changed (canonically) and its signatures kept."""
    envelope = json.loads(raw)
    payload = {**json.loads(base64.b64decode(envelope["payload"])), **change}
    envelope["payload"] = base64.b64encode(canonical_bytes(payload, what="test")).decode()
    return canonical_bytes(envelope, what="test")


def _edited(chain: Chain, file: Path) -> None:
    file.write_bytes(_edit_payload(file.read_bytes(), {"expires": "2099-01-01T00:00:00Z"}))


def _resigned(chain: Chain, file: Path) -> None:
    """A stranger signs a version 2 that hands the root role to itself."""
    stranger = Ed25519PrivateKey.generate()
    forged = (
        read_root(file)
        .with_key("root", stranger.public_key(), LONG_AGO)
        .without_key("root", keyid_of(chain.root1.public_key()))
        .without_key("root", keyid_of(chain.root2.public_key()))
    )
    file.write_bytes(sign_root(forged, [stranger]))


def _truncated(chain: Chain, file: Path) -> None:
    file.write_bytes(file.read_bytes()[:100])


def _removed(chain: Chain, file: Path) -> None:
    file.unlink()


@pytest.mark.parametrize(
    ("tamper", "refused", "reason"),
    [
        (_edited, RootSignaturesUnmet, "valid signatures from 0 of version 1's root keys"),
        (_resigned, RootSignaturesUnmet, "valid signatures from 0 of version 1's root keys"),
        (_truncated, RootMalformed, "not a DSSE envelope"),
        (_removed, RootVersionSkipped, "version 2 is missing"),
    ],
)
def test_a_tampered_version_fails_the_build_and_nothing_is_written(
    chain: Chain,
    tmp_path: Path,
    tamper: Callable[[Chain, Path], None],
    refused: type[Exception],
    reason: str,
) -> None:
    artifacts = Path(shutil.copytree(chain.artifacts, tmp_path / "artifacts"))
    tamper(chain, artifacts / "roots" / "2.json")
    with pytest.raises(refused, match=reason):
        built(artifacts)
    cli = build_site(artifacts, tmp_path / "site")
    assert cli.exit_code == 5 and reason in " ".join(cli.output.split())
    assert "Traceback" not in cli.output and not (tmp_path / "site").exists()


# -- every kind of change, on roots made in memory -----------------------------------------------


def test_every_kind_of_change_is_said() -> None:
    root_key, release_key, loose = (Ed25519PrivateKey.generate() for _ in range(3))
    policy = TrackPolicy(
        pipelines=("11" * 32, "22" * 32),
        dataset_bundles={
            "x": DatasetBaseline(sha256="33" * 32, question_counts={"a": 2}),
            "y": DatasetBaseline(sha256="44" * 32, question_counts={"a": 1}),
        },
    )
    first = Root.first(
        [root_key.public_key()],
        [release_key.public_key()],
        root_threshold=1,
        release_threshold=1,
        expires=NOW,
        valid_from=LONG_AGO,
    )
    loose_id = keyid_of(loose.public_key())
    first = first.model_copy(
        update={
            "keys": {
                **first.keys,
                loose_id: TrustedKey(public=public_hex(loose.public_key()), valid_from=ROTATED),
            },
            "tracks": {"t": policy, "gone": TrackPolicy()},
        }
    )
    same = first.next(NOW)
    release_id = keyid_of(release_key.public_key())
    moved = same.next(NOW).with_key("root", release_key.public_key(), LONG_AGO)
    moved = moved.model_copy(
        update={
            "keys": {
                k: v.model_copy(update={"valid_from": JOINS}) if k != release_id else v
                for k, v in moved.keys.items()
                if k != loose_id
            },
            "tracks": {
                "t": policy.model_copy(
                    update={
                        "pipelines": ("11" * 32,),
                        "dataset_bundles": {
                            "x": DatasetBaseline(sha256="33" * 32, question_counts={"a": 3})
                        },
                        "evidence": (Evidence.REPRODUCIBLE, Evidence.ENDPOINT),
                    }
                )
            },
        }
    )
    revoked = moved.next(NOW).with_key_status(release_id, revoked=True)
    reinstated = revoked.next(NOW).model_copy(update={"keys": moved.keys})
    history = root_history([first, same, moved, revoked, reinstated])
    assert [v.version for v in history] == [5, 4, 3, 2, 1]
    fifth, fourth, third, second, _ = history
    assert said(second) == {"nothing changed but the version number"}
    assert (second.dated, second.dated_by) == (ROTATED, 1)
    release, root, loose_short = short(release_key), short(root_key), short(loose)
    assert said(third) == {
        f"key {release} joins the root role",
        f"root key {root} window moved: valid from {moment(JOINS)}, no end date",
        f"key (in no role) {loose_short} no longer listed",
        "track gone removed: it admits no run",
        "track t accepts reproducible evidence, endpoint observation (was reproducible evidence)",
        f"track t: pipeline {'22' * 8}… unpinned",
        f"track t: dataset bundle of x question counts changed: {'33' * 8}… (3 questions)",
        "track t: dataset bundle of y unpinned",
    }
    assert (third.dated, third.dated_by) == (JOINS, 3)
    assert said(fourth) == {
        f"root and release key {release} revoked: nothing it signed counts, whatever its dates"
    }
    assert said(fifth) == {f"root and release key {release} active again"}
    # A walk that starts from an anchor lists the anchor in full, as the first it trusts.
    assert said(root_history([moved, revoked])[-1]) >= {
        f"the version the walk starts from, expiring {moment(NOW)}",
        f"root and release key {release} added, valid from {moment(LONG_AGO)}, no end date",
    }


def test_the_changelog_names_systems_by_their_display_names(standard: Path, tmp_path: Path) -> None:
    artifacts = Path(shutil.copytree(standard, tmp_path / "artifacts"))
    (artifacts / "systems.toml").write_text(
        '[systems.WordOverlapAdapter]\ndisplay_name = "Word overlap"\n'
    )
    board, tree = built(artifacts)
    lines = [change.text for change in board.changes]
    assert any(line.startswith("Word overlap (built into memrank") for line in lines)
    assert not any("WordOverlapAdapter" in line for line in lines)
    assert "Word overlap (built into memrank" in tree["changes/index.html"].decode()
