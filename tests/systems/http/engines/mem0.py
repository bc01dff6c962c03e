"""A loopback Mem0 open-source REST server, written from its API (server/ in the mem0 repo).

``POST /memories`` ({messages: [{role, content}], user_id | agent_id | run_id, metadata,
infer}), ``POST /search`` ({query, user_id | agent_id | run_id, filters, top_k, threshold}),
``DELETE /memories?user_id=``, ``GET /openapi.json`` (FastAPI's, naming the version); auth by ``X-API-Key``. Errors are FastAPI's: ``{"detail":
"..."}``, 422 ``{"detail": [{loc, msg, type}]}`` for a malformed body, 502 ``{"detail",
"code", "request_id"}`` when the LLM provider fails. Each message is stored as one memory
(a real server extracts facts with its LLM; the text is what it keeps here).
"""

from __future__ import annotations

from typing import Any

from tests.systems.http.engines._base import EngineServer, Payload, Refusal

IDENTIFIERS = ("user_id", "agent_id", "run_id")


class Mem0Server(EngineServer):
    routes = [
        ("POST", "/memories", "add"),
        ("POST", "/search", "search"),
        ("DELETE", "/memories", "delete_all"),
        ("GET", "/openapi.json", "openapi"),
    ]
    auth_header, auth_prefix = "x-api-key", ""

    def openapi(self, payload: Any, query: Any) -> tuple[int, Payload]:
        return 200, {"openapi": "3.1.0", "info": {"title": "Mem0 REST APIs", "version": "1.0.0"}}

    def unauthorized(self) -> Refusal:
        return Refusal(
            401, {"detail": "Authentication required. Provide a Bearer token or X-API-Key header."}
        )

    def invalid(self, problem: str) -> Refusal:
        return Refusal(422, {"detail": [{"loc": ["body"], "msg": problem, "type": "value_error"}]})

    def not_found(self, what: str) -> Refusal:
        return Refusal(404, {"detail": "Not Found"})

    @staticmethod
    def upstream(code: str, detail: str) -> Refusal:
        return Refusal(502, {"detail": detail, "code": code, "request_id": "3f2a9c1d"})

    def _identifier(self, found: dict[str, Any]) -> str:
        given = [found[name] for name in IDENTIFIERS if found.get(name)]
        if not given:
            raise Refusal(
                400, {"detail": "At least one identifier (user_id, agent_id, run_id) is required."}
            )
        return str(given[0])

    def add(self, payload: Any, query: dict[str, list[str]]) -> tuple[int, Payload]:
        body = self.fields(
            payload,
            {"messages": list},
            {"user_id": str, "agent_id": str, "run_id": str, "metadata": dict, "infer": bool},
        )
        for message in body["messages"]:
            self.fields(message, {"role": str, "content": str}, where="messages[]")
        owner = self._identifier(body)
        results = []
        for message in body["messages"]:
            record = self.store.add(owner, message["content"], body.get("metadata") or {})
            results.append({"id": record.id, "memory": record.text, "event": "ADD"})
        return 200, {"results": results}

    def search(self, payload: Any, query: dict[str, list[str]]) -> tuple[int, Payload]:
        body = self.fields(
            payload,
            {"query": str},
            {
                "user_id": str,
                "agent_id": str,
                "run_id": str,
                "filters": dict,
                "top_k": int,
                "threshold": float,
            },
        )
        deprecated = [name for name in IDENTIFIERS if name in body]
        if deprecated:  # the server still takes them, warning on every call
            self.violation(f"POST /search with deprecated top-level {deprecated}; use filters")
        owner = self._identifier({**(body.get("filters") or {}), **body})
        found = self.store.search(owner, body["query"], body.get("top_k", 20))
        return 200, {
            "results": [
                {
                    "id": record.id,
                    "memory": record.text,
                    "hash": f"h{record.id}",
                    "metadata": record.metadata,
                    "score": float(shared),
                    "created_at": "2026-01-10T18:00:00+00:00",
                    "updated_at": None,
                    "user_id": owner,
                }
                for record, shared in found
            ]
        }

    def delete_all(self, payload: Any, query: dict[str, list[str]]) -> tuple[int, Payload]:
        unknown = set(query) - set(IDENTIFIERS)
        if unknown:
            self.violation(f"DELETE /memories with query parameters {sorted(unknown)}")
        owner = self._identifier({k: v[0] for k, v in query.items()})
        self.store.drop(owner)
        return 200, {"message": "All relevant memories deleted"}
