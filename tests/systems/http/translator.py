"""The native translator example (examples/native-translator), started in this process."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

EXAMPLE = Path(__file__).parents[3] / "examples" / "native-translator"


def example(name: str) -> ModuleType:
    """A module of the example (``translator`` or ``toy_memory``), imported as it runs."""
    if str(EXAMPLE) not in sys.path:
        sys.path.insert(0, str(EXAMPLE))  # the example imports its sibling as a top-level module
    return __import__(name)


@contextmanager
def running_translator(key: str | None = None, **replace: Any) -> Iterator[Any]:
    """The example translator on a free loopback port; ``replace`` swaps its attributes
    (a different memory, a different handler) to make a broken translator from it."""
    translator = example("translator")
    server = translator.Translator(("127.0.0.1", 0), key)
    for name, value in replace.items():
        setattr(server, name, value)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        server.url = f"http://127.0.0.1:{server.server_address[1]}"
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
