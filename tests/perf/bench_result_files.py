"""Benchmark: loading and saving full-LoCoMo result files, against the earlier way, in one run.

Two results (bm25 and word-overlap on full LoCoMo, 1,986 traces each) are saved and loaded
as `memrank pair` loads them. Reported as ratios against the path memrank took before (kept
below as the baseline: every copy of a recalled document validated, the cyclic collector on;
every copy of a document dumped and digested on save), best of several rounds:

- loading the two results: target at least 3x faster than the earlier path;
- saving one result: writing each distinct document once.

Both paths must give the same Result and the same bytes. The material is read as the tests
read it: MEMRANK_DATA_DIR, else shared/data beside the repository.
Run: uv run python tests/perf/bench_result_files.py [rounds]
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

import orjson

import memrank
from memrank.evaluations import locomo
from memrank.result import Result
from tests.perf._timing import seconds


def material() -> Path:
    given = os.environ.get("MEMRANK_DATA_DIR")
    root = Path(given) if given else Path(__file__).resolve().parents[2].parent / "shared" / "data"
    return root / "locomo"


# -- the earlier path, kept as the baseline ------------------------------------------------------


def _ref(part: Any) -> str:
    return hashlib.sha256(orjson.dumps(part, option=orjson.OPT_SORT_KEYS)).hexdigest()


def earlier_load(raw: bytes) -> Result:
    data = orjson.loads(raw)
    documents, givens = data.pop("documents", {}), data.pop("givens", {})
    for trace in data["traces"]:
        if isinstance(trace.get("given"), str):
            trace["given"] = givens[trace["given"]]
        recalled = trace.get("recalled")
        if recalled:
            recalled["documents"] = [documents[ref] for ref in recalled["documents"]]
    return Result.model_validate(data)


def earlier_save(result: Result) -> bytes:
    data = result.model_dump(mode="json", by_alias=True)
    documents: dict[str, Any] = {}
    givens: dict[str, Any] = {}
    for trace in data["traces"]:
        if trace.get("given") is not None:
            ref = _ref(trace["given"])
            givens[ref] = trace["given"]
            trace["given"] = ref
        recalled = trace.get("recalled")
        if recalled:
            refs = [_ref(document) for document in recalled["documents"]]
            documents.update(zip(refs, recalled["documents"], strict=True))
            recalled["documents"] = refs
    data["documents"], data["givens"] = documents, givens
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def main(rounds: int) -> None:
    evaluation = locomo(path=material())
    files = [
        memrank.run(memrank.system(name), evaluation).to_bytes()
        for name in ("bm25", "word-overlap")
    ]
    loaded = [Result.from_bytes(raw) for raw in files]
    assert loaded == [earlier_load(raw) for raw in files], "the two load paths differ"
    assert [r.to_bytes() for r in loaded] == [earlier_save(r) for r in loaded] == files

    load_new, load_old, save_new, save_old = [], [], [], []
    for _ in range(rounds):
        load_old.append(seconds(lambda: [earlier_load(raw) for raw in files]))
        load_new.append(seconds(lambda: [Result.from_bytes(raw) for raw in files]))
        save_old.append(seconds(lambda: earlier_save(loaded[0])))
        save_new.append(seconds(lambda: loaded[0].to_bytes()))
    traces = sum(len(r.traces) for r in loaded)
    print(
        f"two LoCoMo results, {traces} traces, {sum(map(len, files)) / 1e6:.1f} MB; best of {rounds}"
    )
    print(f"load: {min(load_new):.3f} s, earlier path {min(load_old):.3f} s")
    print(
        f"load speed-up over the earlier path = {min(load_old) / min(load_new):.2f}x (target >= 3x)"
    )
    print(f"save one: {min(save_new):.3f} s, earlier path {min(save_old):.3f} s")
    print(f"save speed-up over the earlier path = {min(save_old) / min(save_new):.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
