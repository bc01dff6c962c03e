"""Answers are read with limits: an answer holding too many JSON values is refused unparsed,
an item past its id, text, image or created_at limit is refused by name, and breaches that
leave an answer usable (a score that is no finite number, a repeated id, empty content) are
counted by name, the bad score left out."""

from __future__ import annotations

import time
import tracemalloc

import orjson
import pytest

from memrank.errors import ContractError
from memrank.wire.answers import (
    MAX_CREATED_AT_CHARACTERS,
    MAX_ID_CHARACTERS,
    MAX_IMAGE_URL_CHARACTERS,
    MAX_TEXT_CHARACTERS,
    MAX_VALUES,
    read_add,
    read_json,
    read_search,
)


def _items(count: int) -> bytes:
    return b'{"data":[' + b",".join(b'{"id":"%d","content":"x"}' % n for n in range(count)) + b"]}"


def test_a_million_tiny_items_are_refused_unparsed_in_bounded_memory() -> None:
    flood = _items(1_000_000)  # 28.5 MiB: under the response cap
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ContractError, match=f"holds more than {MAX_VALUES:,} JSON values"):
            read_search(flood, 10, ContractError)
        took, peak = time.perf_counter() - started, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    print(
        f"{len(flood) / 2**20:.1f} MiB of items refused in {took:.2f} s, peak {peak / 2**20:.1f} MiB"
    )
    assert peak < 2 * len(flood) and took < 2  # the copy the count makes; no parse at all


@pytest.mark.parametrize(
    "body",
    [
        b'{"data": [], "ignored": [' + b",".join([b"0"] * (MAX_VALUES + 1)) + b"]}",
        b'{"data": [], "a": {"b": [[' + b"],[".join([b"0"] * (MAX_VALUES // 2)) + b"]]}}",
        b'{"data": "' + b'\\",' * 200_000,  # never ends: escapes cannot hide the commas' count
    ],
    ids=["an ignored field", "nested arrays", "an endless string"],
)
def test_values_are_counted_wherever_they_sit(body: bytes) -> None:
    started = time.perf_counter()
    with pytest.raises(ContractError, match="JSON values"):
        read_json(body, ContractError)
    assert time.perf_counter() - started < 1


def test_what_strings_hold_is_not_counted() -> None:
    text = '{"a": [1, 2]}\\' * 7_000  # JSON in text, quotes and a backslash: 21,000 marks
    answer = orjson.dumps({"data": [{"id": f"m{n}", "content": text} for n in range(6)]})
    assert sum(answer.count(mark) for mark in (b",", b"[", b"{")) > MAX_VALUES
    read = read_search(answer, 6, ContractError)
    assert [item.content for item in read.items] == [text] * 6


@pytest.mark.parametrize(
    "item,field,size,limit",
    [
        ({"id": "i" * 1_001, "content": "x"}, "id", 1_001, MAX_ID_CHARACTERS),
        ({"id": "a", "content": "x" * 100_001}, "text", 100_001, MAX_TEXT_CHARACTERS),
        (
            {"id": "a", "content": [{"type": "text", "text": "y" * 60_000}] * 2},
            "text",
            120_001,
            MAX_TEXT_CHARACTERS,
        ),
        (
            {
                "id": "a",
                "content": [{"type": "image_url", "image_url": {"url": "d" * 4_000_001}}],
            },
            "image_url",
            4_000_001,
            MAX_IMAGE_URL_CHARACTERS,
        ),
        (
            {"id": "a", "content": "x", "created_at": "2" * 101},
            "created_at",
            101,
            MAX_CREATED_AT_CHARACTERS,
        ),
    ],
)
def test_an_item_past_a_limit_is_refused_naming_it(
    item: dict[str, object], field: str, size: int, limit: int
) -> None:
    answer = orjson.dumps({"data": [{"id": "ok", "content": "fine"}, item]})
    with pytest.raises(ContractError) as caught:
        read_search(answer, 10, ContractError)
    assert str(caught.value) == (
        f"holds at data.1 an item whose {field} is {size:,} characters long, past memrank's "
        f"limit of {limit:,}"
    )


def test_items_within_every_limit_are_read_whole() -> None:
    long = {"id": "i" * 1_000, "content": "x" * 100_000, "created_at": "2" * 100}
    answer = read_search(orjson.dumps({"data": [long]}), 1, ContractError)
    assert answer.items[0].content == "x" * 100_000 and answer.breaches == {}


def test_breaches_are_counted_by_name_and_a_bad_score_left_out() -> None:
    answer = (
        b'{"data": ['
        b'{"id": "a", "content": "one", "score": NaN},'
        b'{"id": "b", "content": "two", "score": -Infinity},'
        b'{"id": "a", "content": "three", "score": "high"},'
        b'{"id": "c", "content": "", "score": true},'
        b'{"id": "d", "content": [], "score": 2},'
        b'{"id": "e", "content": [{"type": "text", "text": ""}], "score": 0.5}'
        b"]}"
    )
    read = read_search(answer, 10, ContractError)
    assert read.breaches == {
        "non-finite score": 2,
        "non-numeric score": 2,
        "duplicate id": 1,
        "empty content": 3,
    }
    assert [item.score for item in read.items] == [None, None, None, None, 2.0, 0.5]
    assert [item.id for item in read.items] == ["a", "b", "a", "c", "d", "e"]  # kept, in order


def test_an_add_answer_is_read_within_the_limits() -> None:
    echo = {"success": True, "request_id": "r", "user_id": "u", "session_id": "s"}
    assert read_add(orjson.dumps(echo), ContractError).request_id == "r"
    flooded = orjson.dumps({**echo, "junk": list(range(MAX_VALUES))})
    with pytest.raises(ContractError, match="JSON values"):
        read_add(flooded, ContractError)


def test_a_number_beyond_any_float_is_a_non_finite_score_not_a_crash() -> None:
    huge = b"1" + b"0" * 400
    answer = b'{"data": [{"id": "a", "content": "x", "score": ' + huge + b"}, "
    answer += b'{"id": "b", "content": "y", "score": 1e999}]}'
    read = read_search(answer, 2, ContractError)
    assert read.breaches == {"non-finite score": 2}
    assert [item.score for item in read.items] == [None, None]
