"""The answer stage: a protocol's answer model reads what a memory recalled, within a budget.

For every task a memory or retriever answered by recalling, the recalled documents are cut to
the context budget (o200k_base tokens, rank order, whole documents), rendered into the
protocol's pinned answer prompt and sent to the answer model. The trace gains the answer and
an ``Answering`` record: protocol, prompt id and sha256, the request's sha256, the context's
sha256 and token count, which documents were sent and which cut, and the usage the endpoint
reported; its timings gain ``answer``. A model or assistant under test answered on its own and
is left as it is; a failed task stays failed. A failed answer call fails the task at step
``answer``, its recall kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from memrank._basics import elapsed_ms, tick
from memrank.answer.measures import answer_measures
from memrank.answer.names import SYSTEM_ANSWERS
from memrank.answer.protocols import Protocol, Rendered
from memrank.evaluation import Evaluation
from memrank.measure import Measure
from memrank.system import Document
from memrank.systems.models import CallParams, ChatModel
from memrank.task import Task
from memrank.tokenizer import TOKENIZER, TOKENIZER_SHA256, count_tokens
from memrank.trace import Answered, Answering, Failure, Step, Trace

__all__ = ["DEFAULT_BUDGET_TOKENS", "AnswerStage", "categories_of"]

DEFAULT_BUDGET_TOKENS = 5000
"""The context budget when none is given: the memrank seed's judged-run budget."""
_MESSAGE_CAP = 2000


def categories_of(tasks: Sequence[Task]) -> list[str]:
    """The tasks' category labels, sorted: what per-category means are taken over."""
    return sorted({t.category for t in tasks if t.category is not None})


@dataclass
class AnswerStage:
    """Answers recalled tasks with ``model`` under ``protocol``; optionally judges them."""

    protocol: Protocol
    model: ChatModel | None
    """The answer model; None when the system under test answers on its own."""
    budget_tokens: int | None = DEFAULT_BUDGET_TOKENS
    judge: ChatModel | None = None
    """The judge model; None leaves the protocol's judge out (rule measures still apply)."""
    passes: int = 1
    """Judge passes per answer; above 1 the spread over passes is reported."""
    seed: int | None = None
    """Sent with every answer and judge call where the API accepts a seed; recorded always."""
    _made: list[Measure] = field(default_factory=list, init=False, repr=False)

    def measures(self, evaluation: Evaluation) -> tuple[Measure, ...]:
        """The protocol's measures for this evaluation, made once (the judge keeps its cost)."""
        if not self._made:
            self._made.extend(
                answer_measures(
                    self.protocol,
                    categories_of(evaluation.tasks),
                    self.judge,
                    self.passes,
                    answerer=self.answerer,
                    seed=self.seed,
                )
            )
        return tuple(self._made)

    @property
    def made(self) -> tuple[Measure, ...]:
        """The measures made so far (none before ``measures`` is first called)."""
        return tuple(self._made)

    @property
    def answerer(self) -> str:
        """Who answers, as value names carry it: the answer model's spec, or ``system`` when
        the system under test answers on its own."""
        return self.model.spec if self.model is not None else SYSTEM_ANSWERS

    def answer(self, traces: Sequence[Trace]) -> list[Trace]:
        """Every trace, the recalled ones answered, in the order given."""
        workers = max(1, min(8, len(traces)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(self._one, traces))

    def fit(self, task: Task, recalled: Sequence[Document]) -> tuple[Rendered, int]:
        """The request for ``task`` with the longest rank-order prefix of ``recalled`` whose
        rendered context (layout, separators and names as sent) fits the budget, and how many
        documents that prefix holds. Counted on the rendering itself, so it never exceeds."""
        render = self.protocol.render
        if self.budget_tokens is None:
            return render(task, recalled), len(recalled)
        best, low, high = render(task, ()), 0, len(recalled)
        while low < high:  # the largest prefix that fits: a prefix only grows as it lengthens
            middle = (low + high + 1) // 2
            candidate = render(task, recalled[:middle])
            if count_tokens(candidate.context) <= self.budget_tokens:
                best, low = candidate, middle
            else:
                high = middle - 1
        return best, low

    def _one(self, trace: Trace) -> Trace:
        model = self.model
        if (
            model is None
            or trace.error is not None
            or trace.answered is not None
            or trace.recalled is None
        ):
            return trace
        protocol = self.protocol
        recalled = trace.recalled.documents
        clock = tick()
        try:
            rendered, held = self.fit(trace.task, recalled)
            completion = model.chat(rendered.messages, self.params(protocol.answer_params))
        except Exception as exc:  # noqa: BLE001 - a failed answer is recorded on its task
            message = str(exc) or type(exc).__name__
            failure = Failure(
                step=Step.ANSWER, message=message[:_MESSAGE_CAP], type=type(exc).__name__
            )
            return trace.model_copy(update={"error": failure})
        took = elapsed_ms(clock)
        kept, cut = recalled[:held], recalled[held:]
        answering = Answering(
            protocol=protocol.id,
            protocol_sha256=protocol.fingerprint(),
            model=model.spec,
            reported_model=completion.model,
            prompt_id=rendered.prompt.id,
            prompt_sha256=rendered.prompt.sha256,
            request_sha256=completion.request_sha256,
            seed=self.seed,
            tokenizer=TOKENIZER,
            tokenizer_sha256=TOKENIZER_SHA256,
            budget_tokens=self.budget_tokens,
            context_tokens=count_tokens(rendered.context),
            context_sha256=hashlib.sha256(rendered.context.encode()).hexdigest(),
            documents_sent=tuple(d.id for d in kept),
            documents_cut=tuple(d.id for d in cut),
            usage=completion.usage(),
        )
        return trace.model_copy(
            update={
                "answered": Answered(text=completion.text, answering=answering),
                "timings_ms": {**trace.timings_ms, "answer": took},
            }
        )

    def params(self, params: CallParams) -> CallParams:
        """A protocol's parameters with the run's seed (sent where the API accepts one)."""
        return params if self.seed is None else replace(params, seed=self.seed)
