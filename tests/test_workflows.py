"""The workflows that hold the release signing key pass zizmor's static analysis: every action
pinned to a full commit SHA (its version in a comment), no checkout that keeps credentials,
least-privilege permissions per job."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).parents[1]
GITHUB = REPOSITORY / ".github"
ZIZMOR = Path(sys.executable).parent / "zizmor"


def test_zizmor_finds_nothing_at_medium_severity_or_above() -> None:
    assert ZIZMOR.is_file(), "zizmor is in the dev group: uv sync"
    done = subprocess.run(
        [str(ZIZMOR), "--offline", "--format", "json", "--min-severity", "medium", str(GITHUB)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    findings = json.loads(done.stdout or "[]")
    assert findings == [], [(f["ident"], f["locations"][0]["symbolic"]["key"]) for f in findings]
    assert done.returncode == 0, done.stderr


def test_every_action_is_pinned_to_a_commit_with_its_version_named() -> None:
    uses = [
        (path.relative_to(REPOSITORY), line.strip())
        for path in sorted(GITHUB.rglob("*.yml"))
        for line in path.read_text().splitlines()
        if re.match(r"\s*(- )?uses: ", line)
    ]
    remote = [(path, line) for path, line in uses if "uses: ./" not in line]
    assert remote
    for path, line in remote:
        assert re.search(r"uses: [\w.-]+/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+", line), (path, line)
