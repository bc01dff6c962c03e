"""Mem0: a running Mem0 open-source REST server, driven over its own API.

Follows the self-hosted server (``server/`` in the mem0 repository, served by FastAPI), whose
paths carry no ``/v1`` prefix: ``POST /memories``, ``POST /search``, ``DELETE /memories``.
The hosted platform at api.mem0.ai is a different API and is not what this speaks.
Each isolation unit is one ``user_id``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from memrank.errors import EndpointError, UsageError
from memrank.system import Document
from memrank.systems.http._engine import (
    DOC_ID_KEY,
    EngineMemory,
    Found,
    Hit,
    carried_id,
    field,
    score_of,
)

__all__ = ["Mem0"]


class Mem0(EngineMemory):
    """A running Mem0 open-source REST server (``MEM0_HTTP_URL``).

    ``prepare`` deletes whatever the unit's user_id holds; ``ingest`` sends each document as
    one ``POST /memories`` (its role and text as the message, its id in metadata, and
    ``infer``), so every memory Mem0 extracts from it carries the id back, and checks the
    answer: with ``infer=False`` a document Mem0 stored nothing for is a failure; with
    extraction on, Mem0 may rightly find nothing to keep, and those documents are counted (the
    unit's first retrieve declares ``ingest.stored_nothing``). ``retrieve`` is ``POST /search``
    with ``filters: {user_id}`` and ``top_k``, and ``threshold`` when one is given (from 0 to 1,
    all the server accepts; else Mem0's own cut-off applies: it drops results scoring under
    0.1, so a search may return fewer than k). ``cleanup`` deletes the user_id's memories, which the server allows only to an admin
    (auth disabled, or its ``ADMIN_API_KEY``). The key (``api_key``, else ``MEM0_API_KEY``) is
    sent as ``X-API-Key``. The server reports no token usage. ``infer`` and ``threshold`` are
    recorded in the run's components.
    """

    name = "mem0"
    engine = "Mem0"
    url_variable, key_variable, auth_scheme = "MEM0_HTTP_URL", "MEM0_API_KEY", "X-Api-Key"
    default_timeout = 300.0  # each add runs the server's LLM extraction
    version_at = ("/openapi.json", "info", "version")

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float | None = None,
        attempts: int = 4,
        backoff: float = 0.5,
        infer: bool = True,
        threshold: float | None = None,
    ) -> None:
        super().__init__(
            base_url, api_key=api_key, timeout=timeout, attempts=attempts, backoff=backoff
        )
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            # the server answers 400 for anything else, on every search of the run
            raise UsageError(f"Mem0 threshold {threshold} is out of range; give one from 0 to 1")
        self.infer = infer
        self.threshold = threshold

    def configuration(self) -> dict[str, str]:
        return {
            "infer": "on" if self.infer else "off",
            "threshold": "Mem0's default (0.1)" if self.threshold is None else str(self.threshold),
        }

    def _reset(self, namespace: str) -> None:
        self._delete(namespace)

    def _write(self, namespace: str, documents: Sequence[Document]) -> dict[str, float] | None:
        stored_nothing = 0
        for document in documents:
            body = {
                "messages": [
                    {"role": str(document.metadata.get("role", "user")), "content": document.text}
                ],
                "user_id": namespace,
                "metadata": {DOC_ID_KEY: document.id},
                "infer": self.infer,
            }
            what = f"add {document.id!r}"
            answer = self._call("POST", "/memories", what, body, write=True)
            if field(answer, "results", list, what):
                continue
            if not self.infer:
                raise EndpointError(
                    f'{what}: Mem0 answered {{"results": []}} with infer off: it stored nothing '
                    "for this document"
                )
            stored_nothing += 1
        return {"stored_nothing": float(stored_nothing)} if stored_nothing else None

    def _search(
        self, namespace: str, query: str, k: int, query_timestamp: datetime | None
    ) -> Found:
        what = f"search {namespace!r}"
        body: dict[str, Any] = {"query": query, "filters": {"user_id": namespace}, "top_k": k}
        if self.threshold is not None:
            body["threshold"] = self.threshold
        answer = self._call("POST", "/search", what, body)
        hits = []
        for item in field(answer, "results", list, what):
            hits.append(
                Hit(
                    id=field(item, "id", str, what),
                    content=field(item, "memory", str, what),
                    doc_id=carried_id(item),
                    score=score_of(item.get("score")),
                )
            )
        return Found(hits, answer)

    def _delete(self, namespace: str) -> None:
        query = urlencode({"user_id": namespace})
        self._call("DELETE", f"/memories?{query}", f"delete user_id {namespace!r}")
