"""A compressed answer stays under the response cap: memrank asks for identity, inflates gzip
and deflate layer by layer with a hard output cap, and refuses any other coding by name."""

from __future__ import annotations

import gzip
import re
import tracemalloc
import zlib

import pytest

from memrank.errors import ContractError
from memrank.systems.http._client import NO_RETRY, HttpClient
from tests.loopback import Canned, Scripted


def _gzipped_zeros(size: int) -> bytes:
    """``size`` zero bytes gzipped, made a mebibyte at a time."""
    packer = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [packer.compress(block) for _ in range(size >> 20)]
    return b"".join([*parts, packer.flush()])


def test_a_double_gzipped_bomb_is_refused_with_memory_bounded() -> None:
    bomb = gzip.compress(_gzipped_zeros(1 << 30), 9)  # 1 GiB once inflated twice
    assert len(bomb) < 1 << 20
    encoded = Canned(200, bomb, (("Content-Encoding", "gzip, gzip"),))
    with Scripted(search=[encoded]) as server:
        http = HttpClient(None, timeout=30)
        tracemalloc.start()
        try:
            with pytest.raises(ContractError) as caught:
                http.post(f"{server.url}/search", b"{}", NO_RETRY, what="Search")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        http.close()
    print(f"double gzip of 1 GiB ({len(bomb):,} bytes sent): peak traced {peak / 2**20:.1f} MiB")
    assert peak <= 100 * 2**20
    message = str(caught.value)
    assert f"{server.url}/search" in message and "Search" in message
    assert "inflates past the 33,554,432-byte response cap at layer 2 of 2 ('gzip')" in message
    assert server.log[0].headers["accept-encoding"] == "identity"


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate", "gzip, deflate"])
def test_an_answer_compressed_anyway_is_inflated(coding: str) -> None:
    body = b'{"data": []}'
    for layer in coding.split(", "):
        body = zlib.compress(body) if layer == "deflate" else gzip.compress(body)
    with Scripted(search=[Canned(200, body, (("Content-Encoding", coding),))]) as server:
        http = HttpClient(None, timeout=5)
        reply = http.post(f"{server.url}/search", b"{}", NO_RETRY, what="Search")
        http.close()
    assert reply.content == b'{"data": []}'


@pytest.mark.parametrize(
    "coding,said",
    [
        ("br", "is sent under Content-Encoding 'br', which memrank does not inflate"),
        ("gzip", "does not inflate at layer 1 of 1 ('gzip')"),
    ],
)
def test_a_coding_memrank_cannot_bound_or_a_broken_layer_is_refused(coding: str, said: str) -> None:
    with Scripted(search=[Canned(200, b"not compressed", (("Content-Encoding", coding),))]) as s:
        http = HttpClient(None, timeout=5)
        with pytest.raises(ContractError, match=re.escape(said)):
            http.post(f"{s.url}/search", b"{}", NO_RETRY, what="Search")
        http.close()
