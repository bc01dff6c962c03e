"""Sign the board's baseline runs: every shipped offline system on the demo and on full LoCoMo,
the runs already on the board (Mem-Gallery, MemoryCode), and the running engines named
(ActiveMemoryIndex over the Add/Search wire, Hindsight over its API), made by memrank installed
from a freshly built wheel. One step, safe to repeat.

    uv run python docs/attest_baselines.py --root-key ROOT.pem --release-key RELEASE.pem \
        [--only SYSTEM[:EVALUATION]]... [--evaluation NAME]... [--system NAME]... \
        [--endpoint NAME=URL]... [--results-store DIR]

It refuses a checkout with uncommitted changes (a run is published only from a wheel built
from a clean, committed tree, which the wheel records), builds the wheel of this checkout,
installs it with the ``dense`` extra and every library's extra (``LIBRARY_EXTRAS``) into a
fresh virtual environment, and from there runs
each target: every system whose catalog entry says it needs no network on each evaluation
(default: demo and locomo), and every (system, evaluation) already signed on the board.
``--evaluation NAME`` and ``--system NAME`` narrow or widen that list as before; ``--only
SYSTEM[:EVALUATION]`` keeps to the pairs named (every evaluation of SYSTEM without one).
LoCoMo's material is found through MEMRANK_DATA_DIR or MEMRANK_LOCOMO_FILE, else in
../shared/data beside the clone. ``--endpoint NAME=URL`` names a running engine of the
catalog's ``ENDPOINTS`` (``active-memory-index``, ``hindsight``; docs/publishing.md starts
them), measured on LoCoMo as an endpoint observation. A run already signed in the current format from the same
pipeline on the same dataset is skipped, so a second run changes nothing. Otherwise the new
results are pinned in the trust root (created, naming ROOT's and RELEASE's public keys, when
artifacts/root.json does not exist), attested with RELEASE, and the runs they replace are
removed. Each result file goes into the results store directory; those of at most 1 MiB are
also kept in artifacts/results/, and an endpoint observation's (which no rerun can make
again) is kept there gzip-compressed whatever its size. Last it verifies every artifact and
rebuilds site/. The private keys are read where they are; nothing copies them. Without
--root-key the pipeline must already be pinned; without --release-key MEMRANK_SIGNING_KEY
signs.
"""

from __future__ import annotations

import argparse
import gzip
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
DIVISION = "open-source"  # every system measured here is open source (artifacts/systems.toml)
ROOT_EXPIRES = "2027-12-31"
TIMEOUT_S = 3600  # any one step; a full LoCoMo run of the slowest system takes minutes
# Running engines measured over the wire, as endpoint observations: catalog name -> evaluation
ENDPOINTS = {"active-memory-index": "locomo", "hindsight": "locomo"}
LIBRARY_EXTRAS = ("chroma", "lancedb", "langgraph", "llamaindex", "mem0")
# uv's override of pyproject.toml ([tool.uv]), which an install of the wheel does not read
OVERRIDES = "pystemmer>=3.1.0\n"

# Run inside the wheel's environment, so that every answer is the installed memrank's.
_FACTS = """
import json
from memrank.catalog import catalog
from memrank.provenance import pipeline
offline = lambda entries: [e.name for e in entries if "no network" in e.needs]
p = pipeline()
print(json.dumps({
    "code": p.code_sha256,
    "install": p.install.value,
    "commit": p.git_commit,
    "dirty": p.dirty,
    "systems": offline(catalog().systems),
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
    files: tuple[Path, ...]
    """The files it names in the artifacts folder (scores, timings)."""
    result_name: str
    system: str
    evaluation: str
    code_sha256: str
    dataset_sha256: str
    current_format: bool
    """Signed with a timings file: what this memrank signs."""


def main() -> None:
    arguments = _arguments()
    store = (arguments.results_store or STORE).resolve()
    shared = REPOSITORY.parent / "shared" / "data"
    if not {"MEMRANK_DATA_DIR", "MEMRANK_LOCOMO_FILE"} & set(os.environ) and shared.is_dir():
        os.environ["MEMRANK_DATA_DIR"] = str(shared)
    changes = subprocess.run(
        ["git", "-C", str(REPOSITORY), "status", "--porcelain"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    if changes.strip():
        sys.exit("the checkout has uncommitted changes; commit them first: a run is published "
                 "only from a wheel built from a clean, committed tree")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="memrank-baselines-") as folder:
        work = Path(folder)
        memrank = _install_wheel(work)
        facts = json.loads(_inside(memrank, _FACTS))
        if facts["install"] != "wheel" or facts["dirty"] is not False:
            sys.exit(f"the fresh environment runs memrank as {facts['install']} built from "
                     f"{facts['commit']} (dirty: {facts['dirty']}), not a clean wheel")  # fmt: skip
        signed = {(s.system, s.evaluation): s for s in _signed()}
        bundles: dict[str, str] = {}
        fresh: list[tuple[Path, Signed | None]] = []
        for system, evaluation in _targets(arguments, facts["systems"], signed):
            if evaluation not in bundles:
                bundles[evaluation] = _inside(memrank, _BUNDLE, evaluation).strip()
            old = signed.get((system, evaluation))
            if _is_current(old, (facts["code"], bundles[evaluation]), f"{system} on {evaluation}"):
                continue
            saved = work / f"{system}__{evaluation}.json"
            options: list[str] = []
            if system in ENDPOINTS:
                url = dict(e.partition("=")[::2] for e in arguments.endpoint or ()).get(system)
                if not url:
                    print(f"stale or missing: {system} on {evaluation}; pass --endpoint "
                          f"{system}=URL to measure it")  # fmt: skip
                    continue
                options = ["--option", f"base_url={url}"]
            _run(memrank, "run", system, evaluation, *options, "--save", saved, quiet=True)
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


def _targets(
    arguments: argparse.Namespace, offline: list[str], signed: dict[tuple[str, str], Signed]
) -> list[tuple[str, str]]:
    """The (system, evaluation) pairs to make: offline systems on the evaluations asked (or
    the defaults), the endpoints on theirs, and every pair already signed; then narrowed by
    --system and --only."""
    evaluations = arguments.evaluation or list(EVALUATIONS)
    pairs = [(system, evaluation) for evaluation in evaluations for system in offline]
    pairs += [(system, on) for system, on in ENDPOINTS.items() if on in evaluations]
    if not arguments.evaluation:
        pairs += sorted(signed)
    only = [entry.partition(":")[::2] for entry in arguments.only or ()]
    return [
        (system, evaluation)
        for system, evaluation in dict.fromkeys(pairs)
        if (not arguments.system or system in arguments.system)
        and (not only or any(s == system and e in ("", evaluation) for s, e in only))
    ]


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
    parser.add_argument(
        "--only",
        action="append",
        metavar="SYSTEM[:EVALUATION]",
        help="only this system (on this evaluation) (repeatable)",
    )
    parser.add_argument(
        "--endpoint",
        action="append",
        metavar="NAME=URL",
        help=f"a running engine to measure (repeatable): {', '.join(ENDPOINTS)}",
    )
    parser.add_argument(
        "--results-store",
        type=Path,
        help=f"the results store directory to place result files in; default {STORE.name}/",
    )
    return parser.parse_args()


def _is_current(old: Signed | None, current: tuple[str, str], what: str) -> bool:
    if old and old.current_format and (old.code_sha256, old.dataset_sha256) == current:
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
    """A fresh environment holding the wheel of this checkout; returns its memrank command.
    The wheel is installed by a URL naming its sha256, which the installation records."""
    _run("uv", "build", "--wheel", "--out-dir", work / "dist")
    (wheel,) = (work / "dist").glob("memrank-*.whl")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    _run("uv", "venv", "--quiet", work / "venv")
    python = work / "venv" / "bin" / "python"
    overrides = work / "overrides.txt"
    overrides.write_text(OVERRIDES)
    extras = ",".join(("dense", *LIBRARY_EXTRAS))
    _run("uv", "pip", "install", "--quiet", "--python", python, "--override", overrides,
         f"memrank[{extras}] @ {wheel.as_uri()}#sha256={digest}")  # fmt: skip
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
                files=tuple(ARTIFACTS / n for n in names if not n.startswith("results/")),
                result_name=next(n for n in names if n.startswith("results/")),
                system=predicate["system"]["declared_name"],
                evaluation=predicate["evaluation"]["name"],
                code_sha256=predicate["pipeline"]["code_sha256"],
                dataset_sha256=predicate["dataset_bundle"]["sha256"],
                current_format=any(n.startswith("timings/") for n in names),
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
    """Sign one result. Its result file goes to the store; also to git when it is small, and
    gzip-compressed when no rerun could make it again (an endpoint observation)."""
    data = json.loads(saved.read_bytes())
    key = ["--key", arguments.release_key] if arguments.release_key else []
    printed = subprocess.run(
        [str(memrank), "attest", str(saved), "--track", data["evaluation"]["track"],
         "--division", DIVISION, *map(str, key), "--artifacts", str(ARTIFACTS),
         "--results-store", str(store)],
        check=True, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=REPOSITORY,
    ).stdout  # fmt: skip
    print(printed, end="")
    placed = Path(
        next(line.split()[1] for line in printed.splitlines() if line.startswith("result:"))
    )
    kept = ARTIFACTS / "results"
    kept.mkdir(exist_ok=True)
    if data["system"]["transport"] != "in-process":
        packed = gzip.compress(placed.read_bytes(), compresslevel=9, mtime=0)
        (kept / f"{placed.name}.gz").write_bytes(packed)
        print(f"kept in git: results/{placed.name}.gz ({len(packed):,} bytes)")
    elif placed.stat().st_size <= KEEP_IN_GIT:
        shutil.copyfile(placed, kept / placed.name)


def _remove(old: Signed) -> None:
    """Remove a replaced run, and the files it names unless another run names them too (the
    results store keeps every result file)."""
    old.envelope.unlink()
    left = _signed()
    for path in old.files:
        if all(path not in s.files for s in left):
            path.unlink(missing_ok=True)
    if all(s.result_name != old.result_name for s in left):
        for kept in (ARTIFACTS / old.result_name, ARTIFACTS / f"{old.result_name}.gz"):
            kept.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
