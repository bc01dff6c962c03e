"""memrank serve's HTTP side: the contract over an in-process memory, on a real loopback server."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import httpx
import orjson
import pytest

from memrank.errors import MissingExtra
from memrank.systems import WordOverlap
from memrank.systems.http._client import Auth
from memrank.wire._service import ContractService
from memrank.wire.serve import serving


def _add(user: str, request_id: str, *texts: str) -> dict[str, object]:
    return {
        "request_id": request_id,
        "messages": [{"role": "user", "content": t, "timestamp": 1704067200000} for t in texts],
        "user_id": user,
        "session_id": f"{user}:s0",
    }


def _search(user: str, query: str, top_k: int = 10) -> dict[str, object]:
    return {"query": query, "user_id": user, "top_k": top_k}


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with serving(ContractService(WordOverlap)) as url, httpx.Client(base_url=url) as client:
        yield client


def test_an_add_is_searchable_at_once_under_its_user_id_only(http: httpx.Client) -> None:
    added = http.post("/add", json=_add("ann", "r0", "Ann keeps bees on the roof."))
    assert added.status_code == 200
    assert added.json() == {
        "success": True,
        "request_id": "r0",
        "user_id": "ann",
        "session_id": "ann:s0",
    }
    found = http.post("/search", json=_search("ann", "Where does Ann keep bees?"))
    assert found.json() == {
        "data": [
            {
                "id": "r0:0",
                "content": "Ann keeps bees on the roof.",
                "created_at": "2024-01-01T00:00:00Z",
            }
        ]
    }
    other = http.post("/search", json=_search("bob", "Where does Ann keep bees?"))
    assert other.status_code == 200 and other.json() == {"data": []}


def test_top_k_bounds_the_answer(http: httpx.Client) -> None:
    http.post("/add", json=_add("ann", "r0", *(f"bee fact {n}" for n in range(5))))
    found = http.post("/search", json=_search("ann", "bee fact", top_k=2)).json()["data"]
    # all five tie on the query's words; which two come back is word-overlap's tie-breaking
    ids = [item["id"] for item in found]
    assert len(ids) == 2 == len(set(ids)) and set(ids) <= {f"r0:{n}" for n in range(5)}


def test_a_repeated_request_id_is_answered_again_and_stored_once(http: httpx.Client) -> None:
    request = _add("ann", "r0", "Ann keeps bees.")
    first, second = http.post("/add", json=request), http.post("/add", json=request)
    assert first.json() == second.json() and second.status_code == 200
    assert len(http.post("/search", json=_search("ann", "bees")).json()["data"]) == 1
    clash = http.post("/add", json=_add("ann", "r0", "Ann keeps wasps."))
    assert clash.status_code == 409
    assert "already taken with a different request" in clash.json()["detail"]["reason"]


def test_a_bad_request_is_422_with_field_details(http: httpx.Client) -> None:
    bad = http.post("/search", json={"query": "", "user_id": "ann", "top_k": "ten", "filters": {}})
    assert bad.status_code == 422
    details = {tuple(d["loc"][:1]): d for d in bad.json()["detail"]}
    assert set(details) == {("query",), ("top_k",), ("filters",)}
    assert all(set(d) == {"loc", "msg", "type"} for d in details.values())  # no input echoed
    assert http.post("/add", content=b"{oops").status_code == 422


def test_errors_use_the_reason_shape(http: httpx.Client) -> None:
    missing = http.get("/nowhere")
    assert missing.status_code == 404 and "GET /nowhere" in missing.json()["detail"]["reason"]
    wrong = http.get("/add")
    assert wrong.status_code == 405 and "reason" in wrong.json()["detail"]
    assert http.get("/health").status_code == 200


def test_a_raising_memory_is_a_500_with_its_reason() -> None:
    class Broken(WordOverlap):
        def ingest(self, documents):  # type: ignore[no-untyped-def]
            raise RuntimeError("disk full")

    with serving(ContractService(Broken)) as url:
        answer = httpx.post(f"{url}/add", json=_add("ann", "r0", "x"))
    assert answer.status_code == 500
    assert answer.json() == {"detail": {"reason": "the memory raised RuntimeError: disk full"}}


def test_auth_guards_add_and_search_but_not_health() -> None:
    with serving(ContractService(WordOverlap, Auth("Token", "t-1"))) as url:
        anonymous = httpx.post(f"{url}/add", json=_add("ann", "r0", "x"))
        wrong = httpx.post(
            f"{url}/search", json=_search("ann", "x"), headers={"Authorization": "Bearer t-1"}
        )
        right = httpx.post(
            f"{url}/add", json=_add("ann", "r0", "x"), headers={"Authorization": "Token t-1"}
        )
        health = httpx.get(f"{url}/health")
    assert (anonymous.status_code, wrong.status_code, right.status_code, health.status_code) == (
        401,
        401,
        200,
        200,
    )
    assert anonymous.json()["detail"]["reason"].endswith("expects Authorization: Token <key>")
    assert "t-1" not in anonymous.text


def test_content_parts_are_stored_and_returned_in_order(http: httpx.Client) -> None:
    parts = [
        {"type": "text", "text": "a red kite"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
    ]
    body = _add("ann", "r0", "x")
    body["messages"] = [{"role": "user", "content": parts}]
    assert http.post("/add", content=orjson.dumps(body)).status_code == 200
    (item,) = http.post("/search", json=_search("ann", "red kite")).json()["data"]
    assert item["content"] == parts


def test_serving_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    with (
        pytest.raises(MissingExtra, match=r"pip install 'memrank\[serve\]'"),
        serving(ContractService(WordOverlap)),
    ):
        pass
