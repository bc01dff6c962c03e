"""``--option KEY=VALUE``: text from the command line, typed by the system's own signature."""

from __future__ import annotations

import inspect
import typing
from typing import Any

from memrank.errors import UsageError

__all__ = ["typed_options"]


def typed_options(system_name: str, pairs: tuple[str, ...]) -> dict[str, Any]:
    """Each ``KEY=VALUE`` as the type the constructor's parameter KEY declares (text when it
    declares none); a value that is not of that type is refused naming the option."""
    from pydantic import TypeAdapter, ValidationError

    from memrank.catalog import system_factory

    factory = system_factory(system_name)
    hints, taken = _hints(factory), _taken(factory)
    options: dict[str, Any] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise UsageError(f"--option {pair!r} is not KEY=VALUE, e.g. --option base_url=URL")
        if taken is not None and key not in taken:
            raise UsageError(
                f"--option {pair}: {system_name} takes no option {key!r}; {_known(key, taken)}"
            )
        hint = hints.get(key)
        if hint is None or hint is Any:
            options[key] = value
            continue
        try:
            options[key] = TypeAdapter(hint).validate_strings(value)
        except ValidationError as exc:
            wanted = getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
            reason = exc.errors()[0]["msg"]
            raise UsageError(
                f"--option {key}={value}: {system_name} takes {key} as {wanted} ({reason})"
            ) from None
    return options


def _taken(factory: Any) -> list[str] | None:
    """The options the factory takes by name; None when it takes any (``**options``)."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return [p.name for p in parameters if p.kind is not inspect.Parameter.VAR_POSITIONAL]


def _known(key: str, taken: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(key, taken, n=1)
    if close:
        return f"did you mean {close[0]!r}?"
    return f"it takes {', '.join(taken)}" if taken else "it takes none"


def _hints(factory: Any) -> dict[str, Any]:
    """The annotations of the factory's parameters, resolved; none when they cannot be read."""
    target = factory.__init__ if inspect.isclass(factory) else factory
    try:
        hints = typing.get_type_hints(target)
    except (NameError, TypeError):  # an annotation that cannot be resolved stays text
        return {}
    hints.pop("return", None)
    return hints
