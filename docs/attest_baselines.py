"""Sign the board's baseline runs: every shipped system on every shipped evaluation that runs
offline, made by memrank installed from a freshly built wheel. One step, safe to repeat.

    uv run python docs/attest_baselines.py --root-key ROOT.pem --release-key RELEASE.pem

It builds the wheel of this checkout, installs it (with the ``dense`` extra) into a fresh
virtual environment, and from there runs each system on each evaluation whose catalog entry
says it needs no network (``--evaluation NAME`` names evaluations instead, their material
provided through MEMRANK_DATA_DIR or the evaluation's own variable). A pair whose baseline was
already signed from the same pipeline on the same dataset is skipped, so a second run changes
nothing. Otherwise the new result is pinned in the trust root (which is created, naming ROOT's
and RELEASE's public keys, when artifacts/root.json does not exist yet), attested with RELEASE,
and the baseline it replaces is removed. Last it verifies every artifact and rebuilds site/.
The private keys are read where they are; nothing copies them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from memrank.artifacts import load_private_key, open_envelope, read_root

REPOSITORY = Path(__file__).resolve().parents[1]
ARTIFACTS = REPOSITORY / "artifacts"
DIVISION = "open-source"  # memrank ships the code of every system it ships
ROOT_EXPIRES = "2027-12-31"

# Run inside the wheel's environment, so that every answer is the installed memrank's.
_FACTS = """
import json
from memrank.catalog import catalog
from memrank.provenance import pipeline
offline = lambda entries: [e.name for e in entries if "no network" in e.needs]
print(json.dumps({
    "code": pipeline().code_sha256,
    "install": pipeline().install.value,
    "systems": offline(catalog().systems),
    "evaluations": offline(catalog().evaluations),
}))
"""
_BUNDLE = """
import sys
import memrank
print(memrank.evaluation(sys.argv[1]).dataset_bundle().sha256)
"""


@dataclass(frozen=True)
class Signed:
    """One signed run in the artifacts folder, as its statement describes it."""

    envelope: Path
    result_file: Path
    system: str
    evaluation: str
    code_sha256: str
    dataset_sha256: str


def main() -> None:
    arguments = _arguments()
    with tempfile.TemporaryDirectory(prefix="memrank-baselines-") as folder:
        work = Path(folder)
        memrank = _install_wheel(work)
        facts = json.loads(_inside(memrank, _FACTS))
        if facts["install"] != "wheel":
            sys.exit(f"the fresh environment runs memrank as {facts['install']}, not a wheel")
        signed = {(s.system, s.evaluation): s for s in _signed()}
        fresh: list[tuple[Path, Signed | None]] = []
        for evaluation in arguments.evaluation or facts["evaluations"]:
            bundle = _inside(memrank, _BUNDLE, evaluation).strip()
            for system in facts["systems"]:
                old = signed.get((system, evaluation))
                if old and (old.code_sha256, old.dataset_sha256) == (facts["code"], bundle):
                    print(f"current: {system} on {evaluation}")
                    continue
                saved = work / f"{system}__{evaluation}.json"
                _run(memrank, "run", system, evaluation, "--save", saved)
                fresh.append((saved, old))
        if fresh:
            _pin(memrank, work, arguments, [saved for saved, _ in fresh])
            for saved, old in fresh:
                track = json.loads(saved.read_bytes())["evaluation"]["track"]
                _run(memrank, "attest", saved, "--track", track, "--division", DIVISION,
                     "--key", arguments.release_key, "--artifacts", ARTIFACTS)  # fmt: skip
                if old is not None:
                    _remove(old)
    _run("uv", "run", "memrank", "verify", ARTIFACTS)
    _run("uv", "run", "memrank", "build-site", "--strict")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--root-key", type=Path, required=True, help="root private key (PEM)")
    parser.add_argument("--release-key", type=Path, required=True, help="release private key")
    parser.add_argument(
        "--evaluation",
        action="append",
        help="an evaluation to run (repeatable); default: each that needs no network",
    )
    return parser.parse_args()


def _run(*command: str | Path) -> None:
    print("$", " ".join(map(str, command)), flush=True)
    subprocess.run(list(map(str, command)), check=True, cwd=REPOSITORY)


def _inside(memrank: Path, program: str, *arguments: str) -> str:
    """What ``program`` prints when the wheel's python runs it (isolated: ``-I`` keeps this
    checkout, the working directory, off its import path)."""
    python = memrank.with_name("python")
    done = subprocess.run(
        [str(python), "-I", "-c", program, *arguments], check=True, capture_output=True, text=True
    )
    return done.stdout


def _install_wheel(work: Path) -> Path:
    """A fresh environment holding the wheel of this checkout; returns its memrank command."""
    _run("uv", "build", "--wheel", "--out-dir", work / "dist")
    (wheel,) = (work / "dist").glob("memrank-*.whl")
    _run("uv", "venv", "--quiet", work / "venv")
    python = work / "venv" / "bin" / "python"
    _run(
        "uv", "pip", "install", "--quiet", "--python", python, f"memrank[dense] @ {wheel.as_uri()}"
    )
    return python.with_name("memrank")


def _signed() -> list[Signed]:
    """Every run in the artifacts folder, read from its envelope's payload."""
    found = []
    for envelope in sorted((ARTIFACTS / "runs").glob("*.json")):
        statement: dict[str, Any] = json.loads(
            open_envelope(envelope.read_bytes(), source=str(envelope)).payload
        )
        predicate = statement["predicate"]
        found.append(
            Signed(
                envelope=envelope,
                result_file=ARTIFACTS / statement["subject"][0]["name"],
                system=predicate["system"]["declared_name"],
                evaluation=predicate["evaluation"]["name"],
                code_sha256=predicate["pipeline"]["code_sha256"],
                dataset_sha256=predicate["dataset_bundle"]["sha256"],
            )
        )
    return found


def _pin(memrank: Path, work: Path, arguments: argparse.Namespace, saved: list[Path]) -> None:
    """Create the trust root when there is none, then pin what the new results ran on."""
    root_file = ARTIFACTS / "root.json"
    if not root_file.exists():
        public = {}
        for role, private in (("root", arguments.root_key), ("release", arguments.release_key)):
            public[role] = work / f"{role}.pub.pem"
            key = load_private_key(private).public_key()
            public[role].write_bytes(
                key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
            )
        _run(memrank, "trust", "init", "--root", root_file, "--root-key", public["root"],
             "--release-key", public["release"], "--expires", ROOT_EXPIRES,
             "--sign", arguments.root_key)  # fmt: skip
    root = read_root(root_file)
    pins: list[str | Path] = []
    for result in saved:
        data = json.loads(result.read_bytes())
        policy = root.tracks.get(data["evaluation"]["track"])
        bundle = data["provenance"]["dataset_bundle"]
        baseline = policy.dataset_bundles.get(data["evaluation"]["name"]) if policy else None
        pinned = (
            policy is not None
            and baseline is not None
            and data["provenance"]["pipeline"]["code_sha256"] in policy.pipelines
            and (baseline.sha256, baseline.question_counts)
            == (bundle["sha256"], bundle["question_counts"])
        )
        if not pinned:
            pins += ["--pin", data["evaluation"]["track"], result]
    if pins:
        _run(memrank, "trust", "update", "--root", root_file, *pins, "--sign", arguments.root_key)


def _remove(old: Signed) -> None:
    """Remove a replaced baseline, and its result file unless another run names it too."""
    old.envelope.unlink()
    if all(s.result_file != old.result_file for s in _signed()):
        old.result_file.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
