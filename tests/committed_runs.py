"""The committed signed runs, found by what they ran: shared by tests and benchmarks."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

__all__ = ["ARTIFACTS", "committed_run"]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def committed_run(system: str, evaluation: str) -> tuple[Path, dict[str, Any]]:
    """The committed envelope of ``system`` (its catalog name) on ``evaluation``, and its
    statement as JSON."""
    for envelope in sorted((ARTIFACTS / "runs").glob("*.json")):
        statement = json.loads(base64.b64decode(json.loads(envelope.read_bytes())["payload"]))
        predicate = statement["predicate"]
        if (predicate["system"]["declared_name"], predicate["evaluation"]["name"]) == (
            system,
            evaluation,
        ):
            return envelope, statement
    raise LookupError(f"no committed run of {system} on {evaluation}")
