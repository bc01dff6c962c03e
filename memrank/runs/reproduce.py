"""``memrank reproduce``: rebuild what a signed run records, run it again, compare the files.

A signed run records its build: the source commit (clean), the wheel's sha256, the Python and
every installed distribution. Reproducing it means recreating that build (a worktree at the
commit, its wheel, a fresh environment with the recorded distributions pinned), rerunning the
recorded system on the recorded evaluation with the recorded options, slice and shard, and
comparing the rerun's deterministic files (result and scores) with the signed digests: equal is
**byte-identical**; otherwise the published scores file is read against the rerun's, task by
task. When the rerun made the signed result file byte for byte and only the scores differ, the
digests prove the cause: the signed scores file is not the function of the signed result (a
scores file edited and signed again), which no variation of the system explains. An endpoint observation can only be re-measured (the service may have changed since),
never reproduced. Built environments are kept in memrank's cache folder, one per build.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson

from memrank._files import memrank_cache_dir, write_atomic
from memrank.artifacts import (
    RunFiles,
    Scores,
    VerifiedRun,
    load_trust,
    read_scores,
    result_of_scores,
    results_cache,
    verify,
)
from memrank.artifacts._statement import RunPredicate
from memrank.catalog import WITHHELD
from memrank.errors import ReproduceRefused
from memrank.paired import Paired, paired
from memrank.result import EvaluationRecord, PipelineRecord, SystemRecord

__all__ = ["Reproduction", "compare_rerun", "repository_of", "reproduce"]

STEP_TIMEOUT_S = 6 * 3600
"""Any one step (a build, an install, a rerun): a full benchmark run of a slow system."""
_RECIPE = "memrank reproduce environment, recipe 1"
"""Part of each cached environment's key: a change to how environments are made renames them."""


@dataclass(frozen=True)
class Reproduction:
    """What a reproduction found."""

    run: VerifiedRun
    """The signed run, verified."""
    rerun: RunFiles
    """The rerun's files."""
    identical: bool
    """Every deterministic file (result and scores) has the signed digest."""
    endpoint: bool
    """The run is an endpoint observation: re-measured, not reproduced."""
    differing_fields: tuple[str, ...]
    """Top-level fields of the result file (and the pipeline's) that differ; empty when
    identical or when the published result file is not at hand to compare."""
    reading: Paired | None
    """The published scores read against the rerun's; None when identical."""
    same_values: bool
    """Every task's every value is the same on both sides (the scores files may still differ
    in the result file they name: an endpoint's answers can differ in what no measure reads)."""
    cause: str | None = None
    """Why the files differ, when the digests prove it: the rerun made the signed result file
    and the signed scores file is not what that result gives. None otherwise."""


Say = Callable[[str], None]


def repository_of(directory: Path) -> Path:
    """The git repository holding an artifacts directory (its commits rebuild its runs); the
    working directory when it is in none."""
    found = subprocess.run(
        ["git", "-C", str(directory), "rev-parse", "--show-toplevel"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return Path(found.stdout.strip()) if found.returncode == 0 else Path.cwd()


def reproduce(
    envelope: Path,
    *,
    artifacts: Path,
    repository: Path,
    wheel: Path | None = None,
    options: tuple[str, ...] = (),
    keep: Path | None = None,
    progress: bool = True,
    say: Say = print,
) -> Reproduction:
    """Rebuild, rerun and compare the run in ``envelope`` (see the module's docstring)."""
    run = verify(envelope, load_trust(artifacts / "root.json"))
    predicate = run.predicate
    endpoint = predicate.system.transport != "in-process"
    name = predicate.system.declared_name
    if not name:
        raise ReproduceRefused(
            f"{envelope}: the run's system {predicate.system.name} has no catalog name, so it "
            "cannot be made again by name"
        )
    given = dict(option.partition("=")[::2] for option in options)
    missing = [k for k, v in predicate.system.options.items() if v == WITHHELD and k not in given]
    if missing:
        raise ReproduceRefused(
            f"{envelope}: the run was made with option(s) {', '.join(missing)} withheld as "
            "secrets; give them again with --option KEY=VALUE"
        )
    if endpoint:
        say(
            f"{name} was reached over {predicate.system.transport}: an endpoint can only be "
            "re-measured, not reproduced (the service may have changed since)"
        )
    python = _environment(predicate.pipeline, repository, wheel, say)
    with tempfile.TemporaryDirectory(prefix="memrank-reproduce-") as folder:
        work = keep or Path(folder)
        work.mkdir(parents=True, exist_ok=True)
        run_file = work / "rerun.json"
        command = [
            str(python.with_name("memrank")),
            "run",
            name,
            *_evaluation_arguments(predicate.evaluation.name, predicate.evaluation.slice),
            "--save",
            str(run_file),
            "--progress" if progress else "--no-progress",
        ]
        for key, value in {**predicate.system.options, **given}.items():
            command += ["--option", f"{key}={value}"]
        say(f"rerun: {' '.join(command[1:3])} {' '.join(command[3:])}")
        _step(command, "the rerun", log=work / "rerun.log", exit_codes=(0, 7))
        files = _files_inside(python, run_file, work)
    return compare_rerun(run, files, endpoint=endpoint)


def compare_rerun(run: VerifiedRun, files: RunFiles, *, endpoint: bool) -> Reproduction:
    """The rerun's files against the signed run's digests, and, when they differ, the
    published scores read against the rerun's."""
    signed_result = run.statement.result_subject.digest.sha256
    signed_scores = run.statement.scores_subject.digest.sha256
    if (files.result_sha256, files.scores_sha256) == (signed_result, signed_scores):
        write_atomic(results_cache() / f"{files.result_sha256}.json", files.result)
        return Reproduction(run, files, True, endpoint, (), None, True)
    rerun_scores = read_scores(files.scores, source="the rerun's scores file")
    same_values = _columns(run.scores) == _columns(rerun_scores)
    rerun_run = orjson.loads(files.result)
    reading = paired(
        result_of_scores(run.scores, run.predicate),
        result_of_scores(rerun_scores, _predicate_of_rerun(run, rerun_run)),
    )
    cause = None
    if files.result_sha256 == signed_result:
        # One result file gives one scores file: the gap is no variation of the system.
        cause = (
            "the signed scores file is not the function of the signed result: the rerun made "
            f"the signed result file (sha256 {signed_result}) byte for byte, and its scores "
            f"file has sha256 {files.scores_sha256}, not the signed {signed_scores}"
        )
        reading = reading.model_copy(update={"rerun": None})
    return Reproduction(
        run, files, False, endpoint, _differing(run, rerun_run), reading, same_values, cause
    )


def _columns(scores: Scores) -> tuple[object, ...]:
    """What a scores file says of the tasks, without the digest of the result file it names."""
    return scores.task_ids, scores.groups, scores.categories, scores.measures


# -- the build ---------------------------------------------------------------------------------


def _environment(pipeline: PipelineRecord, repository: Path, wheel: Path | None, say: Say) -> Path:
    """The python of an environment holding the recorded build: made once, then kept."""
    uv = shutil.which("uv")
    if uv is None:
        raise ReproduceRefused("reproduce needs uv on PATH to make environments (pip install uv)")
    if wheel is None and (pipeline.git_commit is None or pipeline.dirty is not False):
        raise ReproduceRefused(
            "the run records no clean source commit (a build before builds were recorded, or "
            "a dirty tree); give the wheel it ran with: --wheel FILE"
        )
    pins = [d for d in pipeline.distributions if not d.startswith("memrank==")]
    if not pins:
        raise ReproduceRefused("the run records no installed distributions to recreate")
    recipe = "\n".join(
        [
            _RECIPE,
            pipeline.git_commit or "",
            pipeline.wheel_sha256 or "",
            pipeline.python or "",
            *pins,
        ]
    )
    if wheel is not None:
        recipe += "\n" + hashlib.sha256(wheel.read_bytes()).hexdigest()
    home = memrank_cache_dir() / "reproduce" / hashlib.sha256(recipe.encode()).hexdigest()[:24]
    python = home / "venv" / "bin" / "python"
    if (home / "ready").is_file():
        say(f"build: the environment of this build is cached ({home})")
        return python
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    if wheel is None:
        wheel = _build_wheel(pipeline, repository, home, uv, say)
    say(f"install: {len(pins)} distribution(s) pinned as recorded, into a fresh environment")
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    _step(
        [uv, "venv", "--quiet", "--python", pipeline.python or "python3", str(home / "venv")],
        "making the environment (is that Python installed here?)",
        env=env,
    )
    # Installed by a URL naming its sha256, as a publishing install is: the run records it.
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    requirement = f"memrank @ {wheel.resolve().as_uri()}#sha256={digest}"
    _step(
        [uv, "pip", "install", "--quiet", "--no-deps", "--python", str(python), requirement, *pins],
        "installing the recorded distributions (can each be had from the package index?)",
        env=env,
    )
    code = orjson.loads(
        _step([str(python), "-I", "-c", _CODE_HASH], "reading the installed code hash")
    )
    if code != pipeline.code_sha256:
        raise ReproduceRefused(
            f"the rebuilt memrank has code hash {code}, the run records {pipeline.code_sha256}; "
            "the wheel is not the build that ran"
        )
    write_atomic(home / "ready", b"made\n")
    return python


_CODE_HASH = "import json; from memrank.provenance import pipeline; print(json.dumps(pipeline().code_sha256))"


def _build_wheel(pipeline: PipelineRecord, repository: Path, home: Path, uv: str, say: Say) -> Path:
    commit = pipeline.git_commit or ""
    known = subprocess.run(
        ["git", "-C", str(repository), "cat-file", "-e", f"{commit}^{{commit}}"],
        capture_output=True,
        timeout=60,
    )
    if known.returncode != 0:
        raise ReproduceRefused(
            f"commit {commit} is not in the repository at {repository}; fetch it "
            f"(git fetch origin {commit}) or give the wheel: --wheel FILE"
        )
    source = home / "source"
    say(f"build: the wheel of commit {commit[:12]}, from a worktree of {repository}")
    _step(["git", "-C", str(repository), "worktree", "add", "--detach", str(source), commit],
          "checking out the commit")  # fmt: skip
    try:
        _step([uv, "build", "--wheel", "--out-dir", str(home / "dist"), str(source)],
              "building the wheel")  # fmt: skip
    finally:
        subprocess.run(
            ["git", "-C", str(repository), "worktree", "remove", "--force", str(source)],
            capture_output=True,
            timeout=60,
        )
    (wheel,) = (home / "dist").glob("memrank-*.whl")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if pipeline.wheel_sha256 and digest != pipeline.wheel_sha256:
        say(
            f"note: the rebuilt wheel's sha256 is {digest[:16]}..., the run records "
            f"{pipeline.wheel_sha256[:16]}...; its code hash is checked next"
        )
    return wheel


# -- the rerun -------------------------------------------------------------------------------


def _evaluation_arguments(name: str, recorded_slice: str | None) -> list[str]:
    """How ``memrank run`` is told the recorded evaluation, slice and shard."""
    if recorded_slice is None:
        return [name]
    part, _, shard = recorded_slice.rpartition("shard ")
    part = part.rstrip(", ") if shard else recorded_slice
    arguments = [f"{name}:{part}" if part else name]
    return [*arguments, "--shard", shard] if shard else arguments


_FILES = """
import json, pathlib, sys
from memrank.artifacts import run_files
files = run_files(pathlib.Path(sys.argv[1]).read_bytes(), source=sys.argv[1])
print(json.dumps({name: getattr(files, name).decode() for name in sys.argv[2:]}))
"""
"""Told on standard output (ASCII JSON of each file's UTF-8 text), so that the rebuilt
memrank, whatever its version, writes no file: this memrank writes them, atomically."""


def _files_inside(python: Path, run_file: Path, work: Path) -> RunFiles:
    """The rerun's files as the rebuilt memrank makes them, kept in ``work`` too."""
    names = list(RunFiles.__dataclass_fields__)
    told = orjson.loads(
        _step([str(python), "-I", "-c", _FILES, str(run_file), *names], "splitting the rerun")
    )
    files = RunFiles(*(told[name].encode() for name in names))
    for name in names:
        write_atomic(work / f"{name}.json", getattr(files, name))
    return files


def _step(
    command: list[str],
    what: str,
    *,
    log: Path | None = None,
    env: dict[str, str] | None = None,
    exit_codes: tuple[int, ...] = (0,),
) -> str:
    """Run one step; its standard output (or, with ``log``, a file) is kept, and a failure is
    refused naming the step and the last lines it printed."""
    try:
        with open(log, "wb") if log else open(os.devnull, "wb") as sink:
            done = subprocess.run(
                command,
                stdout=sink if log else subprocess.PIPE,
                stderr=None if log else subprocess.PIPE,
                env=env,
                timeout=STEP_TIMEOUT_S,
            )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ReproduceRefused(f"{what} failed: {exc}") from None
    if done.returncode not in exit_codes:
        printed = (done.stderr or b"").decode(errors="replace").strip().splitlines()[-3:]
        where = f"; see {log}" if log else ""
        raise ReproduceRefused(
            f"{what} failed (exit {done.returncode}): {' / '.join(printed) or 'no message'}{where}"
        )
    return (done.stdout or b"").decode()


# -- the comparison --------------------------------------------------------------------------


def _predicate_of_rerun(run: VerifiedRun, rerun: dict[str, object]) -> RunPredicate:
    """The published predicate with the rerun's system and evaluation records."""
    return run.predicate.model_copy(
        update={
            "system": SystemRecord.model_validate(rerun["system"]),
            "evaluation": EvaluationRecord.model_validate(rerun["evaluation"]),
        }
    )


def _differing(run: VerifiedRun, rerun: dict[str, object]) -> tuple[str, ...]:
    """The predicate's fields (and the pipeline's) that the rerun states otherwise."""
    predicate = run.predicate.model_dump(mode="json")
    provenance = rerun.get("provenance")
    stated = {
        "system": rerun.get("system"),
        "evaluation": rerun.get("evaluation"),
        **(provenance if isinstance(provenance, dict) else {}),
    }
    fields = [
        name
        for name, value in stated.items()
        if name != "pipeline" and predicate.get(name, value) != value
    ]
    pipeline = stated.get("pipeline")
    if isinstance(pipeline, dict):
        fields += [
            f"pipeline.{key}"
            for key, value in pipeline.items()
            if predicate["pipeline"].get(key) != value
        ]
    return tuple(fields)
