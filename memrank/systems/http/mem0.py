"""Mem0: a running Mem0 open-source REST server, driven over its own API.

Follows the self-hosted server (``server/`` in the mem0 repository, served by FastAPI), whose
paths carry no ``/v1`` prefix: ``POST /memories``, ``POST /search``, ``DELETE /memories``.
The hosted platform at api.mem0.ai is a different API and is not what this speaks.
Each isolation unit is one ``user_id``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from urllib.parse import urlencode

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
    one ``POST /memories`` (its role and text as the message, its id in metadata), so every
    memory Mem0 extracts from it carries the id back; ``retrieve`` is ``POST /search`` with
    ``top_k``; ``cleanup`` deletes the user_id's memories. The key (``api_key``, else
    ``MEM0_API_KEY``) is sent as ``X-API-Key``, as the server's auth expects. The server
    reports no token usage.
    """

    name = "mem0"
    engine = "Mem0"
    url_variable, key_variable, auth_scheme = "MEM0_HTTP_URL", "MEM0_API_KEY", "X-Api-Key"
    default_timeout = 300.0  # each add runs the server's LLM extraction

    def _reset(self, namespace: str) -> None:
        self._delete(namespace)

    def _write(self, namespace: str, documents: Sequence[Document]) -> None:
        for document in documents:
            body = {
                "messages": [
                    {"role": str(document.metadata.get("role", "user")), "content": document.text}
                ],
                "user_id": namespace,
                "metadata": {DOC_ID_KEY: document.id},
            }
            self._call("POST", "/memories", f"add {document.id!r}", body, write=True)

    def _search(
        self, namespace: str, query: str, k: int, query_timestamp: datetime | None
    ) -> Found:
        what = f"search {namespace!r}"
        answer = self._call(
            "POST", "/search", what, {"query": query, "user_id": namespace, "top_k": k}
        )
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
