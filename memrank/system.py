"""The system under test: the four kinds, and the Document and Recall they exchange.

A system's kind is the class it subclasses, so a kind cannot be declared wrong. Each kind
names the verbs it requires; they are abstract, and ``memrank.run`` refuses, with the missing
verbs named, before touching a system that lacks one. (The kinds deliberately do not use
``ABCMeta``: a missing verb should be a refusal memrank states, not a ``TypeError`` at
construction.)
"""

from __future__ import annotations

import inspect
from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field

from memrank._basics import FROZEN, UTCDateTime

__all__ = [
    "Assistant",
    "Content",
    "ContentPart",
    "Document",
    "IMAGE_CAPTIONS",
    "ImagePart",
    "ImageURL",
    "Memory",
    "Model",
    "Recall",
    "Retriever",
    "System",
    "TextPart",
    "image_count",
    "takes_options",
    "text_of",
]


class TextPart(BaseModel):
    """An ordered content part holding text."""

    model_config = FROZEN
    type: Literal["text"] = "text"
    text: str


class ImageURL(BaseModel):
    """Where an image is: a URL or a ``data:`` URI with base64 bytes."""

    model_config = FROZEN
    url: str


class ImagePart(BaseModel):
    """An ordered content part holding an image."""

    model_config = FROZEN
    type: Literal["image_url"] = "image_url"
    image_url: ImageURL


ContentPart = Annotated[TextPart | ImagePart, Field(discriminator="type")]
Content = str | tuple[ContentPart, ...]
"""Text, or ordered text and image parts for multimodal tracks."""


IMAGE_CAPTIONS = "image_captions"
"""The metadata key under which a document lists a caption per image part, in order."""


def text_of(content: Content, captions: Sequence[str | None] = ()) -> str:
    """The text of a content value, as a text-only reader gets it: the string itself, or its
    parts joined by newlines, the i-th image part read as ``[image: <captions[i]>]``.

    An image part without a caption is left out: a text-only reader cannot see it, and a
    placeholder word would match every other placeholder.
    """
    if isinstance(content, str):
        return content
    texts: list[str] = []
    images = 0
    for part in content:
        if isinstance(part, TextPart):
            texts.append(part.text)
            continue
        caption = captions[images] if images < len(captions) else None
        images += 1
        if caption:
            texts.append(f"[image: {caption}]")
    return "\n".join(texts)


def image_count(content: Content) -> int:
    """How many image parts a content value holds."""
    return 0 if isinstance(content, str) else sum(isinstance(p, ImagePart) for p in content)


class Document(BaseModel):
    """Something a system is told: one passage, message or session."""

    model_config = FROZEN
    id: str = Field(min_length=1)
    """Stable identifier; evidence and recall are scored against it."""
    content: Content
    """The passage itself: a string, or ordered content parts."""
    user_id: str | None = None
    """Whose memory this belongs to, when the material says."""
    timestamp: UTCDateTime | None = None
    """When it was said, in UTC, when the material says."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Whatever else the material or the system attaches (speaker, turn ids, a source doc_id)."""

    @property
    def text(self) -> str:
        """What a text-only system reads: the content's text, each image part as its caption
        (``metadata["image_captions"]``) where the document gives one."""
        return text_of(self.content, self.metadata.get(IMAGE_CAPTIONS, ()))


class Recall(BaseModel):
    """What a retrieve returned: documents ranked best first, and what the system declares.

    Empty means "searched, found none"; a failure raises instead. Never more than k, never
    padded: the order is the measurement.
    """

    model_config = FROZEN
    documents: tuple[Document, ...] = ()
    """Ranked best first."""
    declared: dict[str, Any] = Field(default_factory=dict)
    """Whatever the system wants to state about this call (scores, what it considered)."""


class System:
    """What every kind shares: its name and the optional declarations.

    The declarations return None until a system overrides them; memrank records None as
    "did not state", never as zero.
    """

    kind: ClassVar[str] = ""
    verbs: ClassVar[tuple[str, ...]] = ()
    can_be_told: ClassVar[bool] = False
    """Whether the kind has a verb to be told documents with."""

    name: ClassVar[str | None] = None
    """A short name the system gives itself (its catalog name); results show the class name."""
    version: ClassVar[str | None] = None
    """The version of this system as the caller names it."""
    engine_version: ClassVar[str | None] = None
    """The version of the engine underneath, when there is one."""
    transport: ClassVar[str] = "in-process"
    """How memrank reaches the system: in-process, or http for a running service."""
    catalog_options: dict[str, str] = {}  # replaced per instance, never mutated
    """The options ``memrank.system(name, ...)`` made this one with, as text (``--option``
    takes them so); empty for a system made any other way. A rerun makes it again from them."""

    def declared_version(self) -> str | None:
        """The version the running system reports about itself, if it says."""
        return None

    def usage(self) -> dict[str, float] | None:
        """What the last call consumed or was billed (tokens, cost), if the system says."""
        return None

    def engine_timings(self) -> dict[str, float] | None:
        """Milliseconds only the system can see for the last call (its own stages), if it says."""
        return None

    def state_fingerprint(self) -> str | None:
        """A fingerprint of what the system currently holds, if it says; used to observe clearing."""
        return None

    def components(self) -> dict[str, str]:
        """The parts this system is composed of (embedder, model, reranker) by name."""
        return {}

    def time_limits(self) -> str | None:
        """For a system reached over a network: its deadlines, its budget per call and the
        worst-case time to a verdict on a dead endpoint, as a run states them at its start."""
        return None


class Memory(System):
    """A memory is told things, asked later for what is relevant, and cleared on request.

    A memory whose ``retrieve`` also takes an ``options`` keyword is handed a multiple-choice
    task's choice texts there; other memories are never passed it.
    """

    kind = "memory"
    verbs = ("prepare", "ingest", "retrieve", "cleanup")
    can_be_told = True

    @abstractmethod
    def prepare(self, isolation_unit: str) -> None:
        """Start a fresh store for one isolation unit (a group, a task, or the whole run)."""

    @abstractmethod
    def ingest(self, documents: Sequence[Document]) -> None:
        """Be told these documents."""

    @abstractmethod
    def retrieve(
        self, query: Content, k: int, user_id: str, query_timestamp: datetime | None = None
    ) -> Recall:
        """Return at most k documents relevant to the query, best first."""

    @abstractmethod
    def cleanup(self) -> None:
        """Clear what the current isolation unit was told."""

    def for_unit(self, run_id: str, evaluation: str) -> Memory:
        """The memory that serves one isolation unit of a run.

        The default is this very object, and memrank then runs units one after another. A
        memory that can serve several units at once (a client of a running service) returns
        a fresh handle per unit, sharing only what is safe to share; memrank then drives up
        to ``concurrency`` units at the same time, each on its own handle. ``run_id`` is
        fresh for every run and ``evaluation`` is the evaluation's name, for a service that
        keeps units apart by name because it cannot delete.
        """
        return self


def takes_options(memory: Memory) -> bool:
    """Whether this memory's ``retrieve`` accepts a multiple-choice task's ``options``."""
    return "options" in inspect.signature(memory.retrieve).parameters


class Model(System):
    """A model answers a prompt; it has no verb to be told documents with."""

    kind = "model"
    verbs = ("complete",)

    @abstractmethod
    def complete(self, prompt: Content) -> str:
        """Answer the prompt."""


class Retriever(System):
    """A retriever ranks the documents it is handed for a query; it keeps nothing."""

    kind = "retriever"
    verbs = ("rank",)
    can_be_told = True

    @abstractmethod
    def rank(self, query: Content, documents: Sequence[Document], k: int) -> Recall:
        """Return at most k of the documents, best first."""


class Assistant(System):
    """An assistant answers a prompt given the history it is shown."""

    kind = "assistant"
    verbs = ("respond",)
    can_be_told = True

    @abstractmethod
    def respond(self, prompt: Content, history: Sequence[Document]) -> str:
        """Answer the prompt in the light of the history."""
