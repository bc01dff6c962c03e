"""Attestation refuses names and versions a board would show that hide characters or run long:
a zero-width character, a direction override, a bare CR, a 10,000-character name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memrank.errors import AttestRefused
from memrank.result import Result

from .conftest import Store


def _with(result: Result, **fields: object) -> Result:
    return result.model_copy(update={"system": result.system.model_copy(update=fields)})


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"name": "WordOverlap\u200bAdapter"}, "U+200B"),
        # a printable letter that draws nothing: the fast path for plain text must not pass it
        ({"name": "Word\u3164Overlap"}, "U+3164"),
        ({"name": "\u202eevil"}, "U+202E"),
        ({"declared_name": "Evil\r=1+1"}, "U+000D"),
        ({"version": "1\u2066"}, "U+2066"),
        ({"components": {"embedder": "mini\u200dlm"}}, "U+200D"),
        ({"name": "L" * 10_000}, "10,000 characters long; at most 80"),
        ({"version": "9" * 101}, "101 characters long; at most 100"),
        # Default_Ignorable_Code_Point and Variation_Selector characters that are printable
        # marks or letters: four rows all reading "BM25Adapter"
        ({"name": "BM25\u034fAdapter"}, "U+034F"),
        ({"version": "1\ufe0f"}, "U+FE0F"),
        ({"components": {"BM25\u180b": "1.0"}}, "U+180B"),
        ({"declared_name": "BM25\u17b4Adapter"}, "U+17B4"),
        ({"components": {"embedder": "x" * 10_000}}, "10,000 characters long; at most 200"),
        ({"components": {"k" * 81: "x"}}, "81 characters long; at most 80"),
        ({"components": {f"c{i}": "x" for i in range(65)}}, "65 entries long; at most 64"),
    ],
)
def test_hidden_or_endless_text_is_refused_before_anything_is_written(
    store: Store, wheel_run: Result, fields: dict[str, object], said: str
) -> None:
    with pytest.raises(AttestRefused, match=re.escape(said)):
        store.attest(_with(wheel_run, **fields))
    assert not list((store.directory / "runs").glob("*.json"))


def test_plain_names_with_spaces_and_accents_are_signed(store: Store, wheel_run: Result) -> None:
    attested = store.attest(_with(wheel_run, declared_name="Mémoire à long terme 2"))
    assert Path(attested.envelope).is_file()
