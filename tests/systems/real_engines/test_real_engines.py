"""memrank's engine clients against the real engines (tests/engines/engines.sh): the demo and a
LoCoMo slice with no failed task, the per-memory conformance test, and one test for each of the
differences found between the clients and the engines (tests/engines/README.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

import memrank
from memrank import Document
from memrank.cli import main
from memrank.errors import EndpointError
from memrank.measure import Decider
from memrank.reruns import differing_tasks
from memrank.result import Result
from memrank.systems.http import AmlMemory, Hindsight, Mem0
from memrank.systems.http._client import origin
from memrank.systems.http._engine import segment
from tests.systems.real_engines.conftest import Engine
from tests.systems.test_conformance import assert_conforms

DOCS = Path(__file__).parents[3] / "docs" / "systems.md"
TOLD = [
    Document(id=f"t{i}", content=text)
    for i, text in enumerate(
        [
            "Caroline went to the LGBTQ support group on 7 May 2023.",
            "Melanie painted a sunrise over the lake last year.",
            "Caroline is researching adoption agencies.",
        ]
    )
]


def _run_arguments(
    system: str, evaluation: str, where: Path, options: Sequence[str]
) -> tuple[list[str], Path]:
    """`memrank run SYSTEM EVALUATION --save FILE --option ...` and FILE, in ``where``."""
    where.mkdir(parents=True, exist_ok=True)
    saved = where / f"{system}-{evaluation.replace(':', '-')}.json"
    arguments = ["run", system, evaluation, "--save", str(saved)]
    for option in options:
        arguments += ["--option", option]
    return arguments, saved


def _saved(env: dict[str, str], system: str, evaluation: str, where: Path, *options: str) -> Path:
    """`memrank run` as a user types it, with ``env``; the saved result file."""
    arguments, saved = _run_arguments(system, evaluation, where, options)
    done = CliRunner(env=env).invoke(main, arguments)
    assert done.exit_code == 0, done.output
    return saved


def _run(engine: Engine, system: str, evaluation: str, where: Path, *options: str) -> Result:
    return Result.load(_saved({engine.variable: engine.url}, system, evaluation, where, *options))


@dataclass
class Smoke:
    """Each engine's locomo:smoke result file, run at most once a session. A run takes about a
    minute, nearly all of it the engine storing the conversation, so the first test to ask
    starts every engine's run at once (three servers share the cores better than one does)."""

    locomo: dict[str, str]
    where: pytest.TempPathFactory
    started: dict[str, tuple[subprocess.Popen[str], Path]] = field(default_factory=dict)

    def of(self, system: str, request: pytest.FixtureRequest) -> Path:
        if not self.started:
            for each in SMOKE_OPTIONS:
                try:
                    engine: Engine = request.getfixturevalue(ENGINE_OF[each])
                except (pytest.skip.Exception, pytest.fail.Exception):
                    continue  # said again by that engine's own tests
                self.started[each] = self._start(each, engine)
        request.getfixturevalue(ENGINE_OF[system])  # skips (or fails under CI) without it
        process, saved = self.started[system]
        if process.returncode is None:
            _, stderr = process.communicate(timeout=900)
            assert process.returncode == 0, stderr
        return saved

    def _start(self, system: str, engine: Engine) -> tuple[subprocess.Popen[str], Path]:
        where = self.where.mktemp(f"smoke-{system}")
        arguments, saved = _run_arguments(system, "locomo:smoke", where, SMOKE_OPTIONS[system])
        command = [sys.executable, "-m", "memrank", *arguments]
        environment = {**os.environ, engine.variable: engine.url, **self.locomo}
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment
        )
        return process, saved


SMOKE_OPTIONS = {"mem0": ("infer=false",), "hindsight": (), "aml": ()}
ENGINE_OF = {"mem0": "mem0", "hindsight": "hindsight", "aml": "ami"}


@pytest.fixture(scope="session")
def smoke(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Smoke:
    locomo = {"MEMRANK_LOCOMO_FILE": str(shared_data / "locomo" / "locomo10.json")}
    return Smoke(locomo, tmp_path_factory)


def _failed(result: Result) -> int:
    return sum(1 for trace in result.traces if trace.error is not None)


# -- whole runs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "system", "options"),
    [("mem0", "mem0", ("infer=false",)), ("hindsight", "hindsight", ()), ("ami", "aml", ())],
)
def test_the_demo_runs_with_no_failed_task(
    fixture: str,
    system: str,
    options: tuple[str, ...],
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    engine: Engine = request.getfixturevalue(fixture)
    result = _run(engine, system, "demo", tmp_path, *options)
    assert result.refusal is None and _failed(result) == 0
    assert len(result.traces) == 5


@pytest.mark.parametrize("system", ["mem0", "hindsight", "aml"])
def test_locomo_smoke_runs_with_no_failed_task(
    system: str, smoke: Smoke, request: pytest.FixtureRequest
) -> None:
    result = Result.load(smoke.of(system, request))
    assert result.refusal is None and _failed(result) == 0
    recall = [v.value for v in result.values_of("evidence-recall@10") if v.value is not None]
    assert recall and sum(recall) / len(recall) > 0.05  # it found evidence, not nothing


@pytest.mark.parametrize("fixture", ["mem0", "hindsight", "ami"])
def test_every_real_engine_passes_the_per_memory_conformance_test(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    engine: Engine = request.getfixturevalue(fixture)
    memory = {
        "mem0": lambda: Mem0(engine.url, infer=False),
        "hindsight": lambda: Hindsight(engine.url),
        "ami": lambda: AmlMemory(engine.url, timeout=60),
    }[fixture]()
    try:
        assert_conforms(memory)
    finally:
        memory.close()


@pytest.mark.parametrize("fixture", ["mem0", "hindsight"])
def test_cleanup_is_observed_on_the_engine(fixture: str, request: pytest.FixtureRequest) -> None:
    # asked over the engine's own API, not through memrank's client; ActiveMemoryIndex is left
    # out: the Add/Search contract has no delete, and each unit gets a fresh user_id instead
    engine: Engine = request.getfixturevalue(fixture)
    memory = Mem0(engine.url, infer=False) if fixture == "mem0" else Hindsight(engine.url)
    handle = _unit(memory, "cleanup", TOLD)
    namespace = handle.namespace("cleanup")
    before = _held(engine, namespace)
    handle.cleanup()
    assert before == len(TOLD) and _held(engine, namespace) == 0


def _held(engine: Engine, namespace: str) -> int:
    """How many items the engine holds for a namespace (a missing Hindsight bank holds none)."""
    if engine.name == "mem0":
        answer = httpx.get(f"{engine.url}/memories", params={"user_id": namespace}, timeout=30)
        return len(answer.raise_for_status().json()["results"])
    listed = httpx.get(
        f"{engine.url}/v1/default/banks/{segment(namespace)}/memories/list", timeout=30
    )
    if listed.status_code == 404:
        return 0
    return len(listed.raise_for_status().json()["items"])


# -- Mem0 ---------------------------------------------------------------------------------------


def _unit(memory: Mem0 | Hindsight, unit: str, documents: list[Document]) -> Mem0 | Hindsight:
    handle = memory.for_unit("run_realengine", "differences")
    handle.prepare(unit)
    handle.ingest(documents)
    return handle


def _log_lines(engine: Engine, pattern: str) -> int:
    return (
        len(re.findall(pattern, engine.log.read_text(errors="replace")))
        if engine.log.is_file()
        else 0
    )


def test_1_mem0_search_sends_filters_not_the_deprecated_top_level_user_id(mem0: Engine) -> None:
    before = _log_lines(mem0, "Top-level user_id in /search is deprecated")
    handle = _unit(Mem0(mem0.url, infer=False), "filters", TOLD)
    recall = handle.retrieve("Who researches adoption?", 3, "filters")
    handle.cleanup()
    assert "adoption" in recall.documents[0].text
    assert mem0.log.is_file()
    assert _log_lines(mem0, "Top-level user_id in /search is deprecated") == before


def test_2_infer_off_is_sent_recorded_and_never_asks_the_llm(mem0: Engine) -> None:
    stub_log = mem0.log.parent / "stub_llm.jsonl"
    before = len(stub_log.read_text().splitlines()) if stub_log.is_file() else 0
    memory = Mem0(mem0.url, infer=False)
    handle = _unit(memory, "infer", TOLD)
    recall = handle.retrieve("What did Melanie paint?", 3, "infer")
    handle.cleanup()
    assert [d.text for d in recall.documents][0] == TOLD[1].text  # stored verbatim, not extracted
    after = len(stub_log.read_text().splitlines()) if stub_log.is_file() else 0
    assert after == before
    assert memory.components()["infer"] == "off"


def test_3_mem0s_score_cut_off_is_stated_and_can_be_lowered(mem0: Engine) -> None:
    many = [
        Document(id=f"n{i}", content=f"Note {i}: the weather in town {i} was mild.")
        for i in range(8)
    ]
    query = "quantum chromodynamics lattice gauge"
    default = _unit(Mem0(mem0.url, infer=False), "cutoff", many)
    cut = default.retrieve(query, 8, "cutoff")
    default.cleanup()
    lowered = _unit(Mem0(mem0.url, infer=False, threshold=0.0), "nocutoff", many)
    everything = lowered.retrieve(query, 8, "nocutoff")
    lowered.cleanup()
    assert len(everything.documents) == 8
    assert len(cut.documents) < 8  # Mem0 dropped what scored under its default 0.1
    assert Mem0(mem0.url).components()["threshold"] == "Mem0's default (0.1)"
    assert "0.1" in DOCS.read_text()


def test_3_a_search_finds_a_units_memories_past_nearer_ones_of_other_units(
    mem0: Engine,
) -> None:
    # Mem0 keeps every user in one pgvector table with an HNSW index and filters by user after
    # the index scan: without an iterative scan (engines.sh sets one) the scan's 40 nearest
    # rows are all the crowd's, and the unit's search returns nothing
    query = "quantum chromodynamics lattice gauge"
    crowd = [
        Document(id=f"c{i}", content=f"Lattice gauge theory of quarks and gluons, remark {i}.")
        for i in range(60)
    ]
    notes = [Document(id=f"n{i}", content=f"Note {i}: the town was mild.") for i in range(8)]
    others = _unit(Mem0(mem0.url, infer=False), "crowd", crowd)
    mine = _unit(Mem0(mem0.url, infer=False, threshold=0.0), "mine", notes)
    try:
        recall = mine.retrieve(query, 8, "mine")
    finally:
        others.cleanup()
        mine.cleanup()
    assert sorted(d.text for d in recall.documents) == sorted(d.content for d in notes)


def test_4_an_add_that_stores_nothing_is_a_failure(mem0: Engine) -> None:
    # Mem0 skips system messages when it stores without inference: it answers {"results": []}
    silent = Document(id="sys", content="You are a helpful assistant.", metadata={"role": "system"})
    handle = Mem0(mem0.url, infer=False).for_unit("run_realengine", "differences")
    handle.prepare("nothing")
    with pytest.raises(EndpointError, match="stored nothing"):
        handle.ingest([silent])
    handle.cleanup()


def test_5_the_docs_name_the_header_and_the_admin_key_the_server_uses(mem0: Engine) -> None:
    spec = httpx.get(mem0.url + "/openapi.json", timeout=30).json()
    headers = {
        scheme["name"]
        for scheme in spec["components"]["securitySchemes"].values()
        if scheme.get("in") == "header"
    }
    assert "X-API-Key" in headers
    text = DOCS.read_text()
    assert "X-API-Key" in text and "ADMIN_API_KEY" in text
    assert Mem0.auth_scheme.lower() == "x-api-key"


# -- Hindsight ----------------------------------------------------------------------------------


def test_6_the_docs_name_the_hindsight_version_the_engine_reports(hindsight: Engine) -> None:
    version = httpx.get(hindsight.url + "/openapi.json", timeout=30).json()["info"]["version"]
    assert version in DOCS.read_text()
    assert "0.8 series" not in DOCS.read_text()


def test_7_hindsight_scores_are_kept(hindsight: Engine) -> None:
    handle = _unit(Hindsight(hindsight.url), "scores", TOLD)
    recall = handle.retrieve("Who painted a sunrise?", 3, "scores")
    handle.cleanup()
    assert recall.documents
    assert all(isinstance(d.metadata.get("score"), float) for d in recall.documents)


def test_8_hindsight_answers_are_stored_without_repeating_every_item(
    hindsight: Engine, tmp_path: Path
) -> None:
    many = [
        Document(id=f"m{i}", content=f"Fact {i}: Caroline met friend {i} in the park.")
        for i in range(60)
    ]
    handle = _unit(Hindsight(hindsight.url), "compact", many)
    recall = handle.retrieve("Who did Caroline meet?", 5, "compact")
    handle.cleanup()
    declared = recall.declared
    assert declared["engine_returned"] > 5  # the engine sent far more than asked
    assert len(declared["response"]["results"]) <= 5  # the trace keeps only what memrank used


def test_8_a_hindsight_result_file_stays_within_a_few_times_bm25s(
    hindsight: Engine, smoke: Smoke, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # Kept whole, recall's answers (95-230 items each) made the smoke result 16.8 MB, 15.6x
    # bm25's; keeping the k items used, it measured 4.5 MB against bm25's 1.08 MB (4.2x): each
    # hit's per-query score sits in its metadata, so the same item recalled twice is stored
    # as two documents (2,898 against bm25's 404)
    hindsight_size = smoke.of("hindsight", request).stat().st_size
    bm25_size = _saved(smoke.locomo, "bm25", "locomo:smoke", tmp_path).stat().st_size
    assert hindsight_size < 5 * bm25_size, (hindsight_size, bm25_size)


def test_9_a_hindsight_rerun_is_read_as_a_rerun(hindsight: Engine, tmp_path: Path) -> None:
    # The engine is not deterministic run to run on identical input; a reading of a rerun says
    # so exactly when the two runs' scores differ, counting tasks by their scores alone (the
    # words recalled and the latency are bookkeeping), and never otherwise. Two runs of the
    # demo hold that promise (a second locomo:smoke run cost a minute of CI for the same check;
    # tests/test_reruns.py reads reruns that differ, task by task).
    first = _run(hindsight, "hindsight", "demo", tmp_path / "first")
    second = _run(hindsight, "hindsight", "demo", tmp_path / "second")
    reported = httpx.get(hindsight.url + "/version", timeout=30).json()["api_version"]
    assert first.system.declared_version == second.system.declared_version == reported
    assert first.system.components["endpoint"] == origin(hindsight.url)
    reading = memrank.paired(first, second)
    differing, shared = differing_tasks(first, second)
    assert shared == len(first.traces)
    assert differing == len(_tasks_whose_scores_differ(first, second))
    bookkeeping = _tasks_whose_scores_differ(first, second, bookkeeping=True)
    print(
        f"hindsight rerun: {differing} of {shared} tasks differ in scores, {len(bookkeeping)} in any value"
    )
    if differing:
        assert reading.rerun is not None and f"{differing} of {shared} task(s)" in reading.rerun
    else:
        assert reading.rerun is None
    assert reading.differ is None


def _tasks_whose_scores_differ(a: Result, b: Result, bookkeeping: bool = False) -> set[str]:
    def held(result: Result) -> set[tuple[str, str, float | None]]:
        return {
            (v.task_id, v.measure, v.value)
            for v in result.values
            if v.task_id is not None and (bookkeeping or v.decider is not Decider.MEMRANK)
        }

    return {task for task, _, _ in held(a) ^ held(b)}
