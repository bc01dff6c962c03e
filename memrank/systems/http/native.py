"""Native: the translator contract, for adding a system without a fork.

A translator is a small HTTP server, in any language, that wraps a memory and answers five
JSON calls: ``GET /describe``, ``POST /prepare``, ``POST /ingest``, ``POST /retrieve`` and
``POST /cleanup``, each naming the isolation unit it is about. docs/system-contract.md
specifies the contract; ``memrank targets verify URL`` checks a translator against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memrank.errors import ContractError
from memrank.system import Document
from memrank.systems.http._engine import EngineMemory, Found, Hit, numbers
from memrank.wire.schema import problems_of

__all__ = ["CONTRACT", "Description", "Native", "Retrieved", "RetrievedItem", "Usage"]

CONTRACT = "memrank-native/1"
"""The contract version a translator names in its description."""

Answer = TypeVar("Answer", bound=BaseModel)
_LENIENT = ConfigDict(frozen=True, extra="ignore")
Usage = dict[str, Annotated[float, Field(strict=True)]] | None
"""Numbers by name (tokens, cost); a string or a boolean is not a number here."""


class Description(BaseModel):
    """What ``GET /describe`` answers: the translator's contract, name and version."""

    model_config = _LENIENT
    contract: Literal["memrank-native/1"]
    """The contract version spoken; memrank speaks ``memrank-native/1``."""
    name: str = Field(min_length=1)
    """The system's short name."""
    version: str = Field(min_length=1)
    """The system's version as it reports it."""
    engine_version: str | None = None
    """The version of the engine underneath, when there is one."""


class RetrievedItem(BaseModel):
    """One document ``POST /retrieve`` returned, best first."""

    model_config = _LENIENT
    id: str = Field(min_length=1)
    """The told document's id, or the translator's own id for what it returned."""
    content: str
    """The text returned."""
    doc_id: str | None = None
    """The told document this item stands for, when ``id`` is the translator's own."""
    score: float | None = None


class Retrieved(BaseModel):
    """What ``POST /retrieve`` answers: at most k documents, best first, and optional usage."""

    model_config = _LENIENT
    documents: list[RetrievedItem]
    usage: Usage = None
    """Tokens or cost the call consumed, as numbers; absent when the system does not say."""


class _Ingested(BaseModel):
    model_config = _LENIENT
    usage: Usage = None


class Native(EngineMemory):
    """A translator speaking the memrank-native/1 contract (``MEMRANK_TRANSLATOR_URL``).

    Every call names the isolation unit (``unit``, a namespace of the run); the translator
    keeps units apart. ``prepare`` first reads ``GET /describe`` once per client, and refuses
    a translator that does not speak memrank-native/1. A retrieve that returns more than k
    documents, or an answer off the contract, is a ContractError with the evidence. The key
    (``api_key``, else ``MEMRANK_TRANSLATOR_KEY``), when given, is sent as
    ``Authorization: Bearer``. Usage the translator reports is declared; absent stays None.
    """

    name = "native"
    engine = "the translator"
    url_variable, key_variable = "MEMRANK_TRANSLATOR_URL", "MEMRANK_TRANSLATOR_KEY"
    default_timeout = 300.0

    def describe(self) -> Description:
        """The translator's description, read once per client."""
        if "description" not in self._said_once:
            answer = self._call("GET", "/describe", "describe")
            self._said_once["description"] = _parsed(Description, answer, "describe")
        described: Description = self._said_once["description"]
        return described

    def declared_version(self) -> str | None:
        """The version the translator described, once a unit has been prepared."""
        described: Description | None = self._said_once.get("description")
        return described.version if described else None

    def _reset(self, namespace: str) -> None:
        self.describe()
        self._call("POST", "/prepare", f"prepare {namespace!r}", {"unit": namespace})

    def _write(self, namespace: str, documents: Sequence[Document]) -> dict[str, float] | None:
        what = f"ingest {len(documents)} document(s) into {namespace!r}"
        body = {
            "unit": namespace,
            "documents": [document.model_dump(mode="json") for document in documents],
        }
        answer = self._call("POST", "/ingest", what, body, write=True)
        return _parsed(_Ingested, answer or {}, what).usage

    def _search(
        self, namespace: str, query: str, k: int, query_timestamp: datetime | None
    ) -> Found:
        what = f"retrieve from {namespace!r}"
        body: dict[str, Any] = {"unit": namespace, "query": query, "k": k}
        if query_timestamp is not None:
            body["query_timestamp"] = query_timestamp.isoformat()
        answer = self._call("POST", "/retrieve", what, body)
        retrieved = _parsed(Retrieved, answer, what)
        if len(retrieved.documents) > k:
            ids = ", ".join(item.id for item in retrieved.documents)
            raise ContractError(
                f"{what}: returned {len(retrieved.documents)} documents for k={k}; the contract "
                f"allows at most k (ids: {ids[:300]})"
            )
        hits = [Hit(i.id, i.content, i.doc_id, i.score) for i in retrieved.documents]
        return Found(hits, answer, numbers(retrieved.usage))

    def _delete(self, namespace: str) -> None:
        self._call("POST", "/cleanup", f"cleanup {namespace!r}", {"unit": namespace})


def _parsed(model: type[Answer], answer: Any, what: str) -> Answer:
    try:
        return model.model_validate(answer)
    except ValidationError as exc:
        raise ContractError(
            f"{what}: the answer breaks the {CONTRACT} contract: {problems_of(exc)}"
        ) from None
