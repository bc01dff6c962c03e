"""What an endpoint run puts between the evaluation and the wire, for one run.

Before the run, each unit gets its canaries (``canaries.plant``). On the way out, every name
is made opaque (``names``): the unit (the user id or namespace a client builds from it), the
run and evaluation labels a client may add, each document's id, and its session; a document
keeps its content, its time and a ``role`` if it has one, and nothing else of its metadata
(the speaker is in the content where the material puts it there). On the way back, the ids and
sessions a client attributed are mapped back to the real ones (an id the run never sent claims
nothing, and the service's own id is marked ``endpoint:``), and every recalled document is
checked against what its unit was told (``told``).
"""

from __future__ import annotations

from collections.abc import Sequence

from memrank.integrity.canaries import counts, plant
from memrank.integrity.names import WireNames
from memrank.integrity.told import ToldIndex
from memrank.system import Document, Recall
from memrank.task import Unit

__all__ = ["ENDPOINT_ID", "EndpointGuard"]

_KEPT_METADATA = ("role",)
_MAPPED_METADATA = ("doc_id", "session_id")
ENDPOINT_ID = "endpoint:"
"""What a recalled document's own id is prefixed with when it is the service's, not a name
this run sent."""


class EndpointGuard:
    """Names, canaries and told checks of one endpoint run."""

    def __init__(self, names: WireNames, *, canaries: bool = True) -> None:
        self.names = names
        self.canaries = canaries
        """False for a retry of a run's failed tasks: the run's own canaries stand for it."""
        self._planted_ids: set[str] = set()

    @classmethod
    def fresh(cls) -> EndpointGuard:
        return cls(WireNames.fresh())

    @property
    def secret(self) -> bytes:
        return self.names.secret

    def planted(self, units: Sequence[Unit]) -> list[Unit]:
        """The units with their canaries (as they are, when this run plants none)."""
        if not self.canaries:
            return list(units)
        planted = [
            plant(unit, self.secret, count)
            for unit, count in zip(units, counts(units, self.secret), strict=True)
        ]
        for before, after in zip(units, planted, strict=True):
            own = {document.id for document in before.documents}
            self._planted_ids.update(d.id for d in after.documents if d.id not in own)
        return planted

    def unplanted(self, recall: Recall) -> tuple[Recall, tuple[int, ...]]:
        """A benchmark task's recall without the turns this run planted (canary facts and their
        look-alikes, which are memrank's, not the benchmark's), and the 1-based ranks they
        held: a benchmark question is read as if they had never been told."""
        planted = [self._is_planted(document) for document in recall.documents]
        if not any(planted):
            return recall, ()
        kept = tuple(
            d for d, is_planted in zip(recall.documents, planted, strict=True) if not is_planted
        )
        ranks = tuple(rank for rank, is_planted in enumerate(planted, start=1) if is_planted)
        return recall.model_copy(update={"documents": kept}), ranks

    def _is_planted(self, document: Document) -> bool:
        """Whether a recalled document (its names mapped back) is a planted turn: by its id,
        or by the id a client attributed it to (``doc_id``, or ``doc_ids`` all planted)."""
        planted = self._planted_ids
        claimed = document.metadata.get("doc_ids")
        return (
            document.id in planted
            or document.metadata.get("doc_id") in planted
            or (isinstance(claimed, list) and bool(claimed) and all(i in planted for i in claimed))
        )

    def scope(self, run_id: str, evaluation: str) -> tuple[str, str]:
        """The run and evaluation labels a client may build names from, opaque."""
        return self.names.of("run", run_id), self.names.of("evaluation", evaluation)

    def unit(self, name: str) -> str:
        return self.names.of("unit", name)

    def documents(self, documents: Sequence[Document]) -> list[Document]:
        """The documents as sent: opaque id and session, content and time as they are."""
        return [self._sent(document) for document in documents]

    def _sent(self, document: Document) -> Document:
        metadata = {k: document.metadata[k] for k in _KEPT_METADATA if k in document.metadata}
        session = document.metadata.get("session_id")
        if session is not None:
            metadata["session_id"] = self.names.of("session", str(session))
        return Document(
            id=self.names.of("document", document.id),
            content=document.content,
            timestamp=document.timestamp,
            metadata=metadata,
        )

    def received(self, recall: Recall) -> Recall:
        """The recall with every opaque id and session this run sent mapped back."""
        documents = tuple(self._mapped(document) for document in recall.documents)
        return recall.model_copy(update={"documents": documents})

    def _mapped(self, document: Document) -> Document:
        """One recalled document as the run reads it: every opaque name this run sent mapped
        back; an id or session it never sent claims nothing (a service cannot name a real id
        it was never given), and the service's own id is kept as ``endpoint:<id>`` so it can
        never pass for one of the evaluation's ids."""
        real = self.names.real_of
        metadata = dict(document.metadata or {})
        for key in _MAPPED_METADATA:
            if key in metadata:
                known = real(str(metadata[key]))
                if known is None:
                    del metadata[key]
                else:
                    metadata[key] = known
        if "doc_ids" in metadata:
            claimed = metadata.pop("doc_ids")
            known_ids = [real(str(i)) for i in claimed] if isinstance(claimed, list | tuple) else []
            if any(i is not None for i in known_ids):
                metadata["doc_ids"] = [i for i in known_ids if i is not None]
        own = real(document.id)
        return document.model_copy(
            update={"id": own or f"{ENDPOINT_ID}{document.id}", "metadata": metadata}
        )

    def told(self, unit: Unit) -> ToldIndex:
        return ToldIndex(unit.documents)
