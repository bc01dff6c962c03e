"""The shapes docs/artifacts.md gives a run statement and a trust root, as strict type checks
(standard library only): every field present, no other field, ``"2"`` is not an integer."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

Check = Callable[[Any], bool]

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z")


def timestamp(text: object) -> datetime | None:
    """An RFC 3339 UTC timestamp as the doc writes it, else None."""
    if not isinstance(text, str) or not TIMESTAMP.fullmatch(text):
        return None
    try:
        return datetime.fromisoformat(text[:-1]).replace(tzinfo=UTC)
    except ValueError:
        return None


def STR(x: Any) -> bool:
    return isinstance(x, str)


def INT(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def NUM(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def BOOL(x: Any) -> bool:
    return isinstance(x, bool)


def NULL(x: Any) -> bool:
    return x is None


def TS(x: Any) -> bool:
    return timestamp(x) is not None


def SHA(x: Any) -> bool:
    return isinstance(x, str) and re.fullmatch(r"[0-9a-f]{64}", x) is not None


def opt(check: Check) -> Check:
    return lambda x: x is None or check(x)


def one_of(*allowed: str) -> Check:
    return lambda x: isinstance(x, str) and x in allowed


def const(value: str) -> Check:
    return lambda x: x == value and isinstance(x, str)


def list_of(check: Check) -> Check:
    return lambda x: isinstance(x, list) and all(check(item) for item in x)


def map_of(check: Check) -> Check:
    return lambda x: isinstance(x, dict) and all(check(item) for item in x.values())


def obj(**fields: Check) -> Check:
    return lambda x: (
        isinstance(x, dict) and set(x) == set(fields) and all(c(x[k]) for k, c in fields.items())
    )


EVIDENCE = ("reproducible_evidence", "endpoint_observation", "development_observation")
DECIDERS = ("memrank", "rule", "model", "system")

SYSTEM = obj(
    name=STR,
    declared_name=STR,
    kind=one_of("memory", "model", "retriever", "assistant"),
    version=opt(STR),
    engine_version=opt(STR),
    declared_version=opt(STR),
    transport=one_of("in-process", "http"),
    components=map_of(STR),
    options=map_of(STR),
)
EVALUATION = obj(
    name=STR,
    version=STR,
    task_count=INT,
    clearing=one_of("per-group", "per-task", "at-end"),
    track=STR,
    k=INT,
    measures=list_of(STR),
    slice=opt(STR),
    budget=opt(
        obj(
            unit=one_of("words", "tokens", "uncapped"),
            limit=opt(INT),
            tokenizer=opt(STR),
            why=STR,
        )
    ),
    binary=opt(list_of(STR)),
)
DATASET_BUNDLE = obj(
    sha256=SHA, files=list_of(obj(name=STR, sha256=SHA, size=INT)), question_counts=map_of(INT)
)
PIPELINE = obj(
    memrank_version=STR,
    code_sha256=SHA,
    install=one_of("wheel", "editable", "source"),
    git_commit=opt(STR),
    dirty=opt(BOOL),
    wheel_sha256=opt(STR),
    python=opt(STR),
    platform=opt(STR),
    distributions=list_of(STR),
)
ENVIRONMENT = obj(python=STR, platform=STR, cpus=opt(INT))
VALUE = obj(
    measure=STR,
    decider=one_of(*DECIDERS),
    task_id=NULL,
    group=NULL,
    value=opt(NUM),
    why=STR,
    count=opt(INT),
    total=opt(INT),
)
PREDICATE = obj(
    run_id=STR,
    track=STR,
    division=one_of("open-source", "commercial"),
    evidence=one_of(*EVIDENCE),
    publishable=BOOL,
    system=SYSTEM,
    evaluation=EVALUATION,
    dataset_bundle=DATASET_BUNDLE,
    pipeline=PIPELINE,
    environment=ENVIRONMENT,
    started_at=TS,
    finished_at=TS,
    issued_at=TS,
    summary=list_of(VALUE),
    supersedes=opt(SHA),
)
SUBJECT = obj(name=STR, digest=obj(sha256=SHA))
STATEMENT = obj(
    _type=const("https://in-toto.io/Statement/v1"),
    subject=list_of(SUBJECT),
    predicateType=const("https://memrank.dev/run/v2"),
    predicate=PREDICATE,
)

ROLE = obj(keyids=list_of(SHA), threshold=INT)
KEY = obj(
    public=lambda x: isinstance(x, str) and re.fullmatch(r"[0-9a-f]{64}", x) is not None,
    valid_from=TS,
    valid_until=opt(TS),
    status=one_of("active", "revoked"),
)
TRACK = obj(
    pipelines=list_of(SHA),
    dataset_bundles=map_of(obj(sha256=SHA, question_counts=map_of(INT))),
    evidence=list_of(one_of(*EVIDENCE)),
)
ROOT = obj(
    _type=const("https://memrank.dev/root/v1"),
    version=INT,
    expires=TS,
    roles=obj(root=ROLE, release=ROLE),
    keys=map_of(KEY),
    tracks=map_of(TRACK),
)


def evidence_of(pipeline: dict[str, Any], system: dict[str, Any]) -> str:
    if pipeline["install"] != "wheel":
        return "development_observation"
    if system["transport"] == "in-process":
        return "reproducible_evidence"
    return "endpoint_observation"


def committed(pipeline: dict[str, Any]) -> bool:
    return isinstance(pipeline["git_commit"], str) and pipeline["dirty"] is False


def statement_problem(statement: Any) -> str | None:
    """Why a canonical payload is not a run statement (None: it is one)."""
    if not STATEMENT(statement):
        return "not the statement's fields and types"
    subjects = statement["subject"]
    if len(subjects) != 3:
        return "not exactly three subjects"
    for subject, folder in zip(subjects, ("scores", "results", "timings"), strict=True):
        if subject["name"] != f"{folder}/{subject['digest']['sha256']}.json":
            return f"a subject is not {folder}/<digest>.json"
    predicate = statement["predicate"]
    for value in predicate["summary"]:
        problem = value_problem(value)
        if problem:
            return problem
    evidence = evidence_of(predicate["pipeline"], predicate["system"])
    if predicate["evidence"] != evidence:
        return f"evidence is not {evidence}"
    publishable = (
        evidence != "development_observation"
        and predicate["evaluation"]["slice"] is None
        and committed(predicate["pipeline"])
    )
    if predicate["publishable"] is not publishable:
        return f"publishable is not {publishable}"
    started, finished, issued = (
        timestamp(predicate[k]) for k in ("started_at", "finished_at", "issued_at")
    )
    if not (started <= finished <= issued):  # type: ignore[operator]
        return "not started_at <= finished_at <= issued_at"
    return None


def value_problem(value: dict[str, Any]) -> str | None:
    """A null carries its reason; a share carries both counts, and is count / total."""
    if value["value"] is None and not value["why"].strip():
        return f"a null {value['measure']} without a reason"
    count, total = value["count"], value["total"]
    if count is None and total is None:
        return None
    if count is None or total is None or not 0 <= count <= total or total < 1:
        return f"{value['measure']}: count and total are not a share's"
    if value["value"] != count / total:
        return f"{value['measure']} is not count / total"
    return None


def root_problem(root: Any) -> str | None:
    """Why a canonical root payload is not a trust root (None: it is one)."""
    if not ROOT(root) or root["version"] < 1:
        return "not the trust root's fields and types"
    for keyid, key in root["keys"].items():
        if hashlib.sha256(bytes.fromhex(key["public"])).hexdigest() != keyid:
            return f"key {keyid[:16]} is not named by its sha256"
    for role in root["roles"].values():
        ids = role["keyids"]
        if len(set(ids)) != len(ids) or not 1 <= role["threshold"] <= len(ids):
            return "a role's keyids repeat or its threshold is out of range"
        if any(k not in root["keys"] for k in ids):
            return "a role lists a key that keys does not hold"
    return None
