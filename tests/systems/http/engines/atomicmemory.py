"""A loopback AtomicMemory Core server, written from the AtomicMemory HTTP API reference (1.0.0).

``POST /v1/memories/ingest`` ({user_id, conversation, source_site, source_url, ...}) answers
the extraction counts, ``POST /v1/memories/search`` ({user_id, query, limit <= 100, ...})
answers ``{count, retrieval_mode, scope, memories: [{id, content, score, similarity,
created_at, source_site}], injection_text, citations}``, ``POST /v1/memories/reset-source``
({user_id, source_site}) answers ``{success: true, deleted_memories, deleted_episodes}``.
Errors are ``{"error": "..."}``. The reference documents no authentication; a key, when this
server is given one, is checked as AtomicMemory's SDK sends it (``Authorization: Bearer``).
"""

from __future__ import annotations

from typing import Any

from tests.systems.http.engines._base import EngineServer, Payload, Refusal

OPTIONAL_SCOPE = {"agent_id": str, "workspace_id": str, "visibility": str, "config_override": dict}


class AtomicMemoryServer(EngineServer):
    routes = [
        ("POST", "/v1/memories/ingest", "ingest"),
        ("POST", "/v1/memories/search", "search"),
        ("POST", "/v1/memories/reset-source", "reset_source"),
    ]

    def unauthorized(self) -> Refusal:
        return Refusal(401, {"error": "Unauthorized"})

    def invalid(self, problem: str) -> Refusal:
        return Refusal(400, {"error": problem})

    def not_found(self, what: str) -> Refusal:
        return Refusal(404, {"error": f"{what} not found"})

    def ingest(self, payload: Any, query: Any) -> tuple[int, Payload]:
        body = self.fields(
            payload,
            {"user_id": str, "conversation": str, "source_site": str},
            {"source_url": str, "skip_extraction": bool, **OPTIONAL_SCOPE},
        )
        if not body["user_id"] or not body["conversation"] or not body["source_site"]:
            raise self.invalid("user_id, conversation and source_site must not be empty")
        record = self.store.add(
            body["user_id"], body["conversation"], {}, source_site=body["source_site"]
        )
        return 200, {
            "episode_id": f"ep-{record.id}",
            "facts_extracted": 1,
            "memories_stored": 1,
            "memories_updated": 0,
            "memories_deleted": 0,
            "memories_skipped": 0,
            "stored_memory_ids": [record.id],
            "updated_memory_ids": [],
            "links_created": 0,
            "composites_created": 0,
        }

    def search(self, payload: Any, query: Any) -> tuple[int, Payload]:
        body = self.fields(
            payload,
            {"user_id": str, "query": str},
            {
                "limit": int,
                "as_of": str,
                "retrieval_mode": str,
                "token_budget": int,
                "namespace_scope": str,
                "skip_repair": bool,
                "source_site": str,
                "agent_scope": (str, list),
                **OPTIONAL_SCOPE,
            },
        )
        limit = body.get("limit", 10)
        if not 1 <= limit <= 100:
            self.violation(f"limit {limit} outside 1..100")
            raise self.invalid("limit must be between 1 and 100")
        found = self.store.search(body["user_id"], body["query"], limit)
        memories = [
            {
                "id": record.id,
                "content": record.text,
                "score": shared / 10,
                "similarity": shared / 10,
                "importance": None,
                "created_at": "2026-01-10T18:00:00.000Z",
                "source_site": record.extra["source_site"],
            }
            for record, shared in found
        ]
        return 200, {
            "count": len(memories),
            "retrieval_mode": "flat",
            "scope": {"kind": "user", "user_id": body["user_id"]},
            "memories": memories,
            "injection_text": "\n".join(m["content"] for m in memories),
            "citations": [m["id"] for m in memories],
        }

    def reset_source(self, payload: Any, query: Any) -> tuple[int, Payload]:
        body = self.fields(payload, {"user_id": str, "source_site": str})
        with self.store.lock:
            held = self.store.spaces.get(body["user_id"], [])
            kept = [r for r in held if r.extra["source_site"] != body["source_site"]]
            deleted = len(held) - len(kept)
            self.store.spaces[body["user_id"]] = kept
        return 200, {"success": True, "deleted_memories": deleted, "deleted_episodes": deleted}
