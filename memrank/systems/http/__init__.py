"""Clients of running services, built on one shared HTTP client with the retry policy."""

from memrank.systems.http.aml import AmlMemory

__all__ = ["AmlMemory"]
