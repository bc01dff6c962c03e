"""Your own evaluation from a file: ``memrank run SYSTEM ./my-eval.jsonl`` (or ``.yaml``).

A JSON Lines file holds one task per line; a YAML file a list of the same tasks (or a mapping
whose ``tasks`` is that list; reading YAML needs ``memrank[yaml]``). A task's fields:

- ``id`` (required): unique in the file;
- ``question`` (required): what the system is asked;
- ``documents``: what the system is told before, each ``{"id", "text"}`` with an optional
  ``timestamp`` (ISO 8601, UTC) and ``session``; tasks of one ``group`` share their documents
  (each listed once in the group, on any of its tasks), and the group's store is cleared after
  its last task;
- ``evidence``: the ids of the documents that hold the answer (read by evidence recall);
- ``answers``: reference answers; ``spans``: text a recalled document must contain
  (read by word-match); ``abstain``: true when the documents never answer it;
- ``group`` (default: the task alone) and ``category`` (default ``uncategorised``).

Every error names the file, the line and the field. The file's sha256 is the dataset bundle,
and its version ``file@v1+<sha256[:8]>``: an edited file is another evaluation. Measured by
evidence recall (its headline ``evidence-recall@10``), session recall and word-match.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memrank.errors import DatasetMalformed, MissingExtra, UsageError
from memrank.evaluation import BundleFile, DatasetBundle, Evaluation, question_counts
from memrank.measures import EvidenceRecall, SessionRecall, WordMatch
from memrank.measures.evidence import EvidenceTurn, evidence_metadata
from memrank.system import Document
from memrank.task import Clearing, Expected, Task

__all__ = ["HEADLINE", "SUFFIXES", "from_file", "is_evaluation_file"]

HEADLINE = "evidence-recall@10"
"""The headline value of an evaluation from a file: evidence recall among the first 10."""

SUFFIXES = (".jsonl", ".yaml", ".yml")


class _Document(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    text: str
    timestamp: str | None = None
    session: str | None = None


class _Task(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    documents: list[_Document] = []
    evidence: list[str] = []
    answers: list[str] = []
    spans: list[str] = []
    abstain: bool = False
    group: str | None = None
    category: str | None = None


def is_evaluation_file(name: str) -> bool:
    """Whether an EVALUATION argument names a file rather than a shipped evaluation."""
    return name.endswith(SUFFIXES)


def from_file(path: Path) -> Evaluation:
    """The evaluation the file at ``path`` writes down; DatasetMalformed naming line and field."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the evaluation file ({exc.strerror})") from None
    rows = _yaml_rows(path, raw) if path.suffix in (".yaml", ".yml") else _jsonl_rows(path, raw)
    if not rows:
        raise DatasetMalformed(f"{path}: holds no tasks; write one task per line (docs/cli.md)")
    tasks = _tasks(path, [(line, _parsed(path, line, data)) for line, data in rows])
    digest = hashlib.sha256(raw).hexdigest()
    return Evaluation(
        name=path.stem,
        version=f"file@v1+{digest[:8]}",
        tasks=tasks,
        headline=HEADLINE,
        measures=(EvidenceRecall(), SessionRecall(), WordMatch()),
        clearing=Clearing.PER_GROUP,
        dataset=DatasetBundle(
            sha256=digest,
            files=(BundleFile(name=path.name, sha256=digest, size=len(raw)),),
            question_counts=question_counts(tasks),
        ),
    )


def _jsonl_rows(path: Path, raw: bytes) -> list[tuple[int, Any]]:
    import orjson

    rows = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, orjson.loads(line)))
        except orjson.JSONDecodeError as exc:
            raise DatasetMalformed(f"{path}:{number}: not a JSON object ({exc})") from None
    return rows


def _yaml_rows(path: Path, raw: bytes) -> list[tuple[int, Any]]:
    try:
        import yaml  # type: ignore[import-untyped]  # no stubs; an optional extra
    except ImportError:
        raise MissingExtra(
            f"{path}: reading YAML needs the yaml extra: pip install 'memrank[yaml]' "
            "(or write the tasks as JSON Lines)"
        ) from None
    loader = yaml.SafeLoader(raw.decode("utf-8", errors="replace"))
    try:
        root = loader.get_single_node()
        if isinstance(root, yaml.MappingNode):
            root = next((v for k, v in root.value if k.value == "tasks"), None)
        if not isinstance(root, yaml.SequenceNode):
            raise DatasetMalformed(f"{path}: expected a list of tasks (or a mapping with tasks)")
        return [
            (node.start_mark.line + 1, loader.construct_object(node, deep=True))
            for node in root.value
        ]
    except yaml.YAMLError as exc:
        raise DatasetMalformed(f"{path}: not YAML ({exc})".replace("\n", " ")) from None
    finally:
        loader.dispose()


def _parsed(path: Path, line: int, data: Any) -> _Task:
    if not isinstance(data, dict):
        raise DatasetMalformed(f"{path}:{line}: a task is an object with id and question")
    try:
        return _Task.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or "(the task)"
        where = f" (task {data.get('id')!r})" if isinstance(data.get("id"), str) else ""
        raise DatasetMalformed(f"{path}:{line}: field {field!r}{where}: {error['msg']}") from None


def _tasks(path: Path, parsed: list[tuple[int, _Task]]) -> tuple[Task, ...]:
    told: dict[str, dict[str, tuple[int, Document]]] = {}
    seen: dict[str, int] = {}
    for line, task in parsed:
        if task.id in seen:
            raise DatasetMalformed(
                f"{path}:{line}: field 'id': {task.id!r} is also the id on line {seen[task.id]}"
            )
        seen[task.id] = line
        group = told.setdefault(task.group or task.id, {})
        for position, document in enumerate(task.documents):
            made = _document(path, line, position, document, task.group or task.id)
            earlier = group.get(document.id)
            if earlier is not None and earlier[1] != made:
                raise DatasetMalformed(
                    f"{path}:{line}: field 'documents.{position}': document {document.id!r} "
                    f"differs from the one of that id on line {earlier[0]} of its group"
                )
            group.setdefault(document.id, (line, made))
    return tuple(_task(path, line, task, told[task.group or task.id]) for line, task in parsed)


def _document(path: Path, line: int, position: int, document: _Document, unit: str) -> Document:
    try:
        return Document(
            id=document.id,
            content=document.text,
            user_id=unit,
            timestamp=document.timestamp,
            metadata={"session_id": document.session} if document.session else {},
        )
    except ValidationError as exc:
        raise DatasetMalformed(
            f"{path}:{line}: field 'documents.{position}.timestamp': "
            f"{exc.errors()[0]['msg']} (give ISO 8601 in UTC, e.g. 2024-05-01T09:30:00Z)"
        ) from None


def _task(path: Path, line: int, task: _Task, told: dict[str, tuple[int, Document]]) -> Task:
    turns = []
    for position, document_id in enumerate(task.evidence):
        if document_id not in told:
            raise DatasetMalformed(
                f"{path}:{line}: field 'evidence.{position}': no document {document_id!r} in "
                f"the task's group; name a document's id"
            )
        document = told[document_id][1]
        session = (document.metadata or {}).get("session_id", document.id)
        turns.append(EvidenceTurn(id=document.id, session=str(session), text=document.text))
    return Task(
        id=task.id,
        prompt=task.question,
        group=task.group,
        context=tuple(document for _, document in told.values()),
        category=task.category,
        expected=Expected(
            answers=tuple(task.answers),
            required_spans=tuple(task.spans),
            evidence_doc_ids=tuple(task.evidence),
            abstain=task.abstain,
        ),
        metadata=evidence_metadata(turns) if turns else {},
    )
