"""The answer measures: the judge (decided by a model) and the rule scores (decided by a rule).

Every value name carries the protocol and who answered, and the judge's also the judge model
(``names.py``), so values from different protocols, answer models or judges are different
columns and are never ranked as one. ``judged_name`` reads such a name back.
A task the protocol leaves out (Mem0 skips LoCoMo's category 5), a task with no answer or no
reference answer, and a malformed verdict are None with the reason; never 0, never WRONG.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from memrank.answer.names import SYSTEM_ANSWERS, answer_name
from memrank.answer.protocols import Protocol
from memrank.answer.rules import bleu_1, locomo_score, mem0_f1
from memrank.answer.usage import CallAccount, Usage
from memrank.answer.verdicts import READERS, Verdict
from memrank.measure import Decider, Measure, Scope, Value
from memrank.measures.code_rules import InstructionsFollowed
from memrank.measures.means import Means
from memrank.systems.models import ChatModel
from memrank.task import Task
from memrank.trace import Trace

__all__ = [
    "AnswerMeans",
    "Judge",
    "JudgeAccount",
    "RuleScore",
    "answer_measures",
]


class _AnswerScore(Measure):
    """What the judge and the rules share: which tasks get a score, and why the others do not."""

    scope = Scope.TASK
    reads = ("answered",)

    def __init__(self, protocol: Protocol, answerer: str) -> None:
        self.protocol = protocol
        self.answerer = answerer

    def _undecided(self, trace: Trace, *, needs_gold: bool) -> str | None:
        task = trace.task
        if task.category in self.protocol.skips:
            return f"{self.protocol.id} leaves category {task.category} out of every score"
        if trace.answered is None:
            return "no answer to score: the run had no answer stage"
        if needs_gold and not task.expected.answers:
            return "the task has no reference answer"
        return None

    def _none(self, task: Task, why: str) -> Value:
        return Value(measure=self.name, decider=self.decider, task_id=task.id, value=None, why=why)


_RULES: dict[str, Callable[[str, str, str | None], float]] = {
    "answer-f1": lambda answer, gold, _: mem0_f1(answer, gold),
    "bleu-1": lambda answer, gold, _: bleu_1(answer, gold),
    "locomo-f1": locomo_score,
}
_RULE_WHY = {
    "answer-f1": "Mem0's token-set F1 against the reference answer",
    "bleu-1": "Mem0's BLEU-1 (NLTK, smoothing method1) against the reference answer",
    "locomo-f1": "LoCoMo's stemmed F1 with its rule for category {category}",
}


class RuleScore(_AnswerScore):
    """One of the protocol's rule scores of the answer against the reference."""

    decider = Decider.RULE

    def __init__(self, protocol: Protocol, rule: str, answerer: str) -> None:
        super().__init__(protocol, answerer)
        self.rule = rule
        self.name = answer_name(rule, protocol.id, answerer)  # type: ignore[misc]

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        produced = []
        for trace in traces:
            # LoCoMo's adversarial rule reads the answer alone; every other rule needs gold.
            needs_gold = not (self.rule == "locomo-f1" and trace.task.category == "5")
            why = self._undecided(trace, needs_gold=needs_gold)
            if why is not None:
                produced.append(self._none(trace.task, why))
                continue
            assert trace.answered is not None
            gold = trace.task.expected.answers[0] if trace.task.expected.answers else ""
            score = _RULES[self.rule](trace.answered.text, gold, trace.task.category)
            produced.append(
                Value(
                    measure=self.name,
                    decider=self.decider,
                    task_id=trace.task.id,
                    value=score,
                    why=_RULE_WHY[self.rule].format(category=trace.task.category),
                )
            )
        return produced


def _rule(protocol: Protocol, rule: str, answerer: str) -> Measure:
    """A rule measure under its answer-measure name; MemoryCode's checks read the task's rules,
    not a gold answer."""
    if rule == InstructionsFollowed.name:
        followed = InstructionsFollowed()
        followed.name = answer_name(rule, protocol.id, answerer)  # type: ignore[misc]
        return followed
    return RuleScore(protocol, rule, answerer)


class Judge(_AnswerScore):
    """The protocol's judge model scores each answer: correct (1) or not (0), or on a graded
    scale (Mem-Gallery's 0, 0.5, 1)."""

    decider = Decider.MODEL

    def __init__(
        self,
        protocol: Protocol,
        judge: ChatModel,
        passes: int = 1,
        *,
        answerer: str,
        seed: int | None = None,
    ) -> None:
        super().__init__(protocol, answerer)
        if protocol.judge is None:
            raise ValueError(f"protocol {protocol.id} has no judge")
        self.step = protocol.judge
        self.params = (
            protocol.judge.params if seed is None else replace(protocol.judge.params, seed=seed)
        )
        self.judge, self.passes, self.seed = judge, passes, seed
        self.name = answer_name("judge", protocol.id, answerer, judge.spec)  # type: ignore[misc]
        self.produces = (  # type: ignore[misc]
            self.name,
            *(f"{self.name}.pass-{i}" for i in range(1, passes + 1) if passes > 1),
        )
        # every pass of a binary judge is 0 or 1; the per-task mean over several passes is not
        binary = self.produces[1:] if passes > 1 else (self.name,)
        self.binary = binary if self.step.binary else ()  # type: ignore[misc]
        self.account = CallAccount()

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        with ThreadPoolExecutor(max_workers=max(1, min(8, len(traces)))) as pool:
            per_task = list(pool.map(self._judge, traces))
        return [value for values_of_task in per_task for value in values_of_task]

    def _judge(self, trace: Trace) -> list[Value]:
        why = self._undecided(trace, needs_gold=True)
        if why is not None:
            return [
                Value(
                    measure=name, decider=self.decider, task_id=trace.task.id, value=None, why=why
                )
                for name in self.produces
            ]
        assert trace.answered is not None
        verdicts = [self._ask(trace, replica) for replica in range(self.passes)]
        decided = [value for value, _ in verdicts if value is not None]
        first_why = verdicts[0][1]
        if not decided:
            head = self._none(trace.task, first_why)
        else:
            mean = sum(decided) / len(decided)
            if self.passes == 1:
                why = first_why
            elif self.step.binary:
                why = (
                    f"{int(sum(decided))} of {len(decided)} decided pass(es) correct; "
                    f"first verdict: {first_why}"
                )
            else:
                why = f"mean of {len(decided)} decided pass(es); first verdict: {first_why}"
            head = Value(
                measure=self.name, decider=self.decider, task_id=trace.task.id, value=mean, why=why
            )
        passes = [
            Value(measure=name, decider=self.decider, task_id=trace.task.id, value=value, why=why)
            for name, (value, why) in zip(self.produces[1:], verdicts, strict=False)
        ]
        return [head, *passes]

    def _ask(self, trace: Trace, replica: int) -> Verdict:
        assert trace.answered is not None
        task = trace.task
        try:
            _, messages = self.protocol.judge_messages(
                task, task.expected.answers[0], trace.answered.text
            )
            completion = self.judge.chat(messages, self.params, replica)
        except Exception as exc:  # noqa: BLE001 - a judge that fails leaves the task undecided
            failure = f"the judge call failed: {type(exc).__name__}: {exc}"
            self.account.fail(failure)
            return None, failure
        self.account.add(
            completion.input_tokens,
            completion.output_tokens,
            completion.cost_usd,
            completion.cached,
            completion.model,
        )
        return READERS[self.step.reader](completion.text)


class JudgeAccount(Measure):
    """The judge's record for the run: the model, the prompt pins, the calls and their cost;
    with several passes also the spread (standard deviation) of the per-pass mean."""

    scope, decider = Scope.RUN, Decider.MODEL

    def __init__(self, judge: Judge) -> None:
        self.of = judge
        self.name = f"{judge.name}.calls"  # type: ignore[misc]
        self.reads = judge.produces  # type: ignore[misc]
        self.produces = (  # type: ignore[misc]
            self.name,
            *((f"{judge.name}.sd",) if judge.passes > 1 else ()),
        )

    def measure(self, traces: Sequence[Trace], values: Sequence[Value]) -> list[Value]:
        from memrank.answer.prompts import pins

        judge, account = self.of, self.of.account
        prompts = ", ".join(
            f"{p} sha256 {pins()[p].sha256}" for p in judge.protocol.judge_prompt_ids()
        )
        cost = (
            "unknown (no price for this model)"
            if account.cost_usd is None
            else (f"${account.cost_usd:.4f}")
        )
        why = (
            f"judge {judge.judge.spec} (reported: {', '.join(sorted(account.models)) or 'none'}); "
            f"protocol {judge.protocol.id} sha256 {judge.protocol.fingerprint()}; prompts {prompts}; "
            f"seed {judge.seed}; "
            f"{account.calls} call(s), {account.cached} from the response cache, "
            f"{account.failures} failed; tokens in "
            f"{account.input_tokens}, out {account.output_tokens}; cost {cost}"
        )
        produced = [
            Value(measure=self.name, decider=self.decider, value=float(account.calls), why=why)
        ]
        if judge.passes > 1:
            produced.append(self._spread(judge, values))
        return produced

    def _spread(self, judge: Judge, values: Sequence[Value]) -> Value:
        means = []
        for name in judge.produces[1:]:
            decided = [v.value for v in values if v.measure == name and v.value is not None]
            if decided:
                means.append(sum(decided) / len(decided))
        name = f"{judge.name}.sd"
        if len(means) < 2:
            return Value(
                measure=name,
                decider=self.decider,
                value=None,
                why="fewer than two passes decided anything: no spread",
            )
        return Value(
            measure=name,
            decider=self.decider,
            value=statistics.stdev(means),
            why=f"sample standard deviation of the mean over {len(means)} judge passes "
            f"(pass means {', '.join(f'{m:.4f}' for m in means)})",
        )


class AnswerMeans(Means):
    """Means of answer measures, overall and per category, decided as their values were."""

    def __init__(self, names: Sequence[str], categories: Sequence[str], decider: Decider) -> None:
        super().__init__(categories)
        self.name = f"{names[0]}.means" if len(names) == 1 else "answer-means"  # type: ignore[misc]
        self.of = self.by_category = self.reads = tuple(names)  # type: ignore[misc]
        self.decider = decider  # type: ignore[misc]


def answer_measures(
    protocol: Protocol,
    categories: Sequence[str],
    judge: ChatModel | None,
    passes: int = 1,
    *,
    answerer: str,
    seed: int | None = None,
    rules: bool = True,
) -> list[Measure]:
    """The protocol's measures: its rule scores (unless ``rules`` is False), the judge when one
    is given, and their means overall and per category. ``answerer`` is who answered (the
    answer model's spec, or ``system``): every value name carries it."""
    measures: list[Measure] = []
    if rules and protocol.rules:
        scores = [_rule(protocol, rule, answerer) for rule in protocol.rules]
        measures.extend(scores)
        measures.append(AnswerMeans([m.name for m in scores], categories, Decider.RULE))
    judged = None
    if judge is not None and protocol.judge is not None:
        judged = Judge(protocol, judge, passes, answerer=answerer, seed=seed)
        measures.append(judged)
        measures.append(AnswerMeans([judged.name], categories, Decider.MODEL))
        measures.append(JudgeAccount(judged))
    if answerer != SYSTEM_ANSWERS or judged is not None:
        measures.append(Usage(judged.account if judged else None))
    return measures
