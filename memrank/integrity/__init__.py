"""The integrity of endpoint runs: the participant controls the server, memrank the questions.

An endpoint sees every byte memrank sends, and the benchmarks are public. So for a system
reached over the network a run sends nothing that names the benchmark (``names``: opaque ids
from a per-run secret, revealed in the result afterwards), plants canary facts and questions
made from that secret among the benchmark's own (``canaries``), gives credit only for recalled
documents that were told to that same unit (``told``), and ends with a verdict from a
one-sided, cluster-aware comparison of benchmark and canary recall (``verdict``). docs/integrity.md
states the threat model and what is not detected.
"""
