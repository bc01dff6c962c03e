"""Protocols: named, versioned bundles of answer prompt, judge prompt, models, parameters, scoring.

A protocol is what a judged number means. Its prompts are pinned texts (``prompts.py``), its
parameters are the source's, and its id (``mem0@v1``) labels every value it produces, so runs
under different protocols are never read as one column. ``fingerprint`` hashes the whole
bundle (prompt hashes, parameters, default models, scoring) for the record.

- ``mem0@v1``: Mem0's paper evaluation. Answer prompt as a system message, temperature 0;
  judge gpt-4o-mini, temperature 0, JSON mode, label CORRECT/WRONG; J, F1 and BLEU-1 as Mem0
  computes them; LoCoMo category 5 is skipped, as Mem0 skips it.
- ``locomo@v1``: LoCoMo's own QA metric (stemmed F1 with per-category rules), decided by a rule;
  answer with max_tokens 32 and temperature 0 as LoCoMo did, with memrank's own prompt text.
- ``longmemeval@v1``: LongMemEval's reader prompt (temperature 0, max_tokens 500) and its judge:
  five templates by question type, an ``_abs`` id overriding the type; gpt-4o-2024-08-06,
  temperature 0, max_tokens 10; yes when the reply contains "yes".
- ``aml@v1``: the Agent Memory Leaderboard's answer and judge prompts. **Unverified**: the texts
  do not ship (licence not seen) and their pins come from participants' copies.
- ``memorycode@v1``: MemoryCode's retrieval path: its preamble as a system message, its prompt
  with the recalled sessions in dialogue order; the answer model writes code, and upstream's
  regex checks (``instructions-followed``) decide.
- ``mem-gallery@v1``: Mem-Gallery's caption (text-memory) path: its system prompt, then the
  recalled rounds as its numbered memories and the question with its type's format constraint;
  images are read as their captions (the answer model is text-only). Its judge grades 0 to 1 in
  quarters (temperature 0), read as upstream reads it: 0.25 counts 0.5, 0.75 counts 1.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from typing import Literal

from memrank.answer.layouts import (
    aml_slots,
    locomo_slots,
    longmemeval_slots,
    mem0_slots,
    mem_gallery_question,
    mem_gallery_slots,
    memorycode_slots,
)
from memrank.answer.prompts import Prompt, prompt
from memrank.errors import UsageError
from memrank.system import Document, text_of
from memrank.systems.models import CallParams, Message
from memrank.task import Task

__all__ = ["PROTOCOLS", "JudgeStep", "Protocol", "Rendered", "protocol"]

Role = Literal["system", "user"]


@dataclass(frozen=True)
class JudgeStep:
    """How a protocol's judge is asked and read."""

    prompts: tuple[str, ...]
    """Every judge prompt id it may send; the first, unless ``prompt_of`` picks one."""
    params: CallParams
    model: str
    """The judge the source used, as a model spec."""
    reader: str
    """The verdict reader (``verdicts.READERS``)."""
    slots: tuple[str, str, str]
    """The names the prompt gives the question, the gold answer and the generated answer."""
    binary: bool = True
    """Every verdict is 0 or 1 (False for a graded judge: Mem-Gallery's 0, 0.5, 1)."""
    question_of: Callable[[Task], str] | None = None
    """The question as the judge reads it; None for the task's prompt as text."""
    prompt_of: Callable[[Task], str] | None = None
    """The judge prompt id for a task, where there are several (LongMemEval picks by question
    type)."""

    def prompt_for(self, task: Task) -> str:
        """The judge prompt id to send for ``task``."""
        return self.prompts[0] if self.prompt_of is None else self.prompt_of(task)


@dataclass(frozen=True)
class Rendered:
    """One answer request as it will be sent, and the part of it the budget counts."""

    prompt: Prompt
    messages: list[Message]
    context: str
    """The rendered span that carries the recalled documents, layout and names included:
    from the first context slot's value to the last one's, exactly as it appears in the
    message (what the token budget bounds)."""


@dataclass(frozen=True)
class Protocol:
    """One way of turning recalled documents into an answer and the answer into a score."""

    name: str
    version: str
    answer_prompt: str
    answer_role: Role
    answer_params: CallParams
    answer_model: str
    """The answer model the source used (or memrank's default where it is private)."""
    slots: Callable[[Task, Sequence[Document], Prompt], dict[str, str]]
    """The answer prompt's slot values from the task and the documents kept."""
    context: tuple[str, ...]
    """The slots that carry recalled material (memories, speaker names, history): the
    rendered span from the first to the last of them is what the token budget counts."""
    judge: JudgeStep | None
    rules: tuple[str, ...]
    """Rule measures: ``answer-f1``, ``bleu-1`` (Mem0's), ``locomo-f1``."""
    preamble: str | None = None
    """A prompt sent as a system message before the answer prompt (MemoryCode's), rendered
    from the same slots; None for one message."""
    skips: frozenset[str] = frozenset()
    """Task categories the source leaves out of every score."""
    verified: bool = True
    """False while the prompt bytes are not checked against the source itself."""
    inserts: tuple[str, ...] = ()
    """Pinned texts the slots put into the answer prompt (Mem-Gallery's format constraints and
    its question-image line)."""

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    def prompt_ids(self) -> tuple[str, ...]:
        """Every prompt id the protocol may send."""
        preamble = (self.preamble,) if self.preamble else ()
        return (self.answer_prompt, *preamble, *self.inserts, *self.judge_prompt_ids())

    def judge_prompt_ids(self) -> tuple[str, ...]:
        """The prompt ids its judge may send."""
        return () if self.judge is None else self.judge.prompts

    def fingerprint(self) -> str:
        """sha256 over the bundle: prompt pins, parameters, default models, scoring."""
        from memrank.answer.prompts import pins

        record = {
            "id": self.id,
            "prompts": {p: pins()[p].sha256 for p in self.prompt_ids()},
            "answer": [self.answer_role, asdict(self.answer_params), self.answer_model],
            "judge": None
            if self.judge is None
            else [asdict(self.judge.params), self.judge.model, self.judge.reader],
            "rules": list(self.rules),
            "skips": sorted(self.skips),
        }
        return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()

    def render(self, task: Task, kept: Sequence[Document]) -> Rendered:
        """The answer prompt, the exact messages sent for one task, and their context span."""
        template = prompt(self.answer_prompt)
        slots = self.slots(task, kept, template)
        text, spans = template.render_spans(**slots)
        placed = [spans[name] for name in self.context if name in spans]
        context = text[min(s for s, _ in placed) : max(e for _, e in placed)] if placed else ""
        messages = [Message(role=self.answer_role, content=text)]
        if self.preamble is not None:
            messages.insert(
                0, Message(role="system", content=prompt(self.preamble).render(**slots))
            )
        return Rendered(template, messages, context)

    def judge_messages(self, task: Task, gold: str, answer: str) -> tuple[Prompt, list[Message]]:
        """The judge prompt and the exact messages sent for one answer."""
        assert self.judge is not None
        template = prompt(self.judge.prompt_for(task))
        question, gold_slot, answer_slot = self.judge.slots
        asked = self.judge.question_of(task) if self.judge.question_of else text_of(task.prompt)
        text = template.render(**{question: asked, gold_slot: gold, answer_slot: answer})
        return template, [Message(role="user", content=text)]


_LME_TEMPLATES = {
    "single-session-user": "longmemeval-judge-default",
    "single-session-assistant": "longmemeval-judge-default",
    "multi-session": "longmemeval-judge-default",
    "temporal-reasoning": "longmemeval-judge-temporal-reasoning",
    "knowledge-update": "longmemeval-judge-knowledge-update",
    "single-session-preference": "longmemeval-judge-single-session-preference",
}


def _lme_judge_prompt(task: Task) -> str:
    if "_abs" in task.id:
        return "longmemeval-judge-abstention"
    template = _LME_TEMPLATES.get(task.category or "")
    if template is None:
        raise UsageError(
            f"task {task.id}: LongMemEval has no judge template for question type "
            f"{task.category!r}; it knows {', '.join(sorted(_LME_TEMPLATES))}"
        )
    return template


_MINI = "openai:gpt-4o-mini"

PROTOCOLS: dict[str, Protocol] = {
    p.name: p
    for p in (
        Protocol(
            name="mem0",
            version="v1",
            answer_prompt="mem0-answer",
            answer_role="system",
            answer_params=CallParams(temperature=0.0),
            answer_model=_MINI,
            slots=mem0_slots,
            context=(
                "speaker_1_user_id",
                "speaker_1_memories",
                "speaker_2_user_id",
                "speaker_2_memories",
            ),
            judge=JudgeStep(
                prompts=("mem0-judge",),
                params=CallParams(temperature=0.0, json_object=True),
                model=_MINI,
                reader="json-label",
                slots=("question", "gold_answer", "generated_answer"),
            ),
            rules=("answer-f1", "bleu-1"),
            skips=frozenset({"5"}),
        ),
        Protocol(
            name="locomo",
            version="v1",
            answer_prompt="memrank-locomo-answer",
            answer_role="user",
            answer_params=CallParams(temperature=0.0, max_tokens=32),
            answer_model=_MINI,
            slots=locomo_slots,
            context=("context",),
            judge=None,
            rules=("locomo-f1",),
        ),
        Protocol(
            name="longmemeval",
            version="v1",
            answer_prompt="longmemeval-answer",
            answer_role="user",
            answer_params=CallParams(temperature=0.0, max_tokens=500),
            answer_model=_MINI,
            slots=longmemeval_slots,
            context=("history",),
            judge=JudgeStep(
                prompts=(*sorted(set(_LME_TEMPLATES.values())), "longmemeval-judge-abstention"),
                params=CallParams(temperature=0.0, max_tokens=10),
                model="openai:gpt-4o-2024-08-06",
                reader="yes-no",
                slots=("question", "answer", "response"),
                prompt_of=_lme_judge_prompt,
            ),
            rules=(),
        ),
        Protocol(
            name="aml",
            version="v1",
            answer_prompt="aml-answer",
            answer_role="user",
            answer_params=CallParams(temperature=0.0),
            answer_model=_MINI,
            slots=aml_slots,
            context=(
                "speaker_1_name",
                "speaker_1_memories",
                "speaker_2_name",
                "speaker_2_memories",
            ),
            judge=JudgeStep(
                prompts=("aml-judge",),
                params=CallParams(temperature=0.0, max_tokens=1024),
                model=_MINI,
                reader="aml-label",
                slots=("question", "gold_answer", "generated_answer"),
            ),
            rules=(),
            verified=False,
        ),
        Protocol(
            name="memorycode",
            version="v1",
            answer_prompt="memorycode-answer",
            answer_role="user",
            # MemoryCode's OpenAI path sends model and messages only (no temperature)
            answer_params=CallParams(temperature=None),
            answer_model="openai:gpt-4o",
            slots=memorycode_slots,
            context=("session",),
            judge=None,
            rules=("instructions-followed",),
            preamble="memorycode-preamble",
        ),
        Protocol(
            name="mem-gallery",
            version="v1",
            answer_prompt="mem-gallery-answer",
            answer_role="user",
            # run_bench.py sends temperature 0.0 (and its seed to Qwen models only)
            answer_params=CallParams(temperature=0.0),
            answer_model=_MINI,  # one of run_bench.py's backbones (through OpenRouter)
            slots=mem_gallery_slots,
            context=("memory_context",),
            judge=JudgeStep(
                prompts=("mem-gallery-judge",),
                params=CallParams(temperature=0.0),
                # DefaultEvalConfig.py: Qwen2.5-VL-7B-Instruct served by vLLM on 127.0.0.1:8000
                model="openai-compatible:http://127.0.0.1:8000/v1:Qwen2.5-VL-7B-Instruct",
                reader="mem-gallery-score",
                slots=("question", "ground_truth", "model_output"),
                binary=False,
                question_of=lambda task: mem_gallery_question(task)[0],
            ),
            rules=(),
            preamble="mem-gallery-system",
            inserts=(
                "mem-gallery-ar",
                "mem-gallery-cd",
                "mem-gallery-vs",
                "mem-gallery-question-image",
            ),
        ),
    )
}


@cache
def protocol(name: str) -> Protocol:
    """The protocol named ``name`` (``mem0``) or ``name@version`` (``mem0@v1``)."""
    base, _, version = name.partition("@")
    found = PROTOCOLS.get(base)
    if found is None or (version and version != found.version):
        known = ", ".join(p.id for p in PROTOCOLS.values())
        raise UsageError(f"no answer protocol {name!r}; known: {known}")
    return found
