"""The scores file: a second, minimal implementation written from docs/artifacts.md alone must
produce memrank's bytes exactly, and read_scores refuses what scores_of could not have written."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson
import pytest

import memrank
from memrank.artifacts import Scores, read_scores, run_files, scores_of
from memrank.artifacts._scores import gives_scores
from memrank.errors import NonCanonicalPayload, ResultFileError, ScoresMalformed
from memrank.systems import WordOverlap

from .second_verifier_files import ABSENT
from .second_verifier_files import scores_of as independent_scores

# The second implementation, standard library only, from the spec's words, lives with the
# second verifier: second_verifier_files.scores_of.

# -- results to derive from ------------------------------------------------------------------


def crafted_result() -> bytes:
    """A result file's fields scores read, with every corner the spec names: a retried task,
    a share, a null, a value never produced, odd numbers, keys beyond the BMP, a group value."""

    def trace(task_id: str, group: str | None, category: str | None) -> dict[str, Any]:
        return {"task": {"id": task_id, "group": group, "category": category}}

    def value(measure: str, task: str | None, number: float | None, **extra: Any) -> dict:
        return {
            "measure": measure,
            "decider": extra.pop("decider", "rule"),
            "task_id": task,
            "group": extra.pop("group", None),
            "value": number,
            "why": extra.pop("why", "decided"),
            "count": extra.pop("count", None),
            "total": extra.pop("total", None),
        }

    result = {
        "schema": "memrank.result/v2",
        "evaluation": {"name": "craft", "version": "craft@v1"},
        "traces": [
            trace('b"2', "g1", "x"),
            trace("a\u00e91", None, None),
            trace('b"2', "g1", "x"),
            trace("c\U0001f600", "g2", "\u2028"),
        ],
        "values": [
            value("m\U0001f600", "a\u00e91", 1e21),
            value("m\uffff", "a\u00e91", 1e-7),
            value("share", 'b"2', 0.5, count=1, total=2),
            value("share", "c\U0001f600", None, why="could not\n\tdecide \u0007"),
            value("frac", 'b"2', 1 / 3),
            value("frac", "a\u00e91", 123456789.125),
            value("frac", "c\U0001f600", -0.0),
            value("frac", None, 0.5, group="g1"),
            value("frac", None, 0.25),
            value("latency", 'b"2', 12.0, decider="memrank"),
        ],
    }
    return json.dumps(result).encode()


def test_independent_implementation_gives_the_same_bytes_on_crafted_corners() -> None:
    raw = crafted_result()
    assert scores_of(raw) == independent_scores(raw)
    scores = read_scores(scores_of(raw), source="crafted")
    assert scores.task_ids == ['b"2', "a\u00e91", "c\U0001f600"]
    assert scores.groups == ["g1", None, "g2"]
    share = scores.measures["share"]
    assert share.count == [1, None, None] and share.total == [2, None, None]
    assert share.why == {1: ABSENT, 2: "could not\n\tdecide \u0007"}
    assert scores.measures["frac"].values == [1 / 3, 123456789.125, 0.0]
    assert scores.measures["latency"].decider == "memrank"
    assert scores.measures["frac"].count is None


def test_independent_implementation_gives_the_same_bytes_on_a_real_run(
    locomo_result: bytes,
) -> None:
    made = scores_of(locomo_result)
    assert made == independent_scores(locomo_result)
    scores = read_scores(made, source="smoke")
    assert scores.result_sha256 == hashlib.sha256(locomo_result).hexdigest()
    assert scores.evaluation.name == "locomo"
    # Absent is not zero: every null of the real run carries the why the result gave it.
    values = json.loads(locomo_result)["values"]
    nulls = [v for v in values if v["task_id"] is not None and v["value"] is None]
    assert nulls
    for value in nulls:
        column = scores.measures[value["measure"]]
        assert column.why[scores.task_ids.index(value["task_id"])] == value["why"]


def test_a_known_good_file_reads_as_a_checked_one(locomo_result: bytes) -> None:
    # A rebuild parses known-good bytes without the checks, each tasks object once for every
    # file that carries the same one: what it reads must be what the checked read gives, with
    # a measure named "tasks" before the tasks field, a task id spelling the tasks key, and a
    # second file whose task list has the same length and ends but another middle.
    def renamed(task: str) -> bytes:
        data = json.loads(crafted_result())
        data["values"][0]["measure"] = "tasks"
        # tasks enough that the two files' tasks objects differ only far from both ends
        data["traces"] += [
            {"task": {"id": f"pad{n}", "group": None, "category": None}} for n in range(20)
        ]
        for entry in (*data["values"], *(trace["task"] for trace in data["traces"])):
            key = "task_id" if "task_id" in entry else "id"
            entry[key] = task if entry[key] == "a\u00e91" else entry[key]
        return scores_of(json.dumps(data).encode())

    files = [renamed(',"tasks":{"id":'), renamed(',"tasks":{"id";'), scores_of(locomo_result)]
    for raw in [*files, *files]:  # the second time, every tasks object is one read before
        assert read_scores(raw, source="x", known_good=True) == read_scores(raw, source="x")
    first, second = (read_scores(raw, source="x", known_good=True) for raw in files[:2])
    assert "tasks" in first.measures and first.task_ids != second.task_ids


def test_runs_of_one_evaluation_share_their_task_lists(locomo_result: bytes) -> None:
    # A board holds thousands of runs' scores at once, in memory and pickled back from the
    # verifying workers: the runs of an evaluation hold one list of task ids, groups and
    # categories, not a copy each (validating a list copies it).
    raw = scores_of(locomo_result)
    for known_good in (False, True):
        first, second = (read_scores(raw, source="x", known_good=known_good) for _ in range(2))
        assert first == second
        assert first.task_ids is second.task_ids
        assert first.groups is second.groups
        assert first.categories is second.categories
        # and a column's repeated numbers are one float each (a board holds millions)
        for column in first.measures.values():
            assert len({id(v) for v in column.values}) == len(set(column.values))


def test_gives_scores_is_comparing_with_scores_of(demo: memrank.Evaluation) -> None:
    # Verification compares without walking the derived numbers again when orjson already
    # writes the canonical bytes (the demo), and falls back to scores_of when it does not
    # (keys beyond U+FFFF, numbers RFC 8785 prints its own way: the crafted corners).
    demo_raw = run_files(memrank.run(WordOverlap(), demo).to_bytes()).result
    for raw in (demo_raw, crafted_result()):
        scores = scores_of(raw)
        assert gives_scores(raw, orjson.loads(raw), scores)
        assert not gives_scores(raw, orjson.loads(raw), scores.replace(b'"rule"', b'"model"'))


def test_a_result_whose_scores_canonical_json_cannot_carry_is_a_result_file_error() -> None:
    # 1e16 is integral yet beyond 2^53: no scores file carries it, and verifying a result
    # file holding it (signed by a hostile signer) refuses it rather than raising past verify.
    data = json.loads(crafted_result())
    data["values"][4]["value"] = 1e16
    raw = json.dumps(data).encode()
    with pytest.raises(ResultFileError, match="cannot derive scores: the scores file cannot"):
        gives_scores(raw, orjson.loads(raw), b"{}")


def test_demo_run_scores_read_back(demo: memrank.Evaluation) -> None:
    raw = run_files(memrank.run(WordOverlap(), demo).to_bytes()).result
    scores = read_scores(scores_of(raw), source="demo")
    assert isinstance(scores, Scores)
    assert scores.measures["word-match"].values == [1.0, 1.0, 1.0, 0.0, 1.0]
    assert "demo-score" not in scores.measures  # group-scope values stay in the result file


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda d: d["values"].append({**d["values"][0], "task_id": "ghost"}), "no trace"),
        (lambda d: d["values"].append(d["values"][4]), "two values"),
        (
            lambda d: d["values"].append(
                {**d["values"][4], "task_id": "a\u00e91", "decider": "model"}
            ),
            "decided by both",
        ),
        (lambda d: d.update(schema="memrank.result/v0"), "schema"),
    ],
)
def test_a_result_that_cannot_be_laid_out_is_refused(edit, reason: str) -> None:
    data = json.loads(crafted_result())
    edit(data)
    with pytest.raises(ResultFileError, match=reason):
        scores_of(json.dumps(data).encode())


def _rewrite(raw: bytes, edit) -> bytes:
    from memrank.artifacts import canonical_bytes

    data = json.loads(raw)
    edit(data)
    return canonical_bytes(data)


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda d: d["tasks"]["id"].pop(), "one entry per task"),
        (lambda d: d["measures"]["share"]["why"].pop(), "exactly where a value is null"),
        (lambda d: d["measures"]["share"].update(total=None), "count and total"),
        (lambda d: d["measures"]["share"]["why"].reverse(), "ordered by their first task"),
        (lambda d: d.update(extra=1), "unexpected fields"),
        (lambda d: d["measures"]["frac"]["values"].__setitem__(0, "1"), "valid number"),
    ],
)
def test_read_scores_refuses_a_file_scores_of_could_not_write(edit, reason: str) -> None:
    raw = _rewrite(scores_of(crafted_result()), edit)
    with pytest.raises(ScoresMalformed, match=reason):
        read_scores(raw, source="scores/x.json")


def test_read_scores_refuses_non_canonical_bytes() -> None:
    raw = scores_of(crafted_result())
    with pytest.raises(NonCanonicalPayload):
        read_scores(raw + b"\n", source="scores/x.json")


def test_a_file_whose_tasks_were_read_before_is_still_checked_whole(
    locomo_result: bytes,
) -> None:
    # The tasks object of a file that passed every check is not parsed again for the next
    # file that carries its bytes; the rest of that file is, and it must read as a whole parse
    # reads it, and be refused as a whole parse refuses it.
    raw = scores_of(locomo_result)
    first = read_scores(raw, source="x")
    assert read_scores(raw, source="x") == first
    at = raw.rindex(b',"tasks":')
    others, tasks = raw[:at], raw[at:]
    refused = {
        others.replace(b'"schema":', b' "schema":') + tasks: NonCanonicalPayload,
        others + b',"extra":1' + tasks: NonCanonicalPayload,  # a field out of order
        others + b',"zz":1' + tasks: NonCanonicalPayload,  # one that sorts after the tasks
        b'{"a":1,' + raw[1:]: ScoresMalformed,  # canonical, but a field too many
        raw[:-1] + b',"zz":1}': ScoresMalformed,  # after the tasks object
        others.replace(b'"schema":"memrank.scores/v1"', b'"schema":"memrank.scores/v0"')
        + tasks: ScoresMalformed,
    }
    for bytes_, refusal in refused.items():
        with pytest.raises(refusal):
            read_scores(bytes_, source="scores/x.json")
    column = orjson.loads(raw)["measures"]
    name = next(iter(column))
    renamed = orjson.loads(raw)
    renamed["measures"] = {"another": column[name]}
    again = read_scores(orjson.dumps(renamed, option=orjson.OPT_SORT_KEYS), source="x")
    assert again.measures["another"] == first.measures[name]
    assert again.task_ids is first.task_ids


def test_a_known_good_read_does_not_vouch_for_a_checked_one(locomo_result: bytes) -> None:
    # A build's memo says which files passed before; what it lets a rebuild skip for those
    # files must not let another file's tasks object skip its canonical check.
    raw = scores_of(locomo_result)
    spaced = raw.replace(b',"tasks":{"category":', b',"tasks":{"category": ')
    assert read_scores(spaced, source="x", known_good=True).task_ids
    with pytest.raises(NonCanonicalPayload):
        read_scores(spaced, source="scores/x.json")
