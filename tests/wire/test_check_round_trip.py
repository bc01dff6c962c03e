"""memrank check tells Add-then-Search round trips apart: a server that stores only every
other message of each Add fails round-trip (and only it), and `memrank check` exits 1 on it;
the breaches a run would count in any Search answer fail quiet-breaches (and integrity, for the made-up items)."""

from __future__ import annotations

from collections.abc import Mapping

import orjson
from click.testing import CliRunner

from memrank.cli import main
from memrank.systems import WordOverlap
from memrank.systems.http.aml import AmlEndpoints
from memrank.wire._service import Answer, ContractService
from memrank.wire.check import check
from memrank.wire.serve import serving
from tests.systems.http.hostile import HalfKeeping


def _outcomes(service: ContractService) -> dict[str, tuple[bool, str]]:
    with serving(service) as url:
        return {o.name: (o.passed, o.evidence) for o in check(AmlEndpoints.of(url), timeout=10)}


def test_a_server_keeping_every_other_message_fails_round_trip_alone() -> None:
    outcomes = _outcomes(HalfKeeping(WordOverlap))
    assert [name for name, (passed, _) in outcomes.items() if not passed] == ["round-trip"]
    evidence = outcomes["round-trip"][1]
    # the first of each Add is kept: of Adds of 1, 3 and 4 messages, 1 + 2 + 2 come back
    assert evidence.startswith("3 of 8 messages told in three Adds (of 1, 3 and 4 messages)")


def test_memrank_check_exits_1_on_it() -> None:
    with serving(HalfKeeping(WordOverlap)) as url:
        outcome = CliRunner().invoke(main, ["check", url])
    assert outcome.exit_code == 1, outcome.output
    assert "FAIL  round-trip" in outcome.output and "round-trip" in outcome.output.splitlines()[-1]


class Breaching(ContractService):
    """Answers every Search with a NaN score on its best item, a repeat of its id and an
    item with empty content (as many as top_k allows), the rest as the service answers."""

    def search(self, body: bytes, headers: Mapping[str, str]) -> Answer:
        answer = super().search(body, headers)
        found = orjson.loads(answer.body).get("data") if answer.status == 200 else None
        if not found:
            return answer
        best = {**found[0], "score": "NaN-here"}
        items = [best, {**found[0], "content": "again"}, {"id": "e", "content": ""}]
        items = items[: orjson.loads(body)["top_k"]]
        return Answer(200, orjson.dumps({"data": items}).replace(b'"NaN-here"', b"NaN"))


def test_breaches_in_search_answers_fail_quiet_breaches_alone_naming_them() -> None:
    outcomes = _outcomes(Breaching(WordOverlap))
    # its made-up items ("again", "") were never told: integrity counts them as foreign too
    failed = [name for name, (passed, _) in outcomes.items() if not passed]
    assert failed == ["integrity", "quiet-breaches"]
    evidence = outcomes["quiet-breaches"][1]
    answered = int(evidence.split(" × duplicate id")[0])
    assert answered >= 8  # every Search answer that held an item, across the checks
    assert evidence.startswith(f"{answered} × duplicate id, ") and " × empty content, " in evidence
    assert f"{answered} × non-finite score in " in evidence
