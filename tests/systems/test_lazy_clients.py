"""The engine clients load only when asked for: in-process systems never pay for HTTP."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_in_process_systems_do_not_import_the_http_client() -> None:
    code = "import sys, memrank; from memrank.systems import WordOverlap; print('httpx' in sys.modules)"
    assert _run(code) == "False"


def test_engine_clients_are_exported_from_memrank_systems() -> None:
    code = (
        "import sys; from memrank.systems import AtomicMemory, Hindsight, Mem0, Native, Supermemory;"
        "print(Mem0.__module__, 'httpx' in sys.modules)"
    )
    assert _run(code) == "memrank.systems.http.mem0 True"
