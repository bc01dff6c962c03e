"""The sweep workflow (.github/workflows/sweep.yml) as data: dispatched by hand, a shard matrix
that runs the same commands the shard tests run, a merge after every shard, least privilege,
and no secret ever printed or pasted into a script."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.runs.test_shards import MERGE_COMMAND, SHARD_COMMAND

WORKFLOWS = Path(__file__).parents[2] / ".github"


def _load(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    # YAML 1.1 reads the bare key `on` as True
    if True in loaded:
        loaded["on"] = loaded.pop(True)
    return loaded


@pytest.fixture(scope="module")
def sweep() -> dict[str, Any]:
    return _load(WORKFLOWS / "workflows" / "sweep.yml")


def _steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return list(job["steps"])


def _scripts(sweep: dict[str, Any]) -> list[str]:
    return [step["run"] for job in sweep["jobs"].values() for step in _steps(job) if "run" in step]


def _words(command: str) -> list[str]:
    """A command's words, each holding a {field} or a $VARIABLE read as a placeholder."""
    return ["X" if "{" in word or "$" in word else word for word in command.split()]


def test_it_is_dispatched_by_hand_only(sweep: dict[str, Any]) -> None:
    assert set(sweep["on"]) == {"workflow_dispatch"}
    inputs = sweep["on"]["workflow_dispatch"]["inputs"]
    assert {"system", "evaluation", "shards", "max_parallel", "release"} <= set(inputs)


def test_the_matrix_runs_every_shard_with_the_tested_command(sweep: dict[str, Any]) -> None:
    jobs = sweep["jobs"]
    shard = jobs["shard"]
    assert shard["needs"] == "plan"
    assert shard["strategy"]["matrix"]["index"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    assert shard["strategy"]["max-parallel"] == "${{ fromJSON(inputs.max_parallel) }}"
    assert shard["strategy"]["fail-fast"] is False
    (command,) = [s["run"] for s in _steps(shard) if "run" in s and "--shard" in s["run"]]
    assert _words(command)[: len(_words(SHARD_COMMAND))] == _words(SHARD_COMMAND)
    uploads = [s for s in _steps(shard) if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["with"]["name"] == "shard-${{ matrix.index }}"


def test_the_merge_needs_every_shard_and_runs_the_tested_command(sweep: dict[str, Any]) -> None:
    merge = sweep["jobs"]["merge"]
    assert merge["needs"] == "shard"
    (command,) = [s["run"] for s in _steps(merge) if "run" in s and "merge" in s["run"]]
    shards = MERGE_COMMAND.format(shards="shard-*.json", out="merged.json")
    assert command.startswith(shards)
    assert sweep["jobs"]["publish"]["needs"] == "merge"


def test_permissions_are_least_privilege(sweep: dict[str, Any]) -> None:
    assert sweep["permissions"] == {}
    jobs = sweep["jobs"]
    assert jobs["plan"]["permissions"] == {}
    assert jobs["shard"]["permissions"] == {"contents": "read"}
    assert jobs["merge"]["permissions"] == {"contents": "read"}
    assert jobs["publish"]["permissions"] == {"contents": "write", "pull-requests": "write"}
    # only the publishing job may reach the signing key, behind an environment a maintainer approves
    assert jobs["publish"]["environment"] == "release"
    for name, job in jobs.items():
        text = yaml.safe_dump(job)
        if name != "publish":
            assert "MEMRANK_SIGNING_KEY" not in text


def test_no_secret_or_input_is_pasted_into_a_script_or_printed(sweep: dict[str, Any]) -> None:
    # every workflow and local action: an expression in a script is a script injection
    workflows = [_load(p) for p in sorted((WORKFLOWS / "workflows").glob("*.yml"))]
    actions = [_load(p) for p in sorted((WORKFLOWS / "actions").glob("*/action.yml"))]
    scripts = [script for workflow in workflows for script in _scripts(workflow)] + [
        step["run"] for action in actions for step in action["runs"]["steps"] if "run" in step
    ]
    assert scripts
    for script in scripts:
        assert "${{" not in script, f"an expression pasted into a script:\n{script}"
        assert not re.search(r"(echo|printf|cat)\b[^\n]*(KEY|TOKEN|AUTH|SECRET)", script), script
    secrets_used = re.findall(
        r"secrets\.([A-Z_]+)", (WORKFLOWS / "workflows" / "sweep.yml").read_text()
    )
    assert "MEMRANK_SIGNING_KEY" in secrets_used


def test_local_actions_are_checked_out_before_use(sweep: dict[str, Any]) -> None:
    for name, job in sweep["jobs"].items():
        steps = _steps(job)
        uses = [s.get("uses", "") for s in steps]
        local = [i for i, u in enumerate(uses) if u.startswith("./")]
        if local:
            checkout = [i for i, u in enumerate(uses) if u.startswith("actions/checkout")]
            assert checkout and checkout[0] < local[0], name
            for u in uses:
                if u.startswith("./"):
                    assert (WORKFLOWS.parent / u / "action.yml").is_file(), u


def test_the_answer_model_judge_and_seed_reach_every_shard_and_the_merge(
    sweep: dict[str, Any],
) -> None:
    inputs = sweep["on"]["workflow_dispatch"]["inputs"]
    assert {"judge", "answer_model", "seed"} <= set(inputs)
    wanted = {
        "MEMRANK_JUDGE": "${{ inputs.judge }}",
        "MEMRANK_ANSWER_MODEL": "${{ inputs.answer_model }}",
        "MEMRANK_SEED": "${{ inputs.seed }}",
    }
    for job in ("shard", "merge"):
        (step,) = [s for s in _steps(sweep["jobs"][job]) if "run" in s and "memrank" in s["run"]]
        assert wanted.items() <= step["env"].items(), job
