"""instructions-followed: MemoryCode's regex checks over the code an answer stage writes.

A MemoryCode task lists every coding instruction in force (``metadata["instructions"]``: the
kind of object each checks and its rule). When the system answered (an answer stage wrote
code), each rule is checked over that code (``code_objects.follows``) and the task's value is
the share of the rules that apply which it follows, as MemoryCode scores one output; rules
whose objects the code does not define do not apply. Decided by rule: no model judges. A
memory alone writes no code: memrank refuses to apply this measure to its run.
"""

from __future__ import annotations

from collections.abc import Sequence

from memrank.measure import Decider, Measure, Scope, Value
from memrank.measures.code_objects import code_of, follows, objects_of
from memrank.trace import Trace

__all__ = ["InstructionsFollowed"]


class InstructionsFollowed(Measure):
    """The share of the applicable instructions in force that the written code follows."""

    name, scope, reads, decider = (
        "instructions-followed",
        Scope.TASK,
        ("answered",),
        Decider.RULE,
    )

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        return [self._one(trace) for trace in traces]

    def _one(self, trace: Trace) -> Value:
        rules = trace.task.metadata.get("instructions", ())
        if not rules:
            return self._value(trace, None, "the task states no instructions to check")
        # memrank refuses this measure on a run that answers nothing (a memory's), so an
        # answer is always there; an empty one defines no object, and no rule applies.
        written = trace.answered.text if trace.answered else ""
        try:
            objects = objects_of(code_of(written))
        except SyntaxError as exc:
            return self._value(trace, 0.0, f"the code does not parse ({exc.msg}): no rule followed")
        checked = [(rule, follows(objects, rule["object"], rule["rule"])) for rule in rules]
        applicable = [(rule, score) for rule, score in checked if score is not None]
        if not applicable:
            return self._value(
                trace,
                None,
                f"none of the {len(rules)} rules applies: the code defines none of their objects",
            )
        missed = [f"{r['object']} {r['rule']!r}" for r, score in applicable if not score]
        followed = len(applicable) - len(missed)
        why = f"{followed} of {len(applicable)} applicable rule(s) followed ({len(rules)} in force)"
        if missed:
            why += "; not followed: " + ", ".join(missed)
        return self._value(trace, followed / len(applicable), why)

    def _value(self, trace: Trace, value: float | None, why: str) -> Value:
        return Value(
            measure=self.name, decider=self.decider, task_id=trace.task.id, value=value, why=why
        )
