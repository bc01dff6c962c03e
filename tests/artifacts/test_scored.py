"""A signed run read from its statement and scores file alone pairs exactly as its result
does: the same measures, tasks, values, flips and tests (memrank pair and reproduce rely on
it to read a published run without its result file)."""

from __future__ import annotations

from pathlib import Path

import memrank
from memrank.artifacts import read_scores, result_of_scores
from memrank.evaluations import locomo
from memrank.paired import paired

from .conftest import Keys, Store, as_installed, first_root


def test_a_reading_from_scores_files_is_the_reading_from_the_results(
    keys: Keys, tmp_path: Path, shared_data: Path
) -> None:
    # LoCoMo: its adversarial measures value some tasks only, so the scores file says of the
    # others that the run holds no value, which is not a value to pair
    evaluation = locomo("smoke", path=shared_data / "locomo")
    a = as_installed(memrank.run(memrank.system("bm25"), evaluation))
    b = as_installed(memrank.run(memrank.system("no-context"), evaluation))
    store = Store(tmp_path / "artifacts", keys)
    store.publish_root(first_root(keys, a).model_copy(update={}), [keys.root])
    signed = [store.attest(run) for run in (a, b)]  # a slice: signed, though never published
    from_scores = paired(
        *(
            result_of_scores(
                read_scores(made.scores_file.read_bytes(), source="test"),
                made.statement.predicate,
            )
            for made in signed
        )
    )
    from_results = paired(a, b)
    by_name = {reading.measure: reading for reading in from_results.measures}
    assert {reading.measure: reading for reading in from_scores.measures} == by_name
    assert from_scores.measures_only_in_a == from_results.measures_only_in_a
    assert any(reading.flipped for reading in from_scores.measures)  # a reading with content
