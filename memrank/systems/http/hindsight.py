"""Hindsight: a running Hindsight API server, driven over its own HTTP API.

Follows the Hindsight HTTP API (tested against 1.1.0: ``/v1/default/banks/{bank_id}/...``). Each
isolation unit is one memory bank: created with ``PUT``, written with retain
(``POST .../memories``), searched with recall (``POST .../memories/recall``) and deleted with
``DELETE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memrank.errors import EndpointError
from memrank.system import Document
from memrank.systems.http._engine import (
    DOC_ID_KEY,
    EngineMemory,
    Found,
    Hit,
    carried_id,
    field,
    numbers,
    score_of,
    segment,
)

__all__ = ["Hindsight"]

RETAIN_BATCH = 20
"""Documents per retain request: one request per document would multiply round trips, and
one request per unit can outlast any timeout while the engine extracts facts."""


class Hindsight(EngineMemory):
    """A running Hindsight API server (``HINDSIGHT_API_URL``).

    ``prepare`` deletes the unit's bank if it exists and creates it afresh; ``ingest`` retains
    the documents synchronously (``async: false``), 20 items a request, each with its id as
    ``document_id`` and in metadata, and its timestamp when it has one; ``retrieve`` is recall,
    cut to k (recall budgets by tokens, not by count), each hit keeping its ``scores.final``;
    the answer kept on the trace holds only those k items (recall returns a hundred or more
    with its default budget, which would repeat on every trace); ``cleanup`` deletes the bank. The key
    (``api_key``, else ``HINDSIGHT_API_KEY``) is sent as ``Authorization: Bearer``. The token
    usage retain reports is declared, as ``ingest.*``, on the unit's first retrieve.
    """

    name = "hindsight"
    engine = "Hindsight"
    url_variable, key_variable = "HINDSIGHT_API_URL", "HINDSIGHT_API_KEY"
    default_timeout = 600.0  # a synchronous retain waits for the engine's fact extraction
    version_at = ("/version", "api_version")

    def configuration(self) -> dict[str, str]:
        return {
            "retain": f"items of {RETAIN_BATCH}, async false, each with its document_id, "
            "metadata and timestamp when it has one",
            "recall": "the query (and query_timestamp when the task has one), the server's "
            "default budget and types, cut to k",
        }

    def _bank(self, namespace: str) -> str:
        return f"/v1/default/banks/{segment(namespace)}"

    def _reset(self, namespace: str) -> None:
        self._delete(namespace)
        # the bank's id is in the path; 1.x deprecates the body's `name`, so none is sent
        self._call("PUT", self._bank(namespace), f"create bank {namespace!r}", {})

    def _write(self, namespace: str, documents: Sequence[Document]) -> dict[str, float] | None:
        reported: dict[str, float] = {}
        for start in range(0, len(documents), RETAIN_BATCH):
            batch = documents[start : start + RETAIN_BATCH]
            what = f"retain {len(batch)} document(s) from {batch[0].id!r} into {namespace!r}"
            items = [_item(document) for document in batch]
            answer = self._call(
                "POST",
                f"{self._bank(namespace)}/memories",
                what,
                {"items": items, "async": False},
                write=True,
            )
            if field(answer, "success", bool, what) is not True:
                raise EndpointError(f"{what}: Hindsight answered success: false: {answer}")
            for name, amount in (numbers(answer.get("usage")) or {}).items():
                reported[name] = reported.get(name, 0.0) + amount
        return reported or None

    def _search(
        self, namespace: str, query: str, k: int, query_timestamp: datetime | None
    ) -> Found:
        what = f"recall in bank {namespace!r}"
        body: dict[str, object] = {"query": query}
        if query_timestamp is not None:
            body["query_timestamp"] = query_timestamp.isoformat()
        answer = self._call("POST", f"{self._bank(namespace)}/memories/recall", what, body)
        results = field(answer, "results", list, what)
        hits = [
            Hit(
                id=field(item, "id", str, what),
                content=field(item, "text", str, what),
                doc_id=carried_id(item) or _text_or_none(item.get("document_id")),
                score=_final_score(item),
            )
            for item in results
        ]
        kept = {**answer, "results": results[:k]}  # what memrank used, not the whole budget
        return Found(hits, kept, numbers(answer.get("usage")))

    def _delete(self, namespace: str) -> None:
        # A bank that does not exist is already as empty as memrank needs it.
        self._call("DELETE", self._bank(namespace), f"delete bank {namespace!r}", missing_ok=True)


def _final_score(item: dict[str, object]) -> float | None:
    """The fused score recall ranked the item by (``scores.final``), else a plain ``score``."""
    scores = item.get("scores")
    if isinstance(scores, dict) and score_of(scores.get("final")) is not None:
        return score_of(scores.get("final"))
    return score_of(item.get("score"))


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _item(document: Document) -> dict[str, object]:
    item: dict[str, object] = {
        "content": document.text,
        "document_id": document.id,
        "metadata": {DOC_ID_KEY: document.id},
    }
    if document.timestamp is not None:
        item["timestamp"] = document.timestamp.isoformat()
    return item
