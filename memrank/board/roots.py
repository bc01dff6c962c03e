"""The trust root's history: what each verified version changed from the one before.

Read only off the chain ``load_trust`` walked and verified, never off a file it did not admit.
A root carries no date of issue, so a version is dated by the newest key date the chain signs
up to it (the ``valid_from`` of a key added, the ``valid_until`` of a key retired; ``memrank
trust update`` stamps both with the time of the update), and the versions are listed by
number. Nothing here reads a clock: the same chain gives the same history in every build.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memrank.artifacts import DatasetBaseline, KeyStatus, Root, TrackPolicy, TrustedKey
from memrank.board.record import RootVersion, Words

__all__ = ["root_history"]

_ROLES = ("root", "release")
_SHOWN = 16
"""Hex digits shown of a key id or a digest; trust.json has them whole."""

Line = tuple[Words, ...]


def root_history(chain: Sequence[Root]) -> tuple[RootVersion, ...]:
    """Each version of ``chain`` (oldest first, as walked) with its changes, newest first."""
    versions: list[RootVersion] = []
    before: Root | None = None
    dated: datetime | None = None
    dated_by = 0
    for root in chain:
        own = max(_stamps(before, root), default=None)
        # Never earlier than the version before, so the feed's order by date keeps the versions'.
        if own is not None and (dated is None or own > dated):
            dated, dated_by = own, root.version
        assert dated is not None  # the first version walked lists a key for each role
        versions.append(
            RootVersion(
                version=root.version,
                dated=dated,
                dated_by=dated_by,
                expires=root.expires,
                edits=_edits(before, root),
            )
        )
        before = root
    return tuple(reversed(versions))


def _stamps(before: Root | None, root: Root) -> list[datetime]:
    """The key dates ``root`` signs that ``before`` did not: each added key's ``valid_from``,
    and each ``valid_until`` it sets or moves."""
    found = []
    for keyid, key in root.keys.items():
        old = before.keys.get(keyid) if before else None
        if old is None or key.valid_from != old.valid_from:
            found.append(key.valid_from)
        if key.valid_until is not None and (old is None or key.valid_until != old.valid_until):
            found.append(key.valid_until)
    return found


def _edits(before: Root | None, root: Root) -> tuple[Line, ...]:
    if before is None:
        first = "the first version" if root.version == 1 else "the version the walk starts from"
        lines = [_plain(f"{first}, expiring {_moment(root.expires)}")]
    else:
        lines = []
        if root.expires != before.expires:
            moved = f"{_moment(root.expires)} (was {_moment(before.expires)})"
            lines.append(_plain(f"expiry moved to {moved}"))
    for keyid in sorted({*root.keys, *(before.keys if before else {})}):
        lines += _key_edits(keyid, before, root)
    for role in _ROLES:
        new = getattr(root.roles, role)
        old = getattr(before.roles, role) if before else None
        if old is None or new.threshold != old.threshold:
            was = f" (was {old.threshold})" if old else ""
            of = f"{new.threshold} of {_count(len(new.keyids))}"
            lines.append(_plain(f"{role} threshold {of}{was}"))
    for name in sorted({*root.tracks, *(before.tracks if before else {})}):
        lines += _track_edits(
            name, before.tracks.get(name) if before else None, root.tracks.get(name)
        )
    return tuple(lines) if lines else (_plain("nothing changed but the version number"),)


# -- keys ---------------------------------------------------------------------------------------


def _roles_of(root: Root | None, keyid: str) -> list[str]:
    return [r for r in _ROLES if root is not None and keyid in getattr(root.roles, r).keyids]


def _key(keyid: str, roles: list[str] | None, then: str) -> Line:
    """``<roles> key <id> <then>``; None leaves the roles unsaid. The key id is the root's
    text, so it is marked signed."""
    if roles is None:
        which = "key "
    else:
        which = " and ".join(roles) + " key " if roles else "key (in no role) "
    return (Words(text=which), Words(text=f"{keyid[:_SHOWN]}…", signed=True), Words(text=then))


def _window(key: TrustedKey) -> str:
    until = f" until {_moment(key.valid_until)}" if key.valid_until else ", no end date"
    return f"valid from {_moment(key.valid_from)}{until}"


def _key_edits(keyid: str, before: Root | None, root: Root) -> list[Line]:
    old = before.keys.get(keyid) if before else None
    new = root.keys.get(keyid)
    roles_then, roles_now = _roles_of(before, keyid), _roles_of(root, keyid)
    if new is None:
        return [_key(keyid, roles_then, " no longer listed")]
    revoked = new.status is KeyStatus.REVOKED
    if old is None:
        status = "; revoked" if revoked else ""
        return [_key(keyid, roles_now, f" added, {_window(new)}{status}")]
    lines = []
    shown = roles_now or roles_then
    for role in _ROLES:
        if role in roles_now and role not in roles_then:
            lines.append(_key(keyid, None, f" joins the {role} role"))
        if role in roles_then and role not in roles_now:
            lines.append(_key(keyid, None, f" leaves the {role} role (rotated out)"))
    if new.valid_from != old.valid_from or new.valid_until != old.valid_until:
        retired = new.valid_until is not None and old.valid_until is None
        lines.append(
            _key(keyid, shown, f" {'retired' if retired else 'window moved'}: {_window(new)}")
        )
    if new.status is not old.status:
        lines.append(
            _key(
                keyid,
                shown,
                " revoked: nothing it signed counts, whatever its dates"
                if revoked
                else f" {new.status.value} again",
            )
        )
    return lines


# -- tracks -------------------------------------------------------------------------------------


def _track(name: str, then: str) -> Line:
    return (Words(text="track "), Words(text=name, signed=True), Words(text=then))


def _evidence(policy: TrackPolicy) -> str:
    return ", ".join(e.value.replace("_", " ") for e in policy.evidence) or "no evidence class"


def _track_edits(name: str, old: TrackPolicy | None, new: TrackPolicy | None) -> list[Line]:
    if new is None:
        return [_track(name, " removed: it admits no run")]
    lines = []
    if old is None:
        lines.append(_track(name, f" added, accepting {_evidence(new)}"))
    elif new.evidence != old.evidence:
        lines.append(_track(name, f" accepts {_evidence(new)} (was {_evidence(old)})"))
    pipelines_then = old.pipelines if old else ()
    for pipeline in new.pipelines:
        if pipeline not in pipelines_then:
            lines.append(_track(name, f": pipeline {pipeline[:_SHOWN]}… pinned"))
    for pipeline in pipelines_then:
        if pipeline not in new.pipelines:
            lines.append(_track(name, f": pipeline {pipeline[:_SHOWN]}… unpinned"))
    bundles_then = old.dataset_bundles if old else {}
    for evaluation in sorted({*new.dataset_bundles, *bundles_then}):
        change = _bundle_change(bundles_then.get(evaluation), new.dataset_bundles.get(evaluation))
        if change:
            lines.append(
                (
                    *_track(name, ": dataset bundle of "),
                    Words(text=evaluation, signed=True),
                    Words(text=change),
                )
            )
    return lines


def _bundle_change(old: DatasetBaseline | None, new: DatasetBaseline | None) -> str:
    if new is None:
        return " unpinned"
    pinned = f"{new.sha256[:_SHOWN]}… ({sum(new.question_counts.values()):,} questions)"
    if old is None:
        return f" pinned: {pinned}"
    if new.sha256 != old.sha256:
        return f" re-pinned: {pinned}, was {old.sha256[:_SHOWN]}…"
    if new.question_counts != old.question_counts:
        return f" question counts changed: {pinned}"
    return ""


def _plain(text: str) -> Line:
    """A line of memrank's own words only."""
    return (Words(text=text),)


def _count(keys: int) -> str:
    return f"{keys} key" if keys == 1 else f"{keys} keys"


def _moment(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
