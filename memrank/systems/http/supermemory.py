"""Supermemory: the Supermemory API (hosted, or a self-hosted instance), driven over HTTP.

Follows the Supermemory API v3 reference: documents are added with ``POST /v3/documents``
under a ``containerTag``, processed asynchronously (``GET /v3/documents/{id}`` reports the
status), searched with ``POST /v3/search`` restricted to ``containerTags``, and deleted with
``DELETE /v3/documents/bulk`` by container tag. Each isolation unit is one container tag.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime

from memrank.errors import EndpointError
from memrank.system import Document
from memrank.systems.http._client import positive
from memrank.systems.http._engine import (
    DOC_ID_KEY,
    EngineMemory,
    Found,
    Hit,
    carried_id,
    field,
    score_of,
    segment,
)

__all__ = ["Supermemory"]


class Supermemory(EngineMemory):
    """The Supermemory API (``SUPERMEMORY_BASE_URL``, e.g. https://api.supermemory.ai).

    ``prepare`` bulk-deletes whatever the unit's container tag holds; ``ingest`` adds each
    document (its id in metadata) and then waits until every one is processed (status
    ``done``), polling every ``poll_interval`` seconds for at most ``processing_timeout``
    seconds, since Supermemory processes documents after answering; ``retrieve`` is a document
    search with ``limit`` k, each result read as the text of its matching chunks; ``cleanup``
    bulk-deletes the container tag. The key (``api_key``, else ``SUPERMEMORY_API_KEY``) is
    required and sent as ``Authorization: Bearer``. The API reports no token usage.
    """

    name = "supermemory"
    engine = "Supermemory"
    url_variable, key_variable = "SUPERMEMORY_BASE_URL", "SUPERMEMORY_API_KEY"
    key_required = True
    default_timeout = 60.0

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float | None = None,
        attempts: int = 4,
        backoff: float = 0.5,
        poll_interval: float = 1.0,
        processing_timeout: float = 600.0,
    ) -> None:
        super().__init__(
            base_url, api_key=api_key, timeout=timeout, attempts=attempts, backoff=backoff
        )
        self.poll_interval = positive(poll_interval, "poll_interval", float)
        self.processing_timeout = positive(processing_timeout, "processing_timeout", float)

    def _reset(self, namespace: str) -> None:
        self._delete(namespace)

    def _write(self, namespace: str, documents: Sequence[Document]) -> None:
        added = {}
        for document in documents:
            what = f"add document {document.id!r} to {namespace!r}"
            body = {
                "content": document.text,
                "containerTag": namespace,
                "metadata": {DOC_ID_KEY: document.id},
            }
            answer = self._call("POST", "/v3/documents", what, body, write=True)
            added[field(answer, "id", str, what)] = document.id
        self._await_processing(namespace, added)

    def _await_processing(self, namespace: str, added: dict[str, str]) -> None:
        """Poll until every added document is ``done``; a ``failed`` one, or time running out,
        fails the ingest with the document named."""
        deadline = time.monotonic() + self.processing_timeout
        pending = dict(added)
        while pending:
            for engine_id, doc_id in list(pending.items()):
                what = f"status of document {doc_id!r} in {namespace!r}"
                answer = self._call("GET", f"/v3/documents/{segment(engine_id)}", what)
                status = field(answer, "status", str, what)
                if status == "done":
                    del pending[engine_id]
                elif status == "failed":
                    raise EndpointError(
                        f"{what}: Supermemory failed to process it (status 'failed'): {answer}"
                    )
            if pending and time.monotonic() > deadline:
                raise EndpointError(
                    f"ingest into {namespace!r}: {len(pending)} document(s) still not processed "
                    f"after {self.processing_timeout:g} s (first: {next(iter(pending.values()))!r}); "
                    "raise processing_timeout if the instance is slow"
                )
            if pending:
                time.sleep(self.poll_interval)

    def _search(
        self, namespace: str, query: str, k: int, query_timestamp: datetime | None
    ) -> Found:
        what = f"search container tag {namespace!r}"
        body = {"q": query, "containerTags": [namespace], "limit": k}
        answer = self._call("POST", "/v3/search", what, body)
        hits = []
        for result in field(answer, "results", list, what):
            chunks = [c for c in field(result, "chunks", list, what) if isinstance(c, dict)]
            relevant = [c for c in chunks if c.get("isRelevant")] or chunks
            hits.append(
                Hit(
                    id=field(result, "documentId", str, what),
                    content="\n".join(str(c.get("content", "")) for c in relevant),
                    doc_id=carried_id(result),
                    score=score_of(result.get("score")),
                )
            )
        return Found(hits, answer)

    def _delete(self, namespace: str) -> None:
        what = f"delete container tag {namespace!r}"
        self._call("DELETE", "/v3/documents/bulk", what, {"containerTags": [namespace]})
