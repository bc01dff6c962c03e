"""The root of memrank's exception tree and the errors of running, measuring, signing and
building (``memrank.errors`` draws the whole tree and is where callers import it from)."""

from __future__ import annotations

import click

__all__ = [
    "AttestRefused",
    "BoardConfigError",
    "BoardError",
    "CheckFailed",
    "ContractError",
    "DatasetError",
    "DatasetMalformed",
    "DatasetMismatch",
    "DatasetMissing",
    "DefinitionError",
    "EndpointError",
    "HungUp",
    "Interrupted",
    "JudgeFailed",
    "KeyFileError",
    "MeasureRefused",
    "MemrankError",
    "MergeRefused",
    "MissingExtra",
    "NotCanonicalizable",
    "OutputUnwritable",
    "PairingRefused",
    "RefusedRun",
    "ReproduceRefused",
    "RerunDiffers",
    "ResultFileError",
    "RunSuspect",
    "SuspectRun",
    "SiteOutOfDate",
    "TasksFailedInRun",
    "Terminated",
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
    """A command or system needs an optional extra that is not installed
    (``pip install 'memrank[serve]'``, ``'memrank[dense]'``)."""


class OutputUnwritable(UsageError):
    """An output path that cannot be written: checked before the work that fills it starts."""


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


class MergeRefused(MemrankError):
    """memrank merge refused: not shards, a shard missing or repeated, or shards of different
    systems, evaluations, pipelines or dataset bundles."""

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


class KeyFileError(MemrankError):
    """A key file that is missing, unreadable, not PEM, or not an Ed25519 key."""

    exit_code = 2


class AttestRefused(MemrankError):
    """attest will not sign this result (refused run, no provenance, unknown division...)."""

    exit_code = 3


class SuspectRun(AttestRefused):
    """A run whose integrity verdict is suspect (memrank.integrity): neither review, approve
    nor attest signs it for publication."""


class RunSuspect(MemrankError):
    """`memrank run` finished, printed and saved an endpoint run whose integrity verdict is
    suspect."""

    exit_code = 11


class NotCanonicalizable(AttestRefused):
    """A number RFC 8785 canonical JSON cannot carry: NaN, infinity, an integer beyond 2^53."""


# -- evaluation material ----------------------------------------------------------------------


class DatasetError(MemrankError):
    """An evaluation's material that cannot be used; the message names the file."""


class DatasetMissing(DatasetError):
    """A file that is not where it should be and could not be downloaded there."""


class DatasetMismatch(DatasetError):
    """A file whose size or sha256 differs from its pin (truncated, edited, or another version)."""


class DatasetMalformed(DatasetError):
    """A file that does not parse in its format, or whose counts differ from the fingerprint."""


class BoardError(MemrankError):
    """The board cannot be built or checked as asked."""

    exit_code = 1


class BoardConfigError(BoardError):
    """board.toml, the templates or the docs cannot be used as written."""

    exit_code = 2


class SiteOutOfDate(BoardError):
    """``build-site --check``: the committed site is not what the artifacts build."""

    exit_code = 1


class Interrupted(MemrankError):
    """Ctrl-C (or ``memrank kill``) stopped a run; the message says how to resume it."""

    exit_code = 130


class Terminated(Interrupted):
    """SIGTERM (CI cancellation, ``docker stop``, systemd) stopped a run, as Ctrl-C does."""

    exit_code = 143


class HungUp(Interrupted):
    """SIGHUP (the terminal closed) stopped a run, as Ctrl-C does."""

    exit_code = 129


class TasksFailedInRun(MemrankError):
    """``memrank run`` finished (the result printed, and saved when asked) but tasks failed."""

    exit_code = 7


class JudgeFailed(MemrankError):
    """The judge failed every call (``run`` or ``measure``): nothing was judged, though the
    result was printed (and saved when asked); the message quotes the first failure."""

    exit_code = 8


class ReproduceRefused(MemrankError):
    """``memrank reproduce`` cannot recreate the recorded build (the commit is not in the
    repository, a distribution cannot be had, the run records no build) or rerun it."""

    exit_code = 10


class RerunDiffers(MemrankError):
    """A rerun's deterministic files are not the signed ones; the printed reading says which
    tasks flipped and which fields differ."""

    exit_code = 9
