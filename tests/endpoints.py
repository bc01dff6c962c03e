"""Endpoint runs in the tests: a memory served over the Add/Search contract and run through the
aml client, an in-process memory driven as an endpoint is, and what a run with a known secret
plants and sends.

A memory reached over the network is guarded by the run (memrank.integrity): opaque names,
canaries among its tasks. To compare such a run with the same memory in-process, drive the
in-process memory through ``AsEndpoint`` with the same secret: both then carry the same
canaries at the same places.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import memrank
from memrank.evaluation import Evaluation
from memrank.integrity.guard import EndpointGuard
from memrank.integrity.names import WireNames
from memrank.result import Result
from memrank.system import Content, Document, Memory, Recall
from memrank.systems.http import AmlMemory
from memrank.task import Unit
from memrank.wire._service import ContractService
from memrank.wire.serve import serving

SECRET = bytes(range(16))
"""A fixed run secret, so a test knows which canaries a run carries and how it names them."""


class AsEndpoint(Memory):
    """An in-process memory driven as an endpoint is: guarded by the run."""

    transport = "simulated-endpoint"

    def __init__(self, inner: Memory) -> None:
        self.inner = inner
        self.name, self.version = inner.name, inner.version

    def prepare(self, isolation_unit: str) -> None:
        self.inner.prepare(isolation_unit)

    def ingest(self, documents: Sequence[Document]) -> None:
        self.inner.ingest(documents)

    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        return self.inner.retrieve(query, k, user_id, query_timestamp)

    def cleanup(self) -> None:
        self.inner.cleanup()


def planted(evaluation: Evaluation, secret: bytes = SECRET) -> list[Unit]:
    """The evaluation's units as a run with ``secret`` drives them: each with its canaries."""
    return EndpointGuard(WireNames(secret)).planted(list(evaluation.units()))


def wire_name(kind: str, real: str, secret: bytes = SECRET) -> str:
    """The opaque name a run with ``secret`` sends for ``real``, a name of ``kind`` (unit,
    document, session, run or evaluation)."""
    return WireNames(secret).of(kind, real)


def over_aml(
    make_memory: Callable[[], Memory],
    evaluation: Evaluation,
    secret: bytes | None = None,
    **client: Any,
) -> Result:
    """``evaluation`` run through the aml client (``client``: its options) against
    ``make_memory``'s memories served on loopback, one per user id as ``memrank serve`` does;
    ``secret`` as ``memrank.run`` takes it (None: a fresh one)."""
    with serving(ContractService(make_memory)) as url:
        memory = AmlMemory(url, **{"timeout": 30, **client})
        try:
            return memrank.run(memory, evaluation, secret=secret)
        finally:
            memory.close()
