"""Clients of running services, built on one shared HTTP client with the retry policy."""

from memrank.systems.http.aml import AmlMemory
from memrank.systems.http.atomicmemory import AtomicMemory
from memrank.systems.http.hindsight import Hindsight
from memrank.systems.http.mem0 import Mem0
from memrank.systems.http.native import Native
from memrank.systems.http.supermemory import Supermemory

__all__ = ["AmlMemory", "AtomicMemory", "Hindsight", "Mem0", "Native", "Supermemory"]
