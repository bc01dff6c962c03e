"""The rule measures against worked examples, each worked by hand from the source's definition."""

from __future__ import annotations

import math

import pytest

from memrank.answer.rules import bleu_1, locomo_normalize, locomo_score, mem0_f1


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [
        # {the, shell, necklace} vs {a, shell, necklace}: 2 common, P = R = 2/3
        ("The shell necklace.", "A shell necklace", 2 / 3),
        # commas become spaces; sets, so order does not matter
        ("7 May 2023", "May 7, 2023", 1.0),
        # no stemming in Mem0's F1: running != run
        ("running", "run", 0.0),
        # sets: a repeated token counts once; {paris} vs {paris, france}: P 1, R 1/2
        ("Paris Paris", "Paris, France", 2 / 3),
        ("", "anything", 0.0),
    ],
)
def test_mem0_f1(prediction: str, reference: str, expected: float) -> None:
    assert mem0_f1(prediction, reference) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [
        ("a shell necklace", "A shell necklace", 1.0),
        # one matching unigram of one: p1 = 1; brevity penalty exp(1 - 3/1)
        ("shell", "a shell necklace", math.exp(-2)),
        # clipped unigram matches cat, sat, on, mat: 4 of 6; same length, no penalty
        ("the cat sat on the mat", "a cat sat on a mat", 4 / 6),
        # no unigram in common: NLTK returns 0
        ("the cat", "a dog", 0.0),
        ("", "a dog", 0.0),
    ],
)
def test_bleu_1(prediction: str, reference: str, expected: float) -> None:
    assert bleu_1(prediction, reference) == pytest.approx(expected)


def test_locomo_normalisation_drops_commas_punctuation_and_articles() -> None:
    assert locomo_normalize("The Cat, and a Dog!") == "cat dog"


@pytest.mark.parametrize(
    ("prediction", "reference", "category", "expected"),
    [
        # stems cat, were, run vs cat, run: P 2/3, R 1 -> F1 0.8
        ("The cats were running", "cat run", "4", 0.8),
        # Porter: studies and studying both stem to studi
        ("studies", "studying", "4", 1.0),
        ("an apple and the pear", "apple pear", "2", 1.0),
        # the comma is removed before splitting: a multiset match
        ("7 May 2023", "May 7, 2023", "2", 1.0),
        # category 1: gold parts london (best 1.0) and rome (0.0): mean 0.5
        ("Paris, London", "London, Rome", "1", 0.5),
        # category 3: the gold is cut at its first ';'
        ("hiking", "hiking; she likes mountains", "3", 1.0),
        ("hiking", "hiking she likes mountains", "4", 0.4),
        # category 5: the adversarial phrases, anywhere, any case
        ("Not mentioned in the conversation", "", "5", 1.0),
        ("No information available.", "", "5", 1.0),
        ("She went to Paris", "", "5", 0.0),
    ],
)
def test_locomo_category_rules(
    prediction: str, reference: str, category: str, expected: float
) -> None:
    assert locomo_score(prediction, reference, category) == pytest.approx(expected)
