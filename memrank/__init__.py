"""memrank: an instrument for memory systems.

Seven words: system, evaluation, task, trace, measure, run, result. ``memrank.run(system,
evaluation)`` is the entry point; ``memrank.measure`` applies a measure to stored traces and
``memrank.paired`` reads two results of one evaluation side by side.

Names are imported on first use (PEP 562), so ``import memrank`` stays cheap for the command
line and for tools that only need the version; ``from memrank import Memory`` loads what it needs.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from memrank._lazy import lazy_names

if TYPE_CHECKING:
    from memrank.catalog import catalog as catalog
    from memrank.catalog import evaluation as evaluation
    from memrank.catalog import system as system
    from memrank.errors import MemrankError as MemrankError
    from memrank.evaluation import Evaluation as Evaluation
    from memrank.measure import Decider as Decider
    from memrank.measure import Measure as Measure
    from memrank.measure import Scope as Scope
    from memrank.measure import Value as Value
    from memrank.measures import DemoScore as DemoScore
    from memrank.measures import FailureRate as FailureRate
    from memrank.measures import Latency as Latency
    from memrank.measures import WordMatch as WordMatch
    from memrank.paired import Paired as Paired
    from memrank.paired import paired as paired
    from memrank.result import Result as Result
    from memrank.run import measure as measure
    from memrank.run import run as run
    from memrank.system import Assistant as Assistant
    from memrank.system import Document as Document
    from memrank.system import Memory as Memory
    from memrank.system import Model as Model
    from memrank.system import Recall as Recall
    from memrank.system import Retriever as Retriever
    from memrank.system import System as System
    from memrank.task import Clearing as Clearing
    from memrank.task import Expected as Expected
    from memrank.task import Task as Task
    from memrank.trace import Trace as Trace

_HOMES = {
    "catalog": "memrank.catalog",
    "evaluation": "memrank.catalog",
    "system": "memrank.catalog",
    "MemrankError": "memrank.errors",
    "Clearing": "memrank.task",
    "Evaluation": "memrank.evaluation",
    "Expected": "memrank.task",
    "Task": "memrank.task",
    "Decider": "memrank.measure",
    "Measure": "memrank.measure",
    "Scope": "memrank.measure",
    "Value": "memrank.measure",
    "DemoScore": "memrank.measures",
    "FailureRate": "memrank.measures",
    "Latency": "memrank.measures",
    "WordMatch": "memrank.measures",
    "Paired": "memrank.paired",
    "paired": "memrank.paired",
    "Result": "memrank.result",
    "measure": "memrank.run",
    "run": "memrank.run",
    "Assistant": "memrank.system",
    "Document": "memrank.system",
    "Memory": "memrank.system",
    "Model": "memrank.system",
    "Recall": "memrank.system",
    "Retriever": "memrank.system",
    "System": "memrank.system",
    "Trace": "memrank.trace",
}

__all__ = sorted([*_HOMES, "__version__"])


class _Package(types.ModuleType):
    """Keeps ``memrank.run``, ``memrank.system`` and friends the functions, not the modules.

    Importing a submodule sets it as an attribute of its package; five public functions share
    a name with the module they live beside (run, measure, system, evaluation, catalog), so
    without this the first import of, say, memrank/run.py would replace ``memrank.run``.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in _HOMES:
            return  # the module stays in sys.modules; the public name stays the function
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

_first_use, __dir__ = lazy_names(__name__, _HOMES)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from memrank.provenance import memrank_version

        return memrank_version()
    return _first_use(name)
