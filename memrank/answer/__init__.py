"""The answer stage and the judge: recalled documents -> a pinned prompt -> an answer -> a score.

``AnswerStage`` answers a memory's recalled documents under a ``Protocol`` (``mem0``,
``locomo``, ``longmemeval``, ``aml``, ``memorycode``, ``mem-gallery``) within an o200k_base
token budget; the protocol's measures score the answers by rule (F1, BLEU-1, LoCoMo's category
rules, MemoryCode's checks) and by a judge model.
"""

from memrank.answer.cost import Estimate, estimate, spent
from memrank.answer.measures import (
    AnswerMeans,
    Judge,
    JudgeAccount,
    NotJudged,
    RuleScore,
    answer_measures,
)
from memrank.answer.names import SYSTEM_ANSWERS, AnswerName, answer_name, judged_name
from memrank.answer.prompts import Prompt, PromptPin, pins, prompt
from memrank.answer.protocols import PROTOCOLS, JudgeStep, Protocol, Rendered, protocol
from memrank.answer.stage import DEFAULT_BUDGET_TOKENS, AnswerStage
from memrank.answer.tokens import TOKENIZER, TOKENIZER_SHA256, count_tokens

__all__ = [
    "DEFAULT_BUDGET_TOKENS",
    "PROTOCOLS",
    "SYSTEM_ANSWERS",
    "TOKENIZER",
    "TOKENIZER_SHA256",
    "AnswerMeans",
    "AnswerName",
    "AnswerStage",
    "Estimate",
    "Judge",
    "JudgeAccount",
    "JudgeStep",
    "NotJudged",
    "Prompt",
    "PromptPin",
    "Protocol",
    "Rendered",
    "RuleScore",
    "answer_measures",
    "answer_name",
    "count_tokens",
    "estimate",
    "judged_name",
    "pins",
    "prompt",
    "protocol",
    "spent",
]
