"""An abstention task's word-match says why it is 1.0 in words, never "matched None in None"."""

from __future__ import annotations

import memrank
from memrank.systems import WordOverlap


def test_an_abstention_says_why_it_matched() -> None:
    demo = memrank.evaluation("demo")
    result = memrank.run(WordOverlap(), demo)
    abstaining = {task.id for task in demo.tasks if task.expected.abstain}
    whys = [v.why for v in result.values_of("word-match") if v.task_id in abstaining]
    assert whys and all("an abstention task" in why and "None" not in why for why in whys)
