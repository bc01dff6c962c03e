"""A loopback Supermemory API, written from the Supermemory API v3 reference.

``POST /v3/documents`` ({content, containerTag, containerTags (deprecated), customId,
metadata}) answers ``{id, status: "queued"}`` and processes the document afterwards:
``GET /v3/documents/{id}`` reports ``queued`` until ``processing_polls`` reads have passed,
then ``done`` (or ``failed`` for content the test marks so). ``POST /v3/search`` ({q,
containerTags, limit, ...}) searches processed documents only and answers ``{results:
[{documentId, title, score, chunks: [{content, isRelevant, score}], metadata, createdAt,
updatedAt}], total, timing}``. ``DELETE /v3/documents/bulk`` ({ids} or {containerTags})
answers ``{success, deletedCount, containerTags}``. A key is required (``Authorization:
Bearer``); errors are ``{"error": ..., "details": ...}``.
"""

from __future__ import annotations

import re
from typing import Any

from tests.systems.http.engines._base import EngineServer, Payload, Refusal

SAFE = re.compile(r"[A-Za-z0-9_-]{1,100}")
"""What a container tag or custom id may be: letters, digits, hyphens and underscores, <= 100."""


class SupermemoryServer(EngineServer):
    routes = [
        ("POST", "/v3/documents", "add"),
        ("GET", r"/v3/documents/(?P<document>[^/]+)", "status"),
        ("POST", "/v3/search", "search"),
        ("DELETE", "/v3/documents/bulk", "bulk_delete"),
    ]

    def __init__(self, key: str = "sm_test_key", processing_polls: int = 1) -> None:
        super().__init__(key)
        self.processing_polls = processing_polls
        self.fail_content = "CANNOT-PROCESS"

    def unauthorized(self) -> Refusal:
        return Refusal(401, {"error": "Unauthorized", "details": "Invalid or missing API key"})

    def invalid(self, problem: str) -> Refusal:
        return Refusal(400, {"error": "Invalid request", "details": problem})

    def not_found(self, what: str) -> Refusal:
        return Refusal(404, {"error": "Not found", "details": what})

    def _tag(self, tag: Any, where: str) -> str:
        if not isinstance(tag, str) or not SAFE.fullmatch(tag):
            self.violation(f"{where} {tag!r} is not alphanumeric with - and _, <= 100 characters")
            raise self.invalid(f"{where} must be alphanumeric with hyphens and underscores")
        return tag

    def add(self, payload: Any, query: Any) -> tuple[int, Payload]:
        body = self.fields(
            payload,
            {"content": str},
            {"containerTag": str, "containerTags": list, "customId": str, "metadata": dict},
        )
        tag = self._tag(body.get("containerTag", "sm_default"), "containerTag")
        for key, value in body.get("metadata", {}).items():
            if not isinstance(value, str | int | float | bool):
                self.violation(f"metadata.{key} is {value!r}: only strings, numbers, booleans")
        failed = self.fail_content in body["content"]
        record = self.store.add(
            tag, body["content"], body.get("metadata", {}), reads=0, failed=failed
        )
        return 200, {"id": record.id, "status": "queued"}

    def status(self, payload: Any, query: Any, document: str) -> tuple[int, Payload]:
        record = self.store.find(document)
        if record is None:
            raise self.not_found(f"document {document}")
        record.extra["reads"] += 1
        if record.extra["failed"]:
            state = "failed"
        elif record.extra["reads"] >= self.processing_polls:
            state = "done"
        else:
            state = "queued"
        record.extra["status"] = state
        return 200, {"id": record.id, "status": state, "content": record.text}

    def search(self, payload: Any, query: Any) -> tuple[int, Payload]:
        body = self.fields(
            payload,
            {"q": str},
            {
                "containerTags": list,
                "limit": int,
                "documentThreshold": float,
                "chunkThreshold": float,
                "onlyMatchingChunks": bool,
                "rerank": bool,
                "rewriteQuery": bool,
                "includeSummary": bool,
                "filters": dict,
            },
        )
        tags = [self._tag(tag, "containerTags[]") for tag in body.get("containerTags", [])]
        found = [
            (record, shared)
            for tag in tags
            for record, shared in self.store.search(tag, body["q"], body.get("limit", 10))
            if record.extra.get("status") == "done"
        ][: body.get("limit", 10)]
        return 200, {
            "results": [
                {
                    "documentId": record.id,
                    "title": record.text[:40],
                    "type": "text",
                    "score": shared / 10,
                    "chunks": [{"content": record.text, "isRelevant": True, "score": shared / 10}],
                    "metadata": record.metadata,
                    "createdAt": "2026-01-10T18:00:00.000Z",
                    "updatedAt": "2026-01-10T18:00:00.000Z",
                }
                for record, shared in found
            ],
            "total": len(found),
            "timing": 12,
        }

    def bulk_delete(self, payload: Any, query: Any) -> tuple[int, Payload]:
        body = self.fields(payload, {}, {"ids": list, "containerTags": list})
        if not body.get("containerTags") and not body.get("ids"):
            raise self.invalid("either ids or containerTags is required")
        tags = [self._tag(tag, "containerTags[]") for tag in body.get("containerTags", [])]
        deleted = sum(self.store.drop(tag) for tag in tags)
        return 200, {"success": True, "deletedCount": deleted, "containerTags": tags}
