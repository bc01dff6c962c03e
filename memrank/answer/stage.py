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
import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from memrank._clock import elapsed_ms, tick
from memrank.answer.measures import answer_measures
from memrank.answer.protocols import Protocol
from memrank.answer.tokens import TOKENIZER, TOKENIZER_SHA256, count_tokens
from memrank.budget import Budget, cut_to_budget
from memrank.evaluation import Evaluation, Task
from memrank.measure import Measure
from memrank.systems.models import ChatModel
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
    _made: list[Measure] = field(default_factory=list, init=False, repr=False)

    def measures(self, evaluation: Evaluation) -> tuple[Measure, ...]:
        """The protocol's measures for this evaluation, made once (the judge keeps its cost)."""
        if not self._made:
            self._made.extend(
                answer_measures(
                    self.protocol, categories_of(evaluation.tasks), self.judge, self.passes
                )
            )
        return tuple(self._made)

    def _budget(self) -> Budget:
        if self.budget_tokens is None:
            return Budget.uncapped("the answer stage was given no context budget")
        return Budget.tokens(self.budget_tokens, "o200k")

    def answer(self, traces: Sequence[Trace]) -> list[Trace]:
        """Every trace, the recalled ones answered, in the order given."""
        workers = max(1, min(8, len(traces)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(self._one, traces))

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
        # Each document is counted as the context shows it, with the newline that joins it,
        # so the kept ones bound the joined context; the cut itself is memrank.budget's.
        recalled = trace.recalled.documents
        shown = [d.model_copy(update={"content": protocol.unit(d) + "\n"}) for d in recalled]
        held = cut_to_budget(shown, self._budget(), count_tokens)
        kept, cut = recalled[: len(held.kept)], recalled[len(held.kept) :]
        context = "\n".join(protocol.unit(d) for d in kept)
        clock = tick()
        try:
            template, messages = protocol.answer_messages(trace.task, kept)
            completion = model.chat(messages, protocol.answer_params)
        except Exception as exc:  # noqa: BLE001 - a failed answer is recorded on its task
            message = str(exc) or type(exc).__name__
            failure = Failure(
                step=Step.ANSWER, message=message[:_MESSAGE_CAP], type=type(exc).__name__
            )
            return trace.model_copy(update={"error": failure})
        took = elapsed_ms(clock)
        request = json.dumps([m.model_dump() for m in messages], ensure_ascii=False).encode()
        answering = Answering(
            protocol=protocol.id,
            protocol_sha256=protocol.fingerprint(),
            model=model.spec,
            reported_model=completion.model,
            prompt_id=template.id,
            prompt_sha256=template.sha256,
            request_sha256=hashlib.sha256(request).hexdigest(),
            tokenizer=TOKENIZER,
            tokenizer_sha256=TOKENIZER_SHA256,
            budget_tokens=self.budget_tokens,
            context_tokens=count_tokens(context),
            context_sha256=hashlib.sha256(context.encode()).hexdigest(),
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
