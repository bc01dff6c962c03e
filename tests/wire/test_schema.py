"""The contract's models accept the contract's own examples and refuse what it forbids."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from memrank.system import ImagePart, TextPart
from memrank.wire.schema import (
    AddRequest,
    AddResponse,
    SearchRequest,
    SearchResponse,
    echo_mismatches,
    from_unix_ms,
    unix_ms,
)

# The request and response examples of the contract, verbatim.
ADD = b"""{
"request_id": "eval:run_abc123:locomo_refined:conv-0:chunk-0",
"messages": [{
"role": "user",
"timestamp": 1704067200000,
"content": "memory text"
}],
"user_id": "eval:run_abc123:locomo:conv-0",
"session_id": "eval:run_abc123:sample:0"
}"""
ADD_MULTIMODAL = b"""{
"request_id": "eval:<run_id>:multimodal:conv-0:chunk-0",
"messages": [{
"role": "user",
"timestamp": 1704067200000,
"content": [
{"type": "text", "text": "caption or text evidence"},
{"type": "image_url", "image_url": {
"url": "data:image/jpeg;base64,..."
}}
]
}],
"user_id": "eval:<run_id>:multimodal:conv-0",
"session_id": "eval:<run_id>:sample:0"
}"""
ADDED = b"""{
"success": true,
"request_id": "eval:run_abc123:locomo_refined:conv-0:chunk-0",
"user_id": "eval:run_abc123:locomo:conv-0",
"session_id": "eval:run_abc123:sample:0"
}"""
SEARCH = b"""{
"query": "Which answer best matches the memory?",
"options": ["A. First answer", "B. Second answer"],
"user_id": "eval:run_abc123:locomo:conv-0",
"top_k": 100
}"""
FOUND = b"""{
"data": [{
"id": "mem_123",
"content": [
{"type": "text", "text": "remembered fact text"},
{"type": "image_url", "image_url": {
"url": "data:image/webp;base64,..."
}}
],
"score": 0.87,
"created_at": "2026-07-01T12:00:00Z"
}]
}"""


def test_the_contracts_examples_parse() -> None:
    add = AddRequest.model_validate_json(ADD)
    assert add.messages[0].timestamp == 1704067200000 and add.messages[0].content == "memory text"
    parts = AddRequest.model_validate_json(ADD_MULTIMODAL).messages[0].content
    assert isinstance(parts, tuple) and isinstance(parts[0], TextPart)
    assert isinstance(parts[1], ImagePart) and parts[1].image_url.url.startswith("data:image/jpeg")
    assert echo_mismatches(add, AddResponse.model_validate_json(ADDED)) == []
    search = SearchRequest.model_validate_json(SEARCH)
    assert search.options == ("A. First answer", "B. Second answer") and search.top_k == 100
    (item,) = SearchResponse.model_validate_json(FOUND).data
    assert (item.id, item.score, item.created_at) == ("mem_123", 0.87, "2026-07-01T12:00:00Z")


@pytest.mark.parametrize(
    "model,raw,problem",
    [
        (AddResponse, ADDED.replace(b"true", b'"true"'), "success"),
        (AddResponse, ADDED.replace(b"true", b"false"), "success"),
        (AddRequest, ADD.replace(b'"memory text"', b'""'), "messages.0.content"),
        (AddRequest, ADD.replace(b"1704067200000", b"1704067200000.5"), "messages.0.timestamp"),
        (AddRequest, ADD.replace(b'"role": "user",', b""), "messages.0.role"),
        (AddRequest, ADD.replace(b'"user_id"', b'"metadata": {}, "user_id"'), "metadata"),
        (SearchRequest, SEARCH.replace(b"100", b'"100"'), "top_k"),
        (SearchRequest, SEARCH.replace(b"100", b"0"), "top_k"),
        (SearchRequest, SEARCH.replace(b'"top_k"', b'"filters": {}, "top_k"'), "filters"),
        (SearchResponse, b'[{"id": "m", "content": "x"}]', "Input should be an object"),
        (SearchResponse, b'{"items": [{"id": "m", "content": "x"}]}', "data"),
        (SearchResponse, b'{"data": [{"id": "", "content": "x"}]}', "data.0.id"),
        (SearchResponse, b'{"data": [{"id": "m", "content": ""}]}', "data.0.content"),
        (SearchResponse, b'{"data": [{"id": 7, "content": "x"}]}', "data.0.id"),
        (SearchResponse, b'{"data": [{"id": "m", "content": "x", "score": "high"}]}', "score"),
    ],
)
def test_what_the_contract_forbids_is_refused(model: type, raw: bytes, problem: str) -> None:
    with pytest.raises(ValidationError) as refused:
        model.model_validate_json(raw)
    assert problem in str(refused.value)


def test_undeclared_response_fields_are_ignored() -> None:
    found = SearchResponse.model_validate_json(
        b'{"data": [{"id": "m", "content": "x", "metadata": {"a": 1}}], "took_ms": 3}'
    )
    assert found.data[0].id == "m" and "metadata" not in found.data[0].model_dump()


def test_echo_mismatches_name_each_id() -> None:
    add = AddRequest.model_validate_json(ADD)
    answered = AddResponse.model_validate_json(ADDED.replace(b"conv-0:chunk-0", b"conv-0:chunk-1"))
    assert echo_mismatches(add, answered) == [
        "request_id came back as 'eval:run_abc123:locomo_refined:conv-0:chunk-1', "
        "sent 'eval:run_abc123:locomo_refined:conv-0:chunk-0'"
    ]


def test_unix_milliseconds_round_trip() -> None:
    moment = datetime(2024, 1, 1, tzinfo=UTC)
    assert unix_ms(moment) == 1704067200000 and from_unix_ms(1704067200000) == moment
