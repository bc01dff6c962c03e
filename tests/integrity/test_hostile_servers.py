"""Hostile servers on loopback (tests/integrity/hostile.py), each run through the aml client on
LoCoMo's smoke slice as a participant's endpoint is: each ends ``integrity: suspect``, or is
disarmed (earns no more than the honest server on the headline); honest servers end clean.

Runs use the fixed secret of tests/endpoints.py, so each verdict is the same on every run of
the suite; a sweep over ten more secrets reads how often the stealth oracle is caught."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from memrank import Memory
from memrank.evaluation import Evaluation
from memrank.integrity.guard import ENDPOINT_ID
from memrank.integrity.record import VERDICT
from memrank.result import Result
from memrank.systems import WordOverlap
from memrank.systems.bm25 import BM25Adapter
from memrank.systems.http.aml import AmlEndpoints
from memrank.wire._service import ContractService
from memrank.wire.check import check
from memrank.wire.serve import serving
from tests.endpoints import SECRET, over_aml
from tests.integrity.hostile import (
    AnswersAsMemories,
    FailsTheRest,
    Fragments,
    GoldForFound,
    PublicLocomo,
    Stealth,
    StoresNothing,
)

CHEATERS: dict[str, Callable[[PublicLocomo], Memory]] = {
    "store-nothing oracle": StoresNothing,
    "stealth oracle": Stealth,
    "fragment oracle": Fragments,
    "gold for found questions": GoldForFound,
}
SWEEP = [hashlib.sha256(f"integrity sweep {n}".encode()).digest()[:16] for n in range(10)]


HEADLINE = "evidence-recall@500w.mean"
"""LoCoMo's headline (the board's column), over the benchmark's questions."""


def headline(result: Result) -> float:
    (value,) = [v.value for v in result.values if v.measure == HEADLINE]
    assert value is not None
    return value


class _Runs(dict[str, Result]):
    """One smoke run per cheater, made the first time a test reads it."""

    def __init__(self, public: PublicLocomo, smoke: Evaluation) -> None:
        super().__init__()
        self.public, self.smoke = public, smoke

    def __missing__(self, name: str) -> Result:
        self[name] = over_aml(lambda: CHEATERS[name](self.public), self.smoke, SECRET)
        return self[name]


@pytest.fixture(scope="module")
def honest(smoke: Evaluation) -> Result:
    return over_aml(BM25Adapter, smoke, SECRET)


@pytest.fixture(scope="module")
def cheated(public: PublicLocomo, smoke: Evaluation) -> dict[str, Result]:
    return _Runs(public, smoke)


# -- honest servers -----------------------------------------------------------------------------


@pytest.mark.parametrize("memory", [BM25Adapter, WordOverlap], ids=["bm25", "word-overlap"])
def test_an_honest_server_ends_clean_on_the_demo(
    memory: Callable[[], Memory], demo: Evaluation
) -> None:
    result = over_aml(memory, demo, SECRET)
    assert not result.failed and result.integrity is not None
    assert result.integrity.line == "integrity: clean"
    assert result.integrity.foreign.documents == 0 < result.integrity.foreign.recalled
    assert [v.value for v in result.values if v.measure == VERDICT] == [0.0]


def test_an_honest_server_ends_clean_on_locomo_smoke(honest: Result, smoke: Evaluation) -> None:
    integrity = honest.integrity
    assert not honest.failed and integrity is not None
    assert integrity.line == "integrity: clean" and integrity.reasons == ()
    assert integrity.foreign.documents == 0 < integrity.foreign.recalled
    test = integrity.test
    assert test is not None and test.p_value is not None and test.p_value > 0.1
    assert test.benchmark_tasks > 100 and test.canary_tasks >= 2
    assert [t.task.id for t in honest.traces] == [t.id for t in smoke.tasks]  # canaries apart
    assert 0.3 < headline(honest) < 0.9


def test_word_overlap_served_ends_clean_on_locomo_smoke(smoke: Evaluation) -> None:
    result = over_aml(WordOverlap, smoke, SECRET)
    assert result.integrity is not None and result.integrity.line == "integrity: clean"


# -- cheaters -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CHEATERS))
def test_each_cheater_ends_suspect_or_earns_no_more_than_the_honest_server(
    name: str, cheated: dict[str, Result], honest: Result
) -> None:
    result = cheated[name]
    assert not result.failed and result.integrity is not None
    suspect = result.integrity.verdict == "suspect"
    assert suspect or headline(result) <= headline(honest), (
        f"{name}: {result.integrity.line}, headline {headline(result):.3f} against the honest "
        f"server's {headline(honest):.3f}"
    )
    if suspect:
        assert result.integrity.line.startswith("integrity: suspect — recall on the benchmark")
        assert [v.value for v in result.values if v.measure == VERDICT] == [1.0]


def test_the_store_nothing_oracle_is_caught_by_canaries_it_cannot_look_up(
    cheated: dict[str, Result], honest: Result
) -> None:
    result = cheated["store-nothing oracle"]
    assert headline(result) == 1.0 > headline(honest)  # the lookup works ...
    test = result.integrity.test  # type: ignore[union-attr]
    assert test is not None and test.canary_mean == 0.0  # ... on the benchmark only
    assert test.p_value is not None and test.p_value < 1e-6


def test_the_stealth_oracle_passes_check_and_cheats_only_in_a_benchmark_run(
    public: PublicLocomo, cheated: dict[str, Result], honest: Result
) -> None:
    with serving(ContractService(lambda: Stealth(public))) as url:
        outcomes = check(AmlEndpoints.of(url), timeout=30)
    assert outcomes and all(outcome.passed for outcome in outcomes)
    assert headline(cheated["stealth oracle"]) == 1.0 > headline(honest)


def test_fragments_of_the_gold_turns_earn_only_their_share_and_no_more_than_honest(
    cheated: dict[str, Result], honest: Result
) -> None:
    result = cheated["fragment oracle"]
    fragments = [
        t
        for t in result.traces
        if t.recalled
        and any(d.id.startswith(f"{ENDPOINT_ID}fragment-") for d in t.recalled.documents)
    ]
    assert len(fragments) > 100  # the questions it looked up, six words a turn
    looked_up = {t.task.id for t in fragments}
    shares = [
        v.value
        for v in result.values_of("evidence-recall@500w")
        if v.task_id in looked_up and v.value is not None
    ]
    # a turn of six words or fewer is shown whole; a longer one earns its six words' share
    assert shares and sum(shares) / len(shares) < 0.5
    assert headline(result) <= headline(honest)


def test_the_stealth_oracle_is_caught_in_nine_runs_of_ten(
    public: PublicLocomo, smoke: Evaluation
) -> None:
    # issue 48 asks for 90% power on locomo:smoke against a server that looks every public
    # question up; the stealth oracle also answers the canaries as honest bm25 does
    verdicts: list[str] = []
    for secret in SWEEP:
        integrity = over_aml(lambda: Stealth(public), smoke, secret).integrity
        assert integrity is not None
        verdicts.append(integrity.verdict)
        if verdicts.count("clean") > len(SWEEP) // 10:
            break  # nine of ten can no longer be reached
    assert verdicts.count("suspect") >= 9, verdicts


def test_a_server_that_fails_every_question_it_cannot_look_up_ends_suspect(
    public: PublicLocomo, smoke: Evaluation
) -> None:
    result = over_aml(lambda: FailsTheRest(public), smoke, SECRET, attempts=1)
    assert result.integrity is not None
    assert headline(result) == 1.0 and not result.failed  # the lookup worked, nothing failed
    assert result.integrity.verdict == "suspect"


def test_answers_returned_as_memories_are_foreign_and_earn_nothing(
    public: PublicLocomo, smoke: Evaluation
) -> None:
    result = over_aml(lambda: AnswersAsMemories(public), smoke, SECRET)
    integrity = result.integrity
    assert integrity is not None
    assert integrity.foreign.documents == integrity.foreign.recalled > 100
    assert headline(result) == 0.0  # the evidence measures skip foreign documents
    assert all(not v.value for v in result.values_of("word-match"))
