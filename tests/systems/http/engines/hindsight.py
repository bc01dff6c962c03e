"""A loopback Hindsight API server, written from the Hindsight HTTP API reference (0.8).

``PUT /v1/default/banks/{bank_id}`` creates or updates a bank, ``DELETE`` deletes it (404 when
there is none), ``POST .../memories`` retains ``{items: [{content, timestamp, context,
metadata, document_id, tags, entities, update_mode}], async, document_tags}`` and answers
``{success, bank_id, items_count, async, usage}``, ``POST .../memories/recall`` answers
``{results: [{id, text, type, metadata, document_id, ...}]}`` ranked, with no count limit (the
API budgets by tokens). A read of a bank that does not exist is 404. Auth by ``Authorization:
Bearer``. Errors are FastAPI's ``{"detail": ...}``. ``GET /version`` answers ``{api_version,
features}``.
"""

from __future__ import annotations

from typing import Any

from tests.systems.http.engines._base import EngineServer, Payload, Refusal, iso_time

BANK = r"/v1/default/banks/(?P<bank>[^/]+)"
RECALL_RESULTS = 10
"""How many facts recall returns at most here: more than a small k, as a token budget would."""
TOKENS_PER_WORD = 2


class HindsightServer(EngineServer):
    routes = [
        ("PUT", BANK, "create_bank"),
        ("DELETE", BANK, "delete_bank"),
        ("POST", f"{BANK}/memories", "retain"),
        ("POST", f"{BANK}/memories/recall", "recall"),
        ("GET", "/version", "version"),
    ]

    def __init__(self, key: str | None = None) -> None:
        super().__init__(key)
        self.banks: dict[str, Payload] = {}

    def unauthorized(self) -> Refusal:
        return Refusal(401, {"detail": "Invalid or missing API key"})

    def invalid(self, problem: str) -> Refusal:
        return Refusal(422, {"detail": [{"loc": ["body"], "msg": problem, "type": "value_error"}]})

    def not_found(self, what: str) -> Refusal:
        return Refusal(404, {"detail": f"{what} not found"})

    def version(self, payload: Any, query: Any) -> tuple[int, Payload]:
        return 200, {"api_version": "0.8.0", "features": {}}

    def create_bank(self, payload: Any, query: Any, bank: str) -> tuple[int, Payload]:
        body = self.fields(
            payload or {}, {}, {"name": str, "mission": str, "background": str, "disposition": dict}
        )
        self.banks[bank] = {"bank_id": bank, "name": body.get("name", bank)}
        return 200, self.banks[bank]

    def delete_bank(self, payload: Any, query: Any, bank: str) -> tuple[int, Payload]:
        if self.banks.pop(bank, None) is None:
            raise self.not_found(f"Bank '{bank}'")
        deleted = self.store.drop(bank)
        return 200, {"success": True, "message": f"Bank '{bank}' deleted", "deleted_count": deleted}

    def retain(self, payload: Any, query: Any, bank: str) -> tuple[int, Payload]:
        body = self.fields(payload, {"items": list}, {"async": bool, "document_tags": list})
        words = 0
        for item in body["items"]:
            self.fields(
                item,
                {"content": str},
                {
                    "timestamp": str,
                    "context": str,
                    "metadata": dict,
                    "document_id": str,
                    "tags": list,
                    "entities": list,
                    "update_mode": str,
                },
                where="items[]",
            )
            if "timestamp" in item and item["timestamp"] != "unset":
                iso_time(self, item["timestamp"], "items[].timestamp")
            if not all(isinstance(v, str) for v in item.get("metadata", {}).values()):
                self.violation("items[].metadata values must be strings")
        self.banks.setdefault(bank, {"bank_id": bank, "name": bank})  # writes create the bank
        for item in body["items"]:
            self.store.add(
                bank, item["content"], item.get("metadata", {}), document_id=item.get("document_id")
            )
            words += len(item["content"].split())
        return 200, {
            "success": True,
            "bank_id": bank,
            "items_count": len(body["items"]),
            "async": body.get("async", False),
            "usage": {
                "input_tokens": words * TOKENS_PER_WORD,
                "output_tokens": len(body["items"]),
                "total_tokens": words * TOKENS_PER_WORD + len(body["items"]),
            },
        }

    def recall(self, payload: Any, query: Any, bank: str) -> tuple[int, Payload]:
        body = self.fields(
            payload,
            {"query": str},
            {
                "types": list,
                "budget": str,
                "max_tokens": int,
                "query_timestamp": str,
                "include": dict,
                "tags": list,
                "tags_match": str,
                "trace": bool,
            },
        )
        if "query_timestamp" in body:
            iso_time(self, body["query_timestamp"], "query_timestamp")
        if bank not in self.banks:
            raise self.not_found(f"Bank '{bank}'")
        found = self.store.search(bank, body["query"], RECALL_RESULTS)
        return 200, {
            "results": [
                {
                    "id": record.id,
                    "text": record.text,
                    "type": "world",
                    "context": None,
                    "metadata": record.metadata or None,
                    "tags": [],
                    "entities": None,
                    "occurred_start": None,
                    "occurred_end": None,
                    "mentioned_at": "2026-01-10T18:00:00Z",
                    "document_id": record.extra.get("document_id"),
                    "chunk_id": None,
                }
                for record, _ in found
            ]
        }
