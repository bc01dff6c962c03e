"""What the library systems share: the extra each needs, the documents a unit was told under
the key its library stores and returns, and the embedder they all use.

A library stores each document under a key memrank gives it (the document's position in the
unit, as text) and returns that key with each hit; the document recalled is the one told under
it, so evidence is attributed by id (memrank.measures.evidence). A key the library never got
back is a failure of the library, raised, never guessed.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import tempfile
import weakref
from collections.abc import Sequence

from memrank.system import Document, Recall
from memrank.systems.dense import MiniLM, require_extra
from memrank.systems.text import CaptionsRead

__all__ = ["Told", "embedder", "require_library", "scratch", "version_of"]

_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def require_library(system: str, extra: str, modules: Sequence[str]) -> None:
    """Refuse, naming the extra, when a library the system needs is not installed; and keep
    every library off the network (no hub downloads) from here on."""
    require_extra(system, extra, modules)
    for name, value in _OFFLINE.items():
        os.environ.setdefault(name, value)


def version_of(distribution: str) -> str:
    """``name==version`` of an installed distribution, as components record a library."""
    return f"{distribution}=={importlib.metadata.version(distribution)}"


def scratch(owner: object, prefix: str) -> str:
    """A temporary directory for a library's files, removed when ``owner`` is collected (or
    when the process exits)."""
    path = tempfile.mkdtemp(prefix=prefix)
    weakref.finalize(owner, shutil.rmtree, path, ignore_errors=True)
    return path


def embedder() -> MiniLM:
    """The one embedder every library system is given: memrank's all-MiniLM-L6-v2 (int8 ONNX),
    so two exact dense stores rank alike and a difference is the library's own."""
    return MiniLM()


class Told:
    """The documents the current unit was told, in order, each under its key (its position)."""

    def __init__(self) -> None:
        self.documents: list[Document] = []
        self.captions = CaptionsRead()

    def add(self, documents: Sequence[Document]) -> list[tuple[str, str]]:
        """Keep the documents; their (key, text) pairs, for the library to store."""
        self.captions.told(documents)
        start = len(self.documents)
        self.documents.extend(documents)
        return [(str(start + i), d.text) for i, d in enumerate(documents)]

    def recall(
        self, library: str, keys: Sequence[str], scores: Sequence[float], declared_as: str
    ) -> Recall:
        """The documents stored under ``keys``, in that order, with the library's scores
        (declared under ``declared_as``: "scores", or "distances" where lower is nearer)."""
        documents = []
        for key in keys:
            position = int(key) if key.isdigit() else -1
            if not 0 <= position < len(self.documents):
                raise RuntimeError(
                    f"{library} returned the key {key!r}, under which nothing was stored in this "
                    "unit: its store and memrank's record of it disagree"
                )
            documents.append(self.documents[position])
        return Recall(
            documents=tuple(documents), declared={declared_as: [round(s, 6) for s in scores]}
        )

    def clear(self) -> None:
        self.documents = []
