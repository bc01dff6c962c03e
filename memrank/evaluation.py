"""The evaluation: tasks, the measures it bundles, and a clearing rule, under a name and version.

No scoring lives here; scoring lives in measures, which an evaluation only bundles.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from memrank._basics import FROZEN
from memrank.budget import Budget
from memrank.measure import Measure
from memrank.system import Document
from memrank.task import Clearing, Task, Unit

__all__ = ["BundleFile", "DatasetBundle", "Evaluation"]


class BundleFile(BaseModel):
    """One file of an evaluation's material."""

    model_config = FROZEN
    name: str
    """The file's name relative to the evaluation's data folder."""
    sha256: str
    size: int


class DatasetBundle(BaseModel):
    """What an evaluation's material is, pinned: recorded with every run for provenance."""

    model_config = FROZEN
    sha256: str
    """Digest of the material: over its files' names and digests, or of the tasks themselves."""
    files: tuple[BundleFile, ...] = ()
    """The files it was read from; empty for an evaluation written in code."""
    question_counts: dict[str, int]
    """Tasks per category (``uncategorised`` for tasks without one)."""


class Evaluation(BaseModel):
    """Tasks, the measures they are scored by, and a clearing rule, under a name and version."""

    model_config = ConfigDict(**FROZEN, arbitrary_types_allowed=True)
    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    """Like ``memrank-demo@v1+def0``; two results pair only at the same version."""
    tasks: tuple[Task, ...]
    measures: tuple[Measure, ...] = ()
    clearing: Clearing = Clearing.PER_GROUP
    track: str = "textual"
    """The board track the evaluation belongs to: textual, multimodal or coding."""
    k: int = Field(default=10, ge=1)
    """How many documents one retrieve may return."""
    slice: str | None = None
    """Set when this is a subset of a full evaluation (a slice is not a measurement)."""
    dataset: DatasetBundle | None = None
    """The pinned material the tasks were read from; derived from the tasks when left out."""
    budget: Budget | None = None
    """The context budget every system's recall is held to (see memrank.budget); None: none
    declared, so arms are compared at k only."""
    headline: str | None = None
    """The value name that is this evaluation's headline (the one its board column reads), its
    mean the number every summary shows; None: the first value name of the first measure."""
    _derived_bundle: DatasetBundle | None = PrivateAttr(default=None)

    @field_validator("tasks")
    @classmethod
    def _unique_task_ids(cls, tasks: tuple[Task, ...]) -> tuple[Task, ...]:
        seen: set[str] = set()
        for task in tasks:
            if task.id in seen:
                raise ValueError(f"task id {task.id!r} appears twice; task ids must be unique")
            seen.add(task.id)
        return tasks

    @model_validator(mode="after")
    def _measures_are_measures(self) -> Evaluation:
        for measure in self.measures:
            if not isinstance(measure, Measure):
                raise ValueError(f"{measure!r} in measures is not a memrank.Measure")
        return self

    def dataset_bundle(self) -> DatasetBundle:
        """The material's bundle: the given one, or a digest of the tasks as written."""
        if self.dataset is not None:
            return self.dataset
        if self._derived_bundle is None:  # the tasks never change, so digest them once
            digest = hashlib.sha256()
            for task in self.tasks:
                digest.update(task.model_dump_json().encode())
            self._derived_bundle = DatasetBundle(
                sha256=digest.hexdigest(), question_counts=question_counts(self.tasks)
            )
        return self._derived_bundle

    @property
    def has_documents(self) -> bool:
        return any(task.context for task in self.tasks)

    def unit_count(self) -> int:
        """How many isolation units ``units()`` makes, without gathering their documents."""
        if self.clearing is Clearing.AT_END:
            return 1
        if self.clearing is Clearing.PER_TASK:
            return len(self.tasks)
        return len({task.group or task.id for task in self.tasks})

    def units(self) -> Iterator[Unit]:
        """The isolation units the clearing rule makes, in task order."""
        if self.clearing is Clearing.AT_END:
            yield Unit(name=self.name, tasks=self.tasks, documents=_distinct(self.tasks))
            return
        if self.clearing is Clearing.PER_TASK:
            for task in self.tasks:
                yield Unit(name=task.id, tasks=(task,), documents=_distinct((task,)))
            return
        grouped: dict[str, list[Task]] = {}
        for task in self.tasks:
            grouped.setdefault(task.group or task.id, []).append(task)
        for name, tasks in grouped.items():
            yield Unit(name=name, tasks=tuple(tasks), documents=_distinct(tasks))


def question_counts(tasks: tuple[Task, ...]) -> dict[str, int]:
    """Tasks per category, sorted by category."""
    counts = Counter(task.category or "uncategorised" for task in tasks)
    return dict(sorted(counts.items()))


def _distinct(tasks: tuple[Task, ...] | list[Task]) -> tuple[Document, ...]:
    """The tasks' documents in order of first appearance, each given once.

    Tasks of a group usually share the very same Document objects, so identity is checked
    first; an equal document under the same id (built twice) is still given once.
    """
    seen_objects: set[int] = set()
    seen_contexts: set[tuple[int, ...]] = set()
    by_id: dict[str, list[Document]] = {}
    documents = []
    for task in tasks:
        # the tasks of a group mostly hold the very same documents in the same order: one
        # look at the whole context (made in C) spares walking it document by document
        context = tuple(map(id, task.context))
        if context in seen_contexts:
            continue
        seen_contexts.add(context)
        for document in task.context:
            if id(document) in seen_objects:
                continue
            seen_objects.add(id(document))
            same_id = by_id.setdefault(document.id, [])
            if any(document == other for other in same_id):
                continue
            same_id.append(document)
            documents.append(document)
    return tuple(documents)
