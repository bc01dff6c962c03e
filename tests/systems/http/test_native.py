"""Native and the translator contract: the example translator runs the demo exactly as the
toy memory it wraps does in-process; `memrank targets verify` passes it and catches each
kind of broken translator."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

import pytest
from click.testing import CliRunner

import memrank
from memrank import Document, Evaluation, Recall
from memrank.cli import main
from memrank.errors import ContractError
from memrank.system import Content, text_of
from memrank.systems.http import Native
from memrank.trace import Step
from tests.endpoints import SECRET, AsEndpoint, planted
from tests.systems.http.translator import EXAMPLE, example, running_translator

toy_memory = example("toy_memory")
translator = example("translator")


class ToyInProcess(memrank.Memory):
    """The example's ToyMemory driven in-process: what the translator wraps, without HTTP."""

    def __init__(self) -> None:
        self.toy = toy_memory.ToyMemory()

    def prepare(self, isolation_unit: str) -> None:
        self.unit = isolation_unit
        self.toy.prepare(isolation_unit)

    def ingest(self, documents: Sequence[Document]) -> None:
        self.toy.ingest(self.unit, [{"id": d.id, "content": d.text} for d in documents])

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        ranked = self.toy.retrieve(self.unit, text_of(query), k)
        return Recall(
            documents=tuple(Document(id=d["id"], content=d["content"]) for d, _ in ranked)
        )

    def cleanup(self) -> None:
        self.toy.cleanup(self.unit)


def test_the_example_runs_the_demo_with_the_values_of_the_memory_it_wraps(
    demo: Evaluation,
) -> None:
    with running_translator() as server:
        native = Native(server.url, timeout=10)
        over_http = memrank.run(native, demo, secret=SECRET)
        native.close()
    # the same canaries at the same places: the toy in-process driven as an endpoint is
    in_process = memrank.run(AsEndpoint(ToyInProcess()), demo, secret=SECRET)
    assert not over_http.failed and over_http.system.transport == "http"
    assert over_http.system.declared_version == "1.0"
    for measure in ("word-match", "demo-score"):
        values = [(v.task_id, v.group, v.value) for v in over_http.values_of(measure)]
        assert values == [(v.task_id, v.group, v.value) for v in in_process.values_of(measure)]
    assert [v.value for v in over_http.values_of("word-match")] == [1.0, 1.0, 1.0, 0.0, 1.0]
    assert server.memory.units == {}  # every unit cleaned up


@pytest.fixture
def translator_process() -> Iterator[str]:
    """`python translator.py --port 0` in its own process, as a user would start it."""
    process = subprocess.Popen(
        [sys.executable, "translator.py", "--port", "0"],
        cwd=EXAMPLE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert banner.startswith("translator listening at http://127.0.0.1:"), banner
        yield banner.split()[-1]
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_the_example_passes_targets_verify_and_runs_by_name(translator_process: str) -> None:
    verified = CliRunner().invoke(main, ["targets", "verify", translator_process])
    assert verified.exit_code == 0, verified.output
    lines = verified.output.splitlines()
    assert [line.split()[1] for line in lines[:-1]] == [
        "describe",
        "ranked-retrieve",
        "isolation",
        "cleanup",
        "usage",
    ]
    assert all(line.startswith("pass") for line in lines[:-1])
    assert lines[-1] == "5 checks: 5 passed, 0 failed"
    ran = CliRunner().invoke(
        main, ["run", "native", "demo"], env={"MEMRANK_TRANSLATOR_URL": translator_process}
    )
    assert ran.exit_code == 0, ran.output
    assert "Native (memory)" in ran.output and "0 with errors" in ran.output


class Leaky(toy_memory.ToyMemory):  # type: ignore[misc]
    """Ignores the unit when retrieving: every unit sees everything."""

    def retrieve(self, unit: str, query: str, k: int) -> list[tuple[dict[str, Any], int]]:
        everything = [d for docs in self.units.values() for d in docs]
        self.units["*"] = everything
        try:
            return super().retrieve("*", query, k)
        finally:
            del self.units["*"]


class Forgetful(toy_memory.ToyMemory):  # type: ignore[misc]
    """Cleanup does nothing, and prepare keeps what the unit held."""

    def prepare(self, unit: str) -> None:
        self.units.setdefault(unit, [])

    def cleanup(self, unit: str) -> None:
        pass


class Overgiving(toy_memory.ToyMemory):  # type: ignore[misc]
    """Returns everything it holds, whatever k says."""

    def retrieve(self, unit: str, query: str, k: int) -> list[tuple[dict[str, Any], int]]:
        return [(d, 1) for d in self.units.get(unit, [])]


def _handler(**extra: Any) -> type:
    """The example's handler, adding ``extra`` fields to every answer it sends."""

    class Handler(translator.Handler):  # type: ignore[misc,name-defined]
        def send(self, status: int, answer: dict[str, Any]) -> None:
            super().send(status, {**answer, **extra} if status == 200 else answer)

    return Handler


@pytest.mark.parametrize(
    "replace,failed,evidence",
    [
        ({"memory": Leaky()}, ["isolation"], "unit B returned ['d-paris'], told only to unit A"),
        ({"memory": Forgetful()}, ["cleanup"], "after cleanup and a fresh prepare the unit still"),
        ({"memory": Overgiving()}, ["ranked-retrieve"], "returned 3 documents for k=2"),
        (
            {"RequestHandlerClass": _handler(usage={"tokens": "twelve"})},
            ["usage"],
            "usage is {'tokens': 'twelve'}, not an object of numbers",
        ),
        (
            {"RequestHandlerClass": _handler(contract="memrank-native/0")},
            ["describe"],
            "contract: Input should be 'memrank-native/1'",
        ),
    ],
    ids=["leaky", "forgetful", "overgiving", "usage-text", "wrong-contract"],
)
def test_verify_fails_the_one_check_a_broken_translator_breaks(
    replace: dict[str, Any], failed: list[str], evidence: str
) -> None:
    with running_translator(**replace) as server:
        outcome = CliRunner().invoke(main, ["targets", "verify", server.url, "--json"])
    assert outcome.exit_code == 1
    outcomes = json.loads(outcome.output[: outcome.output.rindex("]") + 1])
    assert [o["name"] for o in outcomes if not o["passed"]] == failed
    (broken,) = [o for o in outcomes if not o["passed"]]
    assert evidence in broken["evidence"]
    assert f"1 check(s) failed: {failed[0]}" in outcome.output


def test_verify_sends_the_key_and_says_when_it_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with running_translator(key="s3cret") as server:
        monkeypatch.setenv("TRANSLATOR_KEY", "s3cret")
        good = CliRunner().invoke(
            main, ["targets", "verify", server.url, "--key-env", "TRANSLATOR_KEY"]
        )
        bad = CliRunner().invoke(main, ["targets", "verify", server.url])
    assert good.exit_code == 0, good.output
    assert bad.exit_code == 1
    assert (
        "/describe answered HTTP 401: a valid Authorization: Bearer key is required" in bad.output
    )
    unset = CliRunner().invoke(
        main, ["targets", "verify", "http://127.0.0.1:9", "--key-env", "NOPE"]
    )
    assert (
        unset.exit_code == 2
        and "--key-env NOPE: the environment variable is not set" in unset.output
    )


def test_native_refuses_answers_off_the_contract(demo: Evaluation) -> None:
    with running_translator(memory=Overgiving()) as server:
        native = Native(server.url, timeout=10)
        result = memrank.run(native, demo.model_copy(update={"k": 2}), secret=SECRET)
        native.close()
    errors = {t.error.type for t in result.traces if t.error is not None}
    assert errors == {"ContractError"}
    first = result.traces[0].error
    assert first is not None and first.step is Step.RETRIEVE
    (unit,) = planted(demo, SECRET)  # everything it holds: the demo's three and the canaries'
    told = len(unit.documents)
    assert f"returned {told} documents for k=2; the contract allows at most k" in first.message
    with running_translator(RequestHandlerClass=_handler(contract="memrank-native/0")) as server:
        native = Native(server.url, timeout=10)
        with pytest.raises(ContractError, match="describe: the answer breaks the memrank-native/1"):
            native.prepare("unit")
        native.close()


def test_native_declares_the_usage_a_translator_states() -> None:
    usage_handler = _handler(usage={"input_tokens": 7})
    with running_translator(RequestHandlerClass=usage_handler) as server:
        native = Native(server.url, timeout=10)
        native.prepare("unit")
        told = Document(
            id="d1",
            content="The capital of France is Paris.",
            timestamp="2026-01-10T18:00:00Z",
            metadata={"speaker": "Alex"},
        )
        native.ingest([told])
        recall = native.retrieve("capital of France", 3, "unit")
        stated = native.usage()
        native.cleanup()
        native.close()
    assert [d.id for d in recall.documents] == ["d1"]
    assert recall.declared["response"]["usage"] == {"input_tokens": 7}
    assert stated == {"input_tokens": 7, "ingest.input_tokens": 7}
