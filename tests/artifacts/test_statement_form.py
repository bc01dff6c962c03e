"""The statement is read as strictly as docs/artifacts.md writes it: every field present at
every level, timestamps spelled one way, a documented kind and transport, digests as hex, and
whole-run values only in the summary. Each is a SchemaRefused naming the field, and attest
never signs what verify would refuse."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

import memrank
from memrank.artifacts import verify
from memrank.errors import AttestRefused, SchemaRefused
from memrank.result import Result
from memrank.systems import WordOverlap

from .conftest import Attested, Store
from .test_verify import edited

Change = Callable[[dict[str, Any]], None]


def _predicate(change: Change) -> Change:
    return lambda statement: change(statement["predicate"])


def _offset(field: str, spelled: Callable[[str], str]) -> Change:
    return _predicate(lambda p: p.update({field: spelled(p[field])}))


CASES: dict[str, tuple[Change, str]] = {
    "declared_name null": (
        _predicate(lambda p: p["system"].update(declared_name=None)),
        "predicate.system.declared_name is null",
    ),
    "supersedes missing": (_predicate(lambda p: p.pop("supersedes")), "predicate.supersedes is"),
    "a system field missing": (
        _predicate(lambda p: p["system"].pop("components")),
        "predicate.system.components is missing",
    ),
    "a summary field missing": (
        _predicate(lambda p: p["summary"][1].pop("why")),
        r"predicate.summary\[1\].why is missing",
    ),
    "a bundle's files missing": (
        _predicate(lambda p: p["dataset_bundle"].pop("files")),
        "predicate.dataset_bundle.files is missing",
    ),
    "kind not documented": (
        _predicate(lambda p: p["system"].update(kind="oracle")),
        "predicate.system.kind is 'oracle', not one of memory, model",
    ),
    "transport not documented": (
        _predicate(lambda p: p["system"].update(transport="carrier-pigeon")),
        "predicate.system.transport is 'carrier-pigeon'",
    ),
    "an offset other than Z": (
        _offset("issued_at", lambda t: t.replace("Z", "+01:00")),
        "issued_at.*is not a timestamp as signed",
    ),
    "+00:00 for Z": (
        _offset("finished_at", lambda t: t.replace("Z", "+00:00")),
        "finished_at.*is not a timestamp as signed",
    ),
    "a space for T": (
        _offset("started_at", lambda t: t.replace("T", " ")),
        "started_at.*is not a timestamp as signed",
    ),
    "a lowercase z": (
        _offset("issued_at", lambda t: t.replace("Z", "z")),
        "issued_at.*is not a timestamp as signed",
    ),
    "three digits of fraction": (
        _offset("issued_at", lambda t: t[:19] + ".123Z"),
        "issued_at.*is not a timestamp as signed",
    ),
    "a summary value of a task": (
        _predicate(lambda p: p["summary"][0].update(task_id="q_job")),
        r"predicate.summary\[0\] \('.*'\) is of a task or a group",
    ),
    "a summary value of a group": (
        _predicate(lambda p: p["summary"][0].update(group="demo_alex")),
        r"predicate.summary\[0\] \('.*'\) is of a task or a group",
    ),
    "a code hash not hex": (
        _predicate(lambda p: p["pipeline"].update(code_sha256="X" * 64)),
        "predicate.pipeline.code_sha256 is 'XXX",
    ),
    "a bundle digest not hex": (
        _predicate(lambda p: p["dataset_bundle"].update(sha256="demo")),
        "predicate.dataset_bundle.sha256 is 'demo', not a sha256",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_verify_refuses_what_the_format_does_not_allow(
    store: Store, attested: Attested, case: str
) -> None:
    change, named = CASES[case]
    with pytest.raises(SchemaRefused, match=named):
        verify(store.forge(edited(attested, change)), store.trust)


@pytest.mark.parametrize(("fraction", "microsecond"), [("", 0), (".000042", 42)])
def test_the_signed_timestamp_spellings_are_read(
    store: Store, attested: Attested, fraction: str, microsecond: int
) -> None:
    def later(issued: str) -> str:  # a second on, so that it stays after finished_at
        moment = datetime.fromisoformat(issued) + timedelta(seconds=1)
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"

    change = _offset("issued_at", later)
    run = verify(store.forge(edited(attested, change)), store.trust)
    assert run.predicate.issued_at.microsecond == microsecond


class Unnamed(WordOverlap):
    """A system without a catalog name: its run cannot be made again by name."""

    name = None


def test_attest_refuses_a_run_verify_would_refuse(store: Store, wheel_run: Result) -> None:
    system = wheel_run.system.model_copy(update={"declared_name": None})
    with pytest.raises(AttestRefused, match="declared_name is null"):
        store.attest(wheel_run.model_copy(update={"system": system}))
    assert not list((store.directory / "runs").glob("*.json"))


def test_a_system_without_a_catalog_name_runs_but_is_not_signed(store: Store) -> None:
    result = memrank.run(Unnamed(), memrank.evaluation("demo"))
    assert result.system.declared_name is None  # a run of it is still a result
    with pytest.raises(AttestRefused):
        store.attest(result)
