"""The board theme's compiled templates, kept in memory for the rest of the process."""

from __future__ import annotations

from jinja2.bccache import Bucket, BytecodeCache

__all__ = ["COMPILED_IN_THIS_PROCESS"]


class _InProcessBytecodeCache(BytecodeCache):
    """Used when a build has no memo folder (`--no-cache`; tests and the viewer build many
    times in one process). jinja2 looks each template up by its name and the sha1 of its
    source, so an edited template is compiled again."""

    def __init__(self) -> None:
        self._held: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        held = self._held.get(bucket.key)
        if held is not None:
            bucket.bytecode_from_string(held)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._held[bucket.key] = bucket.bytecode_to_string()


COMPILED_IN_THIS_PROCESS = _InProcessBytecodeCache()
