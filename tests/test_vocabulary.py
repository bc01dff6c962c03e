"""The vocabulary types: UTC only, unique task ids, content parts, catalog names."""

from __future__ import annotations

from datetime import datetime

import pytest
from pydantic import ValidationError

import memrank
from memrank import Document, Evaluation, Task
from memrank.errors import UnknownName, UsageError


def test_naive_datetimes_are_refused_and_offsets_become_utc() -> None:
    with pytest.raises(ValidationError, match="must carry a timezone"):
        Document(id="d", content="x", timestamp=datetime(2026, 1, 1))
    doc = Document(id="d", content="x", timestamp="2026-01-01T02:00:00+02:00")
    assert doc.timestamp is not None and doc.timestamp.isoformat() == "2026-01-01T00:00:00+00:00"


def test_task_ids_are_unique() -> None:
    with pytest.raises(ValidationError, match="'a' appears twice"):
        Evaluation(
            name="e", version="v", tasks=(Task(id="a", prompt="x"), Task(id="a", prompt="y"))
        )


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError, match="extra"):
        Task(id="a", prompt="x", answer="y")  # type: ignore[call-arg]


def test_content_parts_keep_their_order_and_text() -> None:
    doc = Document(
        id="m",
        content=[
            {"type": "text", "text": "a cat"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
            {"type": "text", "text": "on a mat"},
        ],
    )
    assert doc.text == "a cat\non a mat"


def test_catalog_lists_and_builds_by_name() -> None:
    listing = str(memrank.catalog())
    assert "word-overlap" in listing and "no-context" in listing and "demo" in listing
    assert "needs:" in listing
    assert type(memrank.system("word-overlap")).__name__ == "WordOverlapAdapter"
    assert memrank.evaluation("demo").version == "memrank-demo@v1+def0"


def test_catalog_names_what_is_known() -> None:
    with pytest.raises(
        UnknownName, match="no system named 'nope'; known: word-overlap, no-context"
    ):
        memrank.system("nope")
    with pytest.raises(UsageError, match="does not take those options"):
        memrank.system("word-overlap", colour="red")
    with pytest.raises(UsageError, match="has no slices"):
        memrank.evaluation("demo:smoke")


def test_public_names_resolve_and_functions_are_not_shadowed_by_their_modules() -> None:
    import subprocess
    import sys

    code = (
        "import memrank, types\n"
        "import memrank.run, memrank.system, memrank.evaluation, memrank.measure, memrank.catalog\n"
        "for name in memrank.__all__:\n"
        "    assert not isinstance(getattr(memrank, name), types.ModuleType), name\n"
        "assert callable(memrank.run) and memrank.run.__module__ == 'memrank.run'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_evaluation_exposes_its_dataset_bundle() -> None:
    import hashlib

    from memrank.evaluations.demo import DEMO_DATA

    bundle = memrank.evaluation("demo").dataset_bundle()
    assert bundle.sha256 == hashlib.sha256(DEMO_DATA.read_bytes()).hexdigest()
    assert bundle.question_counts == {
        "abstention": 1,
        "paraphrase": 1,
        "single-hop": 2,
        "temporal": 1,
    }
    written = Evaluation(name="e", version="v", tasks=(Task(id="a", prompt="x"),))
    derived = written.dataset_bundle()
    assert derived.files == () and derived.question_counts == {"uncategorised": 1}
    changed = Evaluation(name="e", version="v", tasks=(Task(id="a", prompt="y"),))
    assert changed.dataset_bundle().sha256 != derived.sha256
