"""What a reader who uses the board's numbers cites: the board itself (its home page says how),
and the paper behind each evaluation a column reads (its page says which).

The papers are the board's own knowledge of the benchmarks memrank ships, keyed by the
evaluation's name as runs sign it (``locomo``), as each evaluation module's docstring and
docs/evaluations.md cite them; an evaluation not listed here (the demo, memrank's own) has no
paper to cite.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAPERS", "Paper"]


@dataclass(frozen=True)
class Paper:
    """The paper that introduced a benchmark."""

    authors: str
    """As a citation shortens them: ``Maharana et al.``"""
    title: str
    venue: str
    """Where it was published, or its arXiv identifier."""
    url: str
    """Its https:// address (the arXiv abstract)."""


PAPERS: dict[str, Paper] = {
    "locomo": Paper(
        "Maharana et al.",
        "Evaluating Very Long-Term Conversational Memory of LLM Agents",
        "ACL 2024",
        "https://arxiv.org/abs/2402.17753",
    ),
    "longmemeval": Paper(
        "Wu et al.",
        "LongMemEval: Benchmarking Chat Assistants on Long-Term Interactive Memory",
        "ICLR 2025",
        "https://arxiv.org/abs/2410.10813",
    ),
    "mem-gallery": Paper(
        "Bei et al.",
        "Mem-Gallery: Benchmarking Multimodal Long-Term Conversational Memory for MLLM Agents",
        "arXiv:2601.03515",
        "https://arxiv.org/abs/2601.03515",
    ),
    "memorycode": Paper(
        "Rakotonirina et al.",
        "From Tools to Teammates: Evaluating LLMs in Multi-Session Coding Interactions",
        "arXiv:2502.13791",
        "https://arxiv.org/abs/2502.13791",
    ),
    "beam": Paper(
        "Tavakoli et al.",
        "Beyond a Million Tokens: Benchmarking and Enhancing Long-Term Memory in LLMs",
        "arXiv:2510.27246",
        "https://arxiv.org/abs/2510.27246",
    ),
}
"""By evaluation name."""
