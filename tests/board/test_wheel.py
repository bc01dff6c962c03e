"""The board's theme ships inside the wheel: an installed memrank builds a board from a folder
holding nothing but artifacts/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.board.conftest import REPOSITORY, TEMPLATES


def _wheel(out: Path) -> Path:
    uv = shutil.which("uv")
    assert uv, "uv is needed to build the wheel"
    subprocess.run(
        [uv, "build", "--wheel", "--out-dir", str(out), str(REPOSITORY)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (wheel,) = out.glob("memrank-*.whl")
    return wheel


def test_the_wheel_carries_every_template_and_asset(tmp_path: Path) -> None:
    names = set(zipfile.ZipFile(_wheel(tmp_path)).namelist())
    theme = {
        "memrank/board/templates/" + path.relative_to(TEMPLATES).as_posix()
        for path in TEMPLATES.rglob("*")
        if path.is_file()
    }
    assert {
        "memrank/board/templates/track.html",
        "memrank/board/templates/static/board.css",
    } <= theme
    assert theme <= names


def test_an_installed_wheel_builds_a_board_without_a_templates_folder(
    tmp_path: Path, standard: Path
) -> None:
    installed = tmp_path / "installed"
    with zipfile.ZipFile(_wheel(tmp_path / "dist")) as wheel:
        wheel.extractall(installed)
    folder = tmp_path / "board-home"
    shutil.copytree(standard, folder / "artifacts")
    # The wheel's memrank comes first on the path, ahead of the checkout under test.
    code = "import memrank, sys; from memrank.cli import main; print(memrank.__file__); main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "build-site"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(installed)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith(str(installed))
    assert (folder / "site" / "static" / "board.css").is_file()
    assert "Textual memory" in (folder / "site" / "textual" / "index.html").read_text()
