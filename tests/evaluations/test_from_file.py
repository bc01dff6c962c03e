"""Your own evaluation from a file: the example in examples/ runs by path, every error names
the file, line and field, the file's digest is the dataset bundle, and `evals check` says what
the file holds without running anything."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from memrank.catalog import evaluation
from memrank.errors import DatasetMalformed
from tests.runs.conftest import memrank_here

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "own-evaluation" / "my-eval.jsonl"


def test_the_example_runs_by_path_with_its_digest_as_the_bundle() -> None:
    made = evaluation(str(EXAMPLE))
    digest = hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
    assert made.dataset_bundle().sha256 == digest
    assert made.version == f"file@v1+{digest[:8]}"
    assert [unit.name for unit in made.units()] == ["dana"]
    assert all(len(task.context) == 3 for task in made.tasks)  # the group shares its documents

    outcome = memrank_here("run", "bm25", str(EXAMPLE), "--json")
    assert outcome.returncode == 0, outcome.stderr
    shown = json.loads(outcome.stdout)
    assert shown["headline"] == {"measure": "evidence-recall@10", "mean": 1.0}
    assert shown["tasks"] == 4 and shown["failed"] == 0

    checked = memrank_here("evals", "check", str(EXAMPLE))
    assert checked.returncode == 0
    assert "tasks:      4 in 1 group(s), 3 document(s)" in checked.stdout
    assert f"sha256:     {digest}" in checked.stdout


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        (['{"id": "a"}'], ":1: field 'question' (task 'a'): Field required"),
        (['{"id": "a", "question": "q"}', "{nope"], ":2: not a JSON object"),
        (
            ['{"id": "a", "question": "q", "evidence": ["d9"]}'],
            ":1: field 'evidence.0': no document 'd9' in the task's group",
        ),
        (
            ['{"id": "a", "question": "q"}', '{"id": "a", "question": "r"}'],
            ":2: field 'id': 'a' is also the id on line 1",
        ),
        (
            [
                '{"id": "a", "question": "q", "documents": [{"id": "d", "text": "t", "timestamp": "soon"}]}'
            ],
            ":1: field 'documents.0.timestamp'",
        ),
        (['{"id": "a", "question": "q", "colour": "red"}'], ":1: field 'colour' (task 'a')"),
    ],
)
def test_every_error_names_the_line_and_the_field(
    tmp_path: Path, lines: list[str], said: str
) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetMalformed) as raised:
        evaluation(str(path))
    assert f"{path}{said}" in raised.value.message
    checked = memrank_here("evals", "check", str(path))
    assert checked.returncode == 1 and said in checked.stderr and "Traceback" not in checked.stderr


def test_yaml_names_the_line_of_the_task_at_fault(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        "tasks:\n  - id: a\n    question: q\n  - id: b\n    question: 7x\n    group: [1]\n"
    )
    with pytest.raises(DatasetMalformed) as raised:
        evaluation(str(path))
    assert f"{path}:4: field 'group' (task 'b')" in raised.value.message
