"""MemoryCode's rule checks over written code, and instructions-followed over a run that wrote it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import memrank
from memrank import Assistant, Document
from memrank.errors import MeasureRefused
from memrank.evaluation import Evaluation
from memrank.measures import InstructionsFollowed
from memrank.measures.code_objects import code_of, follows, objects_of

_CODE = '''
import hashlib
from pedantic import require_kwargs, timer_class

@timer_class
class Graph1:
    def __init__(self, x_nodes):
        self.nodes_j = x_nodes
        self.size_j = 0

    @require_kwargs
    def shortest_path_md(self, start, end):
        """Dijkstra."""
        try:
            x_seen = set()
        except ValueError:
            raise
        return x_seen

def merge_lists(e_first, e_second) -> list:
    assert e_first is not None
    x_merged = e_first + e_second  # joined
    return x_merged
'''


@pytest.mark.parametrize(
    ("kind", "rule", "expected"),
    [
        ("method", ".*_md$", 1.0),
        ("method", "^a_.*", 0.0),
        ("variable", "^x_.*", 1.0),
        ("attribute", ".*_j$", 1.0),
        ("class", ".*\\d$", 1.0),
        ("class", "\\b[A-Z][A-Z0-9_]*\\b", 0.0),  # re.match from the start: 'G' then 'raph1'
        ("function argument", "^e_.*", 1.0),
        ("function", "^y_.*", 0.0),
        ("function assert", True, 1.0),
        ("function try", True, 0.0),
        ("method try", True, 1.0),
        ("method docstring", True, 1.0),
        ("function annotation", True, 1.0),
        ("method decorator", ["require_kwargs", True], 1.0),
        ("class decorator", ["timer_class", True], 1.0),
        ("function decorator", ["count_calls", True], 0.0),
        ("import", ["hashlib", True], 1.0),
        ("import", ["pedantic", True], 0.0),  # `from pedantic import` is not an import of it
        ("comment", True, 1.0),
    ],
)
def test_each_kind_of_rule(kind: str, rule: object, expected: float) -> None:
    assert follows(objects_of(_CODE), kind, rule) == expected


def test_a_rule_whose_objects_are_absent_does_not_apply() -> None:
    objects = objects_of("def f(a):\n    return a\n")
    assert follows(objects, "method", ".*_md$") is None
    assert follows(objects, "attribute", ".*_j$") is None
    assert follows(objects, "import", ["hashlib", True]) == 0.0  # imports are checked anyway


def test_the_code_is_the_first_fenced_block() -> None:
    answer = "Here:\n```python\nx_a = 1\n```\nand\n```python\ny = 2\n```"
    assert code_of(answer) == "x_a = 1\n"
    assert code_of("```\nz = 3\n```") == "\nz = 3\n"
    assert code_of("w = 4") == "w = 4"


class _Writer(Assistant):
    """Writes the same code whatever it is asked: a stand-in for an answer stage."""

    def __init__(self, code: str) -> None:
        self.code = code

    def respond(self, prompt: object, history: Sequence[Document]) -> str:
        return f"```python\n{self.code}```"


def _first_dialogue(shared_data: Path, *, written: bool = False) -> Evaluation:
    """The first dialogue's tasks; ``written``: measured by the rules alone, for a writer."""
    from memrank.evaluations import memorycode

    whole = memorycode("sessions-1", path=shared_data / "memorycode")
    update: dict[str, object] = {"tasks": whole.tasks[:2]}
    if written:
        update["measures"] = (InstructionsFollowed(),)
    return whole.model_copy(update=update)


def _followed(code: str, evaluation: Evaluation) -> list[memrank.Value]:
    result = memrank.run(_Writer(code), evaluation)
    return [v for v in result.values if v.measure == "instructions-followed"]


def test_instructions_followed_over_written_code(shared_data: Path) -> None:
    evaluation = _first_dialogue(shared_data, written=True)
    rules = [(r["object"], r["rule"]) for r in evaluation.tasks[0].metadata["instructions"]]
    assert rules == [("function argument", "^e_.*"), ("method decorator", ["require_kwargs", True])]
    good = "def dot(e_a, e_b):\n    return sum(x * y for x, y in zip(e_a, e_b))\n"
    values = _followed(good, evaluation)
    assert [v.value for v in values] == [1.0, 1.0]
    assert values[0].why == "1 of 1 applicable rule(s) followed (2 in force)"
    bad = "class Grades:\n    def average(self, a):\n        return a\n\ndef dot(a, b):\n    return 0\n"
    values = _followed(bad, evaluation)
    assert values[0].value == 0.0 and "not followed: function argument '^e_.*'" in values[0].why
    assert _followed("def (:", evaluation)[0].value == 0.0


def test_a_memory_writes_no_code_so_the_measure_is_refused(shared_data: Path) -> None:
    result = memrank.run(memrank.system("bm25"), _first_dialogue(shared_data))
    with pytest.raises(MeasureRefused, match="'instructions-followed' reads 'answered'"):
        memrank.measure(result, InstructionsFollowed())
