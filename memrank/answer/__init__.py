"""The answer stage and the judge: recalled documents -> a pinned prompt -> an answer -> a score.

``AnswerStage`` answers a memory's recalled documents under a ``Protocol`` (``mem0``,
``locomo``, ``longmemeval``, ``aml``, ``memorycode``, ``mem-gallery``) within an o200k_base
token budget; the protocol's measures score the answers by rule (F1, BLEU-1, LoCoMo's category
rules, MemoryCode's checks) and by a judge model.

Names are imported on first use (PEP 562): a run without a judge reads ``NotJudged`` without
importing the model clients.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memrank._lazy import lazy_names

if TYPE_CHECKING:
    from memrank.answer.cost import Estimate as Estimate
    from memrank.answer.cost import estimate as estimate
    from memrank.answer.cost import spent as spent
    from memrank.answer.measures import AnswerMeans as AnswerMeans
    from memrank.answer.measures import Judge as Judge
    from memrank.answer.measures import JudgeAccount as JudgeAccount
    from memrank.answer.measures import RuleScore as RuleScore
    from memrank.answer.measures import answer_measures as answer_measures
    from memrank.answer.names import SYSTEM_ANSWERS as SYSTEM_ANSWERS
    from memrank.answer.names import AnswerName as AnswerName
    from memrank.answer.names import answer_name as answer_name
    from memrank.answer.names import judged_name as judged_name
    from memrank.answer.not_judged import NotJudged as NotJudged
    from memrank.answer.prompts import Prompt as Prompt
    from memrank.answer.prompts import PromptPin as PromptPin
    from memrank.answer.prompts import pins as pins
    from memrank.answer.prompts import prompt as prompt
    from memrank.answer.protocols import PROTOCOLS as PROTOCOLS
    from memrank.answer.protocols import JudgeStep as JudgeStep
    from memrank.answer.protocols import Protocol as Protocol
    from memrank.answer.protocols import Rendered as Rendered
    from memrank.answer.protocols import protocol as protocol
    from memrank.answer.stage import DEFAULT_BUDGET_TOKENS as DEFAULT_BUDGET_TOKENS
    from memrank.answer.stage import AnswerStage as AnswerStage
    from memrank.tokenizer import TOKENIZER as TOKENIZER
    from memrank.tokenizer import TOKENIZER_SHA256 as TOKENIZER_SHA256
    from memrank.tokenizer import count_tokens as count_tokens

_HOMES = {
    "AnswerMeans": "memrank.answer.measures",
    "AnswerName": "memrank.answer.names",
    "AnswerStage": "memrank.answer.stage",
    "DEFAULT_BUDGET_TOKENS": "memrank.answer.stage",
    "Estimate": "memrank.answer.cost",
    "Judge": "memrank.answer.measures",
    "JudgeAccount": "memrank.answer.measures",
    "JudgeStep": "memrank.answer.protocols",
    "NotJudged": "memrank.answer.not_judged",
    "PROTOCOLS": "memrank.answer.protocols",
    "Prompt": "memrank.answer.prompts",
    "PromptPin": "memrank.answer.prompts",
    "Protocol": "memrank.answer.protocols",
    "Rendered": "memrank.answer.protocols",
    "RuleScore": "memrank.answer.measures",
    "SYSTEM_ANSWERS": "memrank.answer.names",
    "TOKENIZER": "memrank.tokenizer",
    "TOKENIZER_SHA256": "memrank.tokenizer",
    "answer_measures": "memrank.answer.measures",
    "answer_name": "memrank.answer.names",
    "count_tokens": "memrank.tokenizer",
    "estimate": "memrank.answer.cost",
    "judged_name": "memrank.answer.names",
    "pins": "memrank.answer.prompts",
    "prompt": "memrank.answer.prompts",
    "protocol": "memrank.answer.protocols",
    "spent": "memrank.answer.cost",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
