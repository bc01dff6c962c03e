"""Build hook: the wheel records the source it was built from.

Every wheel carries ``memrank/_build.json`` with the git commit of the tree it was built from
and whether that tree had uncommitted changes, so a run made from an installed wheel can say
which source built it (docs/artifacts.md, The build). The file is written outside the tree
and added to the wheel, so building never dirties the checkout it records.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUILD_FILE = "memrank/_build.json"


class SourceRecordHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._folder = ""
        if version == "editable":  # an editable install runs the checkout: git says its state
            return
        commit, dirty = _git_state(Path(self.root))
        self._folder = tempfile.mkdtemp(prefix="memrank-build-")
        record = Path(self._folder) / "_build.json"
        record.write_text(json.dumps({"git_commit": commit, "dirty": dirty}, sort_keys=True))
        record.chmod(0o644)  # the wheel keeps the mode: the same bytes from every build
        build_data["force_include"][str(record)] = BUILD_FILE

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)


def _git_state(root: Path) -> tuple[str | None, bool | None]:
    """HEAD and whether ``git status`` shows any change (untracked files included); both None
    outside a git checkout (a build from an sdist)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if head.returncode != 0:
            return None, None
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None, None
    return head.stdout.strip(), bool(status.stdout.strip())
