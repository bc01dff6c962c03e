"""Sharded runs: LoCoMo run as three shards and merged equals the run made in one piece, trace for
trace and value for value (timings aside); the merge attests and verifies; every refusal of
``memrank merge`` has its reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import memrank
from memrank._apply import measures_of
from memrank.artifacts import verify
from memrank.cli import main
from memrank.errors import MergeRefused
from memrank.result import Result
from memrank.runs.merge import merge
from memrank.runs.shards import Shard, parse_shard, partition, shard_of
from tests.artifacts.conftest import NOW, Keys, Store, as_installed, first_root

# The commands .github/workflows/sweep.yml runs (tests/runs/test_sweep_workflow.py holds them equal).
SHARD_COMMAND = "memrank run {system} {evaluation} --shard {index}/{count} --save {out}"
MERGE_COMMAND = "memrank merge {shards} --save {out}"

_CLOCK_FIELDS = {"timings_ms", "started", "finished"}


def _memrank(*args: str) -> str:
    done = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return done.output


def _run_shards(folder: Path, system: str, evaluation: str, count: int) -> list[Path]:
    paths = []
    for index in range(1, count + 1):
        out = folder / f"shard-{index}.json"
        command = SHARD_COMMAND.format(
            system=system, evaluation=evaluation, index=index, count=count, out=out
        )
        _memrank(*command.split()[1:])
        paths.append(out)
    return paths


def _merge(paths: list[Path], out: Path) -> Result:
    command = MERGE_COMMAND.format(shards=" ".join(map(str, paths)), out=out)
    _memrank(*command.split()[1:])
    return Result.load(out)


def _without_clock(result: Result) -> dict[str, Any]:
    """The result as data, without what differs between any two runs: its clock readings."""
    data = result.model_dump(mode="json")
    for trace in data["traces"]:
        for field in _CLOCK_FIELDS:
            trace.pop(field)
        trace["declared"].pop("engine_timings_ms", None)
    data["values"] = [v for v in data["values"] if not v["measure"].startswith("latency.")]
    for field in ("started", "finished", "provenance"):
        data.pop(field)
    return data


@pytest.fixture(scope="module")
def locomo_shards(
    tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> tuple[list[Path], Result, Result]:
    """bm25 on full LoCoMo as 3 shards, their merge, and the same run made in one piece."""
    folder = tmp_path_factory.mktemp("shards")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMRANK_HOME", str(folder / "home"))
        patch.setenv("MEMRANK_LOCOMO_FILE", str(shared_data / "locomo" / "locomo10.json"))
        paths = _run_shards(folder, "bm25", "locomo", 3)
        merged = _merge(paths, folder / "merged.json")
        _memrank("run", "bm25", "locomo", "--save", str(folder / "whole.json"), "--summary")
    return paths, merged, Result.load(folder / "whole.json")


def test_three_locomo_shards_merge_into_the_run_made_in_one_piece(
    locomo_shards: tuple[list[Path], Result, Result],
) -> None:
    paths, merged, whole = locomo_shards
    shards = [Result.load(path) for path in paths]
    assert [s.evaluation.slice for s in shards] == ["shard 1/3", "shard 2/3", "shard 3/3"]
    assert sum(len(s.traces) for s in shards) == len(whole.traces) == 1986
    assert merged.evaluation == whole.evaluation and merged.evaluation.slice is None
    assert merged.clearing == whole.clearing
    assert _without_clock(merged) == _without_clock(whole)
    assert whole.provenance is not None and merged.provenance is not None
    assert merged.provenance.dataset_bundle == whole.provenance.dataset_bundle
    assert merged.provenance.pipeline == whole.provenance.pipeline


def test_the_merged_run_attests_and_verifies_while_a_shard_does_not(
    locomo_shards: tuple[list[Path], Result, Result], tmp_path: Path
) -> None:
    paths, merged, _ = locomo_shards
    keys = Keys(*(Ed25519PrivateKey.generate() for _ in range(3)))
    published = as_installed(merged)  # as the sweep's wheel-installed memrank records it
    store = Store(tmp_path / "artifacts", keys)
    store.publish_root(first_root(keys, published, valid_from=NOW), [keys.root])
    run = verify(store.attest(published).envelope, store.trust)
    assert run.predicate.publishable and run.predicate.evaluation.slice is None

    shard = as_installed(Result.load(paths[0]))
    assert store.attest(shard).statement.predicate.publishable is False


# -- the partition --------------------------------------------------------------------------


def test_the_partition_is_balanced_by_tasks_and_never_splits_a_unit() -> None:
    sizes = [282, 321, 96, 841, 446, 10, 10, 50]
    shards = partition(sizes, 3)
    assert sorted(p for shard in shards for p in shard) == list(range(len(sizes)))
    loads = [sum(sizes[p] for p in shard) for shard in shards]
    assert max(loads) - min(loads) <= max(sizes)
    assert partition(sizes, 3) == shards  # a pure function of the sizes
    assert all(shard == sorted(shard) for shard in shards)


def test_a_shard_keeps_evaluation_order_and_the_whole_bundle(demo: memrank.Evaluation) -> None:
    grouped = _three_units(demo)
    parts = [shard_of(grouped, Shard(i, 3)) for i in (1, 2, 3)]
    assert [p.slice for p in parts] == ["shard 1/3", "shard 2/3", "shard 3/3"]
    assert sorted(t.id for p in parts for t in p.tasks) == sorted(t.id for t in grouped.tasks)
    for part in parts:
        positions = [[t.id for t in grouped.tasks].index(t.id) for t in part.tasks]
        assert positions == sorted(positions)
        assert part.dataset_bundle() == grouped.dataset_bundle()


@pytest.mark.parametrize("text", ["0/3", "4/3", "a/b", "3", "1/0", ""])
def test_a_malformed_shard_is_a_usage_error_naming_the_option(text: str) -> None:
    done = CliRunner().invoke(main, ["run", "word-overlap", "demo", "--shard", text])
    assert done.exit_code == 2, done.output
    assert "--shard" in done.output and "Traceback" not in done.output
    with pytest.raises(memrank.errors.UsageError):
        parse_shard(text)


def test_more_shards_than_units_is_refused(demo: memrank.Evaluation) -> None:
    done = CliRunner().invoke(main, ["run", "word-overlap", "demo", "--shard", "1/2"])
    assert done.exit_code == 2
    assert "unit is never split" in done.output


# -- refusals of merge ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_shards(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The demo, regrouped into three units and run as shards by two systems, plus a slice."""
    folder = tmp_path_factory.mktemp("demo-shards")
    demo = memrank.evaluation("demo")
    paths: dict[str, Path] = {}
    for system in ("word-overlap", "bm25"):
        for index in (1, 2, 3):
            part = shard_of(_three_units(demo), Shard(index, 3))
            path = folder / f"{system}-{index}.json"
            memrank.run(memrank.system(system), part).save(path)
            paths[f"{system}-{index}"] = path
    for index in (1, 2):
        part = shard_of(_three_units(demo), Shard(index, 2))
        memrank.run(memrank.system("word-overlap"), part).save(folder / f"halves-{index}.json")
        paths[f"halves-{index}"] = folder / f"halves-{index}.json"
    memrank.run(memrank.system("word-overlap"), demo).save(folder / "whole.json")
    paths["whole"] = folder / "whole.json"
    return paths


def _three_units(demo: memrank.Evaluation) -> memrank.Evaluation:
    return demo.model_copy(
        update={
            "tasks": tuple(
                t.model_copy(update={"group": f"g{i % 3}"}) for i, t in enumerate(demo.tasks)
            )
        }
    )


def _merge_of(paths: dict[str, Path], *names: str) -> Result:
    results = [Result.load(paths[name]) for name in names]
    return merge(results, _three_units(memrank.evaluation("demo")), list(names))


def test_the_demo_shards_merge(demo_shards: dict[str, Path]) -> None:
    merged = _merge_of(demo_shards, "word-overlap-3", "word-overlap-1", "word-overlap-2")
    assert len(merged.traces) == 5 and merged.evaluation.slice is None


@pytest.mark.parametrize(
    ("names", "reason"),
    [
        (("word-overlap-1", "word-overlap-2"), r"shard\(s\) 3 of 3 missing"),
        (("word-overlap-1", "word-overlap-1", "word-overlap-2"), "given twice"),
        (("word-overlap-1", "bm25-2", "word-overlap-3"), "its system differs"),
        (("word-overlap-1", "halves-2", "word-overlap-3"), "cut in 2, the others in 3"),
        (("word-overlap-1", "whole", "word-overlap-3"), "not a shard"),
        ((), "no shards given"),
    ],
)
def test_merge_refuses_what_is_not_the_shards_of_one_run(
    demo_shards: dict[str, Path], names: tuple[str, ...], reason: str
) -> None:
    with pytest.raises(MergeRefused, match=reason):
        _merge_of(demo_shards, *names)


def test_merge_refuses_shards_of_another_pipeline(
    demo_shards: dict[str, Path], tmp_path: Path
) -> None:
    other = Result.load(demo_shards["word-overlap-2"])
    assert other.provenance is not None
    changed = other.provenance.model_copy(
        update={"pipeline": other.provenance.pipeline.model_copy(update={"code_sha256": "0" * 64})}
    )
    other.model_copy(update={"provenance": changed}).save(tmp_path / "other.json")
    results = [
        Result.load(demo_shards["word-overlap-1"]),
        Result.load(tmp_path / "other.json"),
        Result.load(demo_shards["word-overlap-3"]),
    ]
    with pytest.raises(MergeRefused, match="its pipeline differs"):
        merge(results, _three_units(memrank.evaluation("demo")), ["1", "other", "3"])


def test_merge_refuses_a_slice_among_the_shards(
    demo_shards: dict[str, Path], tmp_path: Path
) -> None:
    sliced = Result.load(demo_shards["word-overlap-2"])
    as_slice = sliced.model_copy(
        update={"evaluation": sliced.evaluation.model_copy(update={"slice": "smoke"})}
    )
    results = [Result.load(demo_shards["word-overlap-1"]), as_slice]
    with pytest.raises(MergeRefused, match="the slice 'smoke', not a shard"):
        merge(results, _three_units(memrank.evaluation("demo")), ["1", "sliced"])


def test_merge_refuses_shards_holding_other_tasks(demo_shards: dict[str, Path]) -> None:
    shifted = memrank.evaluation("demo")  # one unit: not the partition the shards were cut by
    results = [Result.load(demo_shards[f"word-overlap-{i}"]) for i in (1, 2, 3)]
    with pytest.raises(MergeRefused, match="not the .* its shard of demo is made of"):
        merge(results, shifted, ["1", "2", "3"])


def test_the_merge_command_refuses_with_exit_3_and_one_line(
    demo_shards: dict[str, Path], tmp_path: Path
) -> None:
    done = CliRunner().invoke(
        main,
        ["merge", str(demo_shards["whole"]), "--save", str(tmp_path / "m.json")],
    )
    assert done.exit_code == 3
    assert "not a shard" in done.output and "Traceback" not in done.output
    assert not (tmp_path / "m.json").exists()


def test_merge_refuses_shards_measured_with_other_measures(demo_shards: dict[str, Path]) -> None:
    results = [Result.load(demo_shards[f"word-overlap-{i}"]) for i in (1, 2, 3)]
    evaluation = _three_units(memrank.evaluation("demo"))
    fewer = list(measures_of(evaluation, None))[1:]  # as if one measure had not been applied
    with pytest.raises(MergeRefused, match="merge with the options they ran with"):
        merge(results, evaluation, ["1", "2", "3"], fewer)


def test_a_merge_keeps_each_tasks_values_and_never_measures_them_again(
    demo_shards: dict[str, Path],
) -> None:
    results = [Result.load(demo_shards[f"word-overlap-{i}"]) for i in (1, 2, 3)]
    evaluation = _three_units(memrank.evaluation("demo"))

    (task_scope,) = [m for m in evaluation.measures if m.scope is memrank.Scope.TASK]

    class Refuses(type(task_scope)):  # type: ignore[misc]
        def measure(self, traces, values):  # type: ignore[no-untyped-def]
            raise AssertionError("a task-scope measure was applied again")

    measures = [Refuses() if m is task_scope else m for m in measures_of(evaluation, None)]
    merged = merge(results, evaluation, ["1", "2", "3"], measures)
    shard_values = {(v.measure, v.task_id) for r in results for v in r.values if v.task_id}
    assert {(v.measure, v.task_id) for v in merged.values if v.task_id} == shard_values
