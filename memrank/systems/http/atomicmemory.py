"""AtomicMemory: a running AtomicMemory Core server, driven over its own HTTP API.

Follows the AtomicMemory HTTP API reference (version 1.0.0, ``/v1/memories/*``): ingest
(``POST /v1/memories/ingest``), search (``POST /v1/memories/search``) and reset-by-source
(``POST /v1/memories/reset-source``). Each isolation unit is one ``user_id``; everything
memrank writes carries ``source_site`` ``memrank``, which is what reset-by-source deletes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memrank.system import Document
from memrank.systems.http._engine import EngineMemory, Found, Hit, field, score_of

__all__ = ["AtomicMemory"]

SOURCE_SITE = "memrank"


class AtomicMemory(EngineMemory):
    """A running AtomicMemory Core server (``ATOMICMEMORY_API_URL``).

    ``prepare`` and ``cleanup`` reset the unit's user_id by source (``source_site``
    ``memrank``); ``ingest`` sends each document as one conversation transcript, its id as
    ``source_url`` (the ingest body has no metadata field); ``retrieve`` is a search with
    ``limit`` k (the API allows at most 100). The published search results carry no document
    id, so a recalled memory names its source document only when its text repeats one word
    for word. The key (``api_key``, else ``ATOMICMEMORY_API_KEY``), when given, is sent as
    ``Authorization: Bearer``, as AtomicMemory's own SDK sends it; the HTTP reference
    documents no authentication. The API reports no token usage.
    """

    name = "atomicmemory"
    engine = "AtomicMemory"
    url_variable, key_variable = "ATOMICMEMORY_API_URL", "ATOMICMEMORY_API_KEY"
    default_timeout = 300.0  # a full ingest waits for the engine's extraction

    def _reset(self, namespace: str) -> None:
        what = f"reset user_id {namespace!r}"
        body = {"user_id": namespace, "source_site": SOURCE_SITE}
        self._call("POST", "/v1/memories/reset-source", what, body)

    def _write(self, namespace: str, documents: Sequence[Document]) -> None:
        for document in documents:
            body = {
                "user_id": namespace,
                "conversation": document.text,
                "source_site": SOURCE_SITE,
                "source_url": document.id,
            }
            what = f"ingest {document.id!r} for user_id {namespace!r}"
            self._call("POST", "/v1/memories/ingest", what, body, write=True)

    def _search(
        self, namespace: str, query: str, k: int, query_timestamp: datetime | None
    ) -> Found:
        what = f"search user_id {namespace!r}"
        body = {"user_id": namespace, "query": query, "limit": min(k, 100)}
        answer = self._call("POST", "/v1/memories/search", what, body)
        hits = [
            Hit(
                id=field(memory, "id", str, what),
                content=field(memory, "content", str, what),
                score=score_of(memory.get("score")),
            )
            for memory in field(answer, "memories", list, what)
        ]
        return Found(hits, answer)

    def _delete(self, namespace: str) -> None:
        self._reset(namespace)
