"""memrank's one exception tree.

Every error memrank raises on purpose is a ``MemrankError``; each carries a message that says
what went wrong, where (the file, field or argument), and what to do. Because the root is a
``click.ClickException``, the command line prints the message and exits with the class's
``exit_code`` without a traceback.

    MemrankError                    (exit 1)
    ├── UsageError                  (exit 2)  a bad argument, option or name
    │   ├── UnknownName                       a catalog name nothing ships under
    │   └── MissingExtra                      an optional extra (memrank[serve]) not installed
    ├── DefinitionError             (exit 2)  a system, evaluation or measure that is malformed
    ├── RefusedRun                  (exit 3)  memrank.run refused before touching the system
    ├── MeasureRefused              (exit 3)  a measure reads what the stored run never produced
    ├── PairingRefused              (exit 3)  two results that cannot be read side by side
    ├── ResultFileError             (exit 4)  a saved result that cannot be read back
    ├── EndpointError               (exit 1)  a running service failed a call, after the retries allowed
    │   └── ContractError                     a response off the contract or API it answers
    └── CheckFailed                 (exit 1)  `memrank check` found the endpoint not conformant

A refused run is also returned as a ``Result`` whose ``refusal`` names the reason, so nothing
is lost; ``RefusedRun`` is what the command line raises when it meets one. An
``EndpointError`` raised inside a run is recorded on the task's trace, like any failure of a
system, and never stops the run.
"""

from __future__ import annotations

import click

__all__ = [
    "CheckFailed",
    "ContractError",
    "DefinitionError",
    "EndpointError",
    "MeasureRefused",
    "MemrankError",
    "PairingRefused",
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


class MissingExtra(UsageError):
    """A command needs an optional extra that is not installed (``pip install 'memrank[serve]'``)."""


class DefinitionError(MemrankError):
    """A system, evaluation or measure whose definition cannot be used as written."""

    exit_code = 2


class RefusedRun(MemrankError):
    """memrank.run refused the run before touching the system."""

    exit_code = 3


class MeasureRefused(MemrankError):
    """A measure reads a trace field or value name that the run never produced."""

    exit_code = 3


class PairingRefused(MemrankError):
    """memrank.paired refused two results: not one evaluation at one version, a refused run, or
    two values of one measure for one task."""

    exit_code = 3


class ResultFileError(MemrankError):
    """A saved result file that is missing, malformed or of an unknown schema."""

    exit_code = 4


class EndpointError(MemrankError):
    """A running service answered an error status or could not be reached, after the retries
    its operation allows; the message names the URL and status, capped and free of secrets."""


class ContractError(EndpointError):
    """A response that breaks the contract or API it answers (the Add/Search contract, an
    engine's documented API, the translator contract); the message carries the evidence."""


class CheckFailed(MemrankError):
    """``memrank check`` found at least one check the endpoint does not pass."""
