"""Answer scores decided by a rule: Mem0's token-set F1 and BLEU-1, LoCoMo's stemmed F1.

Mem0 (``evaluation/metrics/utils.py`` at aae5989e, Apache-2.0): ``simple_tokenize`` lowercases
and turns ``. , ! ?`` into spaces; F1 is over token *sets*, 0 when either set is empty; BLEU-1
is NLTK's ``sentence_bleu`` with weights (1, 0, 0, 0) and smoothing method1 over
``word_tokenize`` of the stripped, lowercased texts (``calculate_metrics`` strips them
first), 0.0 when it raises. memrank tokenises with NLTK's
Treebank word tokenizer without the Punkt sentence split (its model is a download); the two
differ only where a full stop ends a sentence inside a multi-sentence answer.

LoCoMo (``task_eval/evaluation.py`` at 3eb6f2c5, CC BY-NC 4.0: described and reimplemented,
not copied): answers are lowercased, commas removed, punctuation removed, the words a, an,
the, and dropped, whitespace normalised, each token Porter-stemmed; F1 is over token
multisets. Category 1 (multi-hop) splits prediction and gold on commas and averages, over the
gold parts, the best F1 against any predicted part; categories 2 and 4 are plain F1; category
3 cuts the gold at its first ';'; category 5 (adversarial) scores 1 when the answer contains
"no information available" or "not mentioned", else 0.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nltk.stem import PorterStemmer

__all__ = ["bleu_1", "locomo_normalize", "locomo_score", "locomo_token_f1", "mem0_f1"]

_MEM0_PUNCTUATION = str.maketrans({".": " ", ",": " ", "!": " ", "?": " "})
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCTUATION = frozenset(string.punctuation)


def mem0_f1(prediction: str, reference: str) -> float:
    """Mem0's F1 over token sets (no stemming, no article removal)."""
    predicted = set(str(prediction).lower().translate(_MEM0_PUNCTUATION).split())
    gold = set(str(reference).lower().translate(_MEM0_PUNCTUATION).split())
    if not predicted or not gold:
        return 0.0
    common = len(predicted & gold)
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def bleu_1(prediction: str, reference: str) -> float:
    """Mem0's BLEU-1: NLTK sentence_bleu, unigram weights, smoothing method1; 0.0 on error."""
    from nltk.tokenize import word_tokenize
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    try:
        # Mem0's calculate_metrics strips both texts before its BLEU-1
        predicted = word_tokenize(str(prediction).strip().lower(), preserve_line=True)
        gold = word_tokenize(str(reference).strip().lower(), preserve_line=True)
        score = sentence_bleu(
            [gold],
            predicted,
            weights=(1, 0, 0, 0),
            smoothing_function=SmoothingFunction().method1,
        )
    except (ValueError, ZeroDivisionError):
        return 0.0
    return float(score)


def locomo_normalize(text: str) -> str:
    """LoCoMo's answer normalisation, before stemming."""
    text = str(text).replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def locomo_token_f1(prediction: str, reference: str) -> float:
    """F1 over Porter-stemmed token multisets of the normalised texts."""
    stem = _stemmer().stem
    predicted = [stem(w) for w in locomo_normalize(prediction).split()]
    gold = [stem(w) for w in locomo_normalize(reference).split()]
    same = sum((Counter(predicted) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def locomo_score(prediction: str, reference: str, category: str | None) -> float:
    """LoCoMo's per-category QA score of one answer."""
    if category == "5":
        lowered = prediction.lower()
        return float("no information available" in lowered or "not mentioned" in lowered)
    if category == "1":
        parts = [p.strip() for p in prediction.split(",")]
        golds = [g.strip() for g in reference.split(",")]
        return sum(max(locomo_token_f1(p, g) for p in parts) for g in golds) / len(golds)
    if category == "3":
        reference = reference.split(";")[0].strip()
    return locomo_token_f1(prediction, reference)


@cache
def _stemmer() -> PorterStemmer:
    from nltk.stem import PorterStemmer

    return PorterStemmer()
