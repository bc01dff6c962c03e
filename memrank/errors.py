"""memrank's one exception tree.

Every error memrank raises on purpose is a ``MemrankError``; each carries a message that says
what went wrong, where (the file, field or argument), and what to do. Because the root is a
``click.ClickException``, the command line prints the message and exits with the class's
``exit_code`` without a traceback.

    MemrankError                    (exit 1)
    ├── UsageError                  (exit 2)  a bad argument, option or name
    │   └── UnknownName                       a catalog name nothing ships under
    ├── DefinitionError             (exit 2)  a system, evaluation or measure that is malformed
    ├── RefusedRun                  (exit 3)  memrank.run refused before touching the system
    ├── MeasureRefused              (exit 3)  a measure reads what the stored run never produced
    ├── ResultFileError             (exit 4)  a saved result that cannot be read back
    ├── DatasetError                (exit 1)  an evaluation's material cannot be used
    │   ├── DatasetMissing                    a file is not there and could not be downloaded
    │   ├── DatasetMismatch                   a file whose size or sha256 differs from its pin
    │   └── DatasetMalformed                  a file that is not in the format, or counts that differ
    └── MissingExtra                (exit 1)  a system needs an optional extra that is not installed

A refused run is also returned as a ``Result`` whose ``refusal`` names the reason, so nothing
is lost; ``RefusedRun`` is what the command line raises when it meets one.
"""

from __future__ import annotations

import click

__all__ = [
    "DatasetError",
    "DatasetMalformed",
    "DatasetMismatch",
    "DatasetMissing",
    "DefinitionError",
    "MeasureRefused",
    "MemrankError",
    "MissingExtra",
    "RefusedRun",
    "ResultFileError",
    "UnknownName",
    "UsageError",
]


class MemrankError(click.ClickException):
    """The root of every error memrank raises on purpose."""

    exit_code = 1


class UsageError(MemrankError):
    """A bad argument, option or name given by the caller."""

    exit_code = 2


class UnknownName(UsageError):
    """A name that nothing in the catalog ships under."""


class DefinitionError(MemrankError):
    """A system, evaluation or measure whose definition cannot be used as written."""

    exit_code = 2


class RefusedRun(MemrankError):
    """memrank.run refused the run before touching the system."""

    exit_code = 3


class MeasureRefused(MemrankError):
    """A measure reads a trace field or value name that the run never produced."""

    exit_code = 3


class ResultFileError(MemrankError):
    """A saved result file that is missing, malformed or of an unknown schema."""

    exit_code = 4


class DatasetError(MemrankError):
    """An evaluation's material that cannot be used; the message names the file."""


class DatasetMissing(DatasetError):
    """A file that is not where it should be and could not be downloaded there."""


class DatasetMismatch(DatasetError):
    """A file whose size or sha256 differs from its pin (truncated, edited, or another version)."""


class DatasetMalformed(DatasetError):
    """A file that does not parse in its format, or whose counts differ from the fingerprint."""


class MissingExtra(MemrankError):
    """A system that needs an optional extra (``pip install 'memrank[NAME]'``) not installed."""
