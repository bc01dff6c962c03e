"""The Agent Memory Leaderboard Add/Search contract itself.

``wire.schema`` models its requests and responses, ``wire.serve`` exposes any in-process
Memory over it (needs the ``serve`` extra), and ``wire.check`` is the conformance suite to
run against an endpoint before a formal run. The client, ``AmlMemory``, lives with the other
clients of running services in ``memrank.systems.http``.
"""

__all__: list[str] = []
