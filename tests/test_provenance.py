"""Provenance: the facts captured with every run and the evidence class derived from them."""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import shutil
from email.parser import HeaderParser
from pathlib import Path

import pytest

import memrank
from memrank.provenance import (
    Evidence,
    _name_and_version,
    code_sha256,
    distributions,
    evidence_of,
    is_publishable,
    pipeline,
)
from memrank.result import Install, Result
from memrank.systems import WordOverlap

PACKAGE = Path(memrank.__file__).parent


def test_a_run_records_its_provenance(tmp_path: Path) -> None:
    result = memrank.run(WordOverlap(), memrank.evaluation("demo"))
    provenance = result.provenance
    assert provenance is not None
    assert provenance.pipeline.memrank_version == memrank.__version__
    assert provenance.pipeline.code_sha256 == code_sha256(PACKAGE)
    assert provenance.dataset_bundle == memrank.evaluation("demo").dataset_bundle()
    assert provenance.dataset_bundle.question_counts == {
        "abstention": 1,
        "paraphrase": 1,
        "single-hop": 2,
        "temporal": 1,
    }
    assert provenance.environment.cpus is not None and provenance.environment.cpus >= 1
    assert Result.load(result.save(tmp_path / "r.json")).provenance == provenance


def test_the_checkout_under_test_is_a_development_observation() -> None:
    # The suite runs memrank from this checkout (an editable install): never evidence.
    pipeline = memrank.run(WordOverlap(), memrank.evaluation("demo")).provenance.pipeline  # type: ignore[union-attr]
    assert pipeline.install in (Install.EDITABLE, Install.SOURCE)
    assert evidence_of(pipeline.install, "in-process") is Evidence.DEVELOPMENT
    if (PACKAGE.parent / ".git").exists():
        assert pipeline.git_commit is not None and len(pipeline.git_commit) == 40
        assert pipeline.dirty is not None


def test_a_refused_run_records_provenance_too() -> None:
    result = memrank.run(object(), memrank.evaluation("demo"))
    assert result.refusal is not None and result.provenance is not None


@pytest.mark.parametrize(
    "install,transport,evidence",
    [
        (Install.WHEEL, "in-process", Evidence.REPRODUCIBLE),
        (Install.WHEEL, "http", Evidence.ENDPOINT),
        (Install.EDITABLE, "in-process", Evidence.DEVELOPMENT),
        (Install.EDITABLE, "http", Evidence.DEVELOPMENT),
        (Install.SOURCE, "in-process", Evidence.DEVELOPMENT),
    ],
)
def test_evidence_is_derived_from_facts(
    install: Install, transport: str, evidence: Evidence
) -> None:
    assert evidence_of(install, transport) is evidence


def test_neither_a_development_observation_nor_a_slice_nor_a_dirty_build_is_publishable() -> None:
    clean = pipeline().model_copy(update={"git_commit": "a" * 40, "dirty": False})
    assert is_publishable(Evidence.REPRODUCIBLE, None, clean)
    assert is_publishable(Evidence.ENDPOINT, None, clean)
    assert not is_publishable(Evidence.DEVELOPMENT, None, clean)
    assert not is_publishable(Evidence.REPRODUCIBLE, "smoke", clean)
    assert not is_publishable(Evidence.REPRODUCIBLE, None, clean.model_copy(update={"dirty": True}))
    unknown = clean.model_copy(update={"git_commit": None, "dirty": None})
    assert not is_publishable(Evidence.REPRODUCIBLE, None, unknown)


def test_the_build_record_leaves_out_of_the_code_hash(tmp_path: Path) -> None:
    package = tmp_path / "memrank"
    package.mkdir()
    (package / "__init__.py").write_bytes(b"x = 1\n")
    before = code_sha256(package)
    (package / "_build.json").write_bytes(b'{"dirty": false, "git_commit": "abc"}')
    assert code_sha256(package) == before  # one code hash, built from any number of commits


def test_code_hash_is_the_sorted_manifest_of_sources_and_data(tmp_path: Path) -> None:
    package = tmp_path / "memrank"
    (package / "evaluations" / "data").mkdir(parents=True)
    (package / "__init__.py").write_bytes(b"x = 1\n")
    (package / "evaluations" / "data" / "demo.json").write_bytes(b"{}")
    manifest = "".join(
        f"{hashlib.sha256(content).hexdigest()}  {name}\n"
        for name, content in [
            ("memrank/__init__.py", b"x = 1\n"),
            ("memrank/evaluations/data/demo.json", b"{}"),
        ]
    )
    expected = hashlib.sha256(manifest.encode()).hexdigest()
    assert code_sha256(package) == expected

    # Bytecode and board templates are not measurement code; changing them changes nothing.
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (package / "board" / "templates").mkdir(parents=True)
    (package / "board" / "templates" / "index.html").write_bytes(b"<html>")
    assert code_sha256(package) == expected

    # Any source or data byte, or a file's name, changes it.
    (package / "evaluations" / "data" / "demo.json").write_bytes(b"{ }")
    assert code_sha256(package) != expected
    (package / "evaluations" / "data" / "demo.json").write_bytes(b"{}")
    shutil.move(package / "__init__.py", package / "_init.py")
    assert code_sha256(package) != expected


def test_a_share_carries_the_counts_it_comes_from() -> None:
    result = memrank.run(WordOverlap(), memrank.evaluation("demo"))
    (failure_rate,) = result.values_of("failure-rate")
    assert (failure_rate.count, failure_rate.total, failure_rate.value) == (0, 5, 0.0)
    with pytest.raises(ValueError, match="not count/total"):
        memrank.Value(measure="m", decider="rule", value=0.5, count=1, total=3)
    with pytest.raises(ValueError, match="give both"):
        memrank.Value(measure="m", decider="rule", value=0.5, count=1)


@pytest.mark.parametrize(
    "metadata",
    [
        "Metadata-Version: 2.1\nName: Foo.Bar\nVersion: 1.0\n\nName: not-this\n",
        "metadata-version: 2.1\nname: foo\nversion: 2.0rc1\r\nSummary: x\n  Version: 9\n",
        "Name: foo\nSummary: one\n\tline more\nVersion:   3  \n",
        "Summary: no name\n\nName: foo\nVersion: 1\n",
        "Name: foo\n\nVersion: 1\n",
        "",
    ],
)
def test_name_and_version_read_as_the_email_parser_reads_them(metadata: str) -> None:
    headers = HeaderParser().parsestr(metadata)
    expected = tuple(
        None if headers[key] is None else headers[key].strip() for key in ("Name", "Version")
    )
    assert _name_and_version(metadata) == expected


def test_every_installed_distribution_is_listed_as_its_metadata_says() -> None:
    expected = set()
    for dist in importlib.metadata.distributions():
        name = re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
        expected.add(f"{name}=={dist.version}")
    listed = distributions()
    assert set(listed) == expected
    assert list(listed) == sorted(listed, key=lambda entry: entry.partition("==")[0])
