"""Mem-Gallery's answer protocol and judge, checked on every request a loopback model server saw.

bm25 on ``mem-gallery:smoke`` (one question of each of the nine types), answered and judged under
``mem-gallery@v1``. Every answer request is the one upstream's ``run_bench.py`` builds on its
caption path for the rounds memrank sent: its system prompt file, then ``TextMsgPrompt`` and
``DialogueAgentPrompt`` filled by ``str.format``, the memories laid out here from the raw dialogue
file (not by memrank's renderer). Every judge request is ``llm_judge.txt`` with its three
placeholders replaced (``str.replace``), byte for byte. The judge's scores become the values
upstream's reading gives; a score off the rubric or an unreadable reply is undecided, and the
mean is over the decided answers.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

import memrank
from memrank.answer import AnswerStage, answer_name, count_tokens, judged_name, protocol
from memrank.cli import main
from memrank.evaluations.mem_gallery import mem_gallery
from memrank.systems.models import OpenAIChat, cache_key
from tests.answer.upstream import constant, text_file
from tests.systems.models.chat_server import KEY, ChatServer

_RUN_BENCH = "mem-gallery-run_bench.py.txt"
_ANSWER = "D1:IMG_002, as the conversation shows."
_ASKED = re.compile(r"\nQuestion: (.*)\nGround Truth: ", re.S)
# what the scripted judge says to each type's question, and the value upstream's reading gives
_VERDICTS: dict[str, tuple[str, float | None]] = {
    "VS": ('{"score": 1, "reasoning": "Exact image id."}', 1.0),
    "MR": ('{"score": 0.75, "reasoning": "Misses a detail."}', 1.0),
    "AR": ('{"score": 0.5, "reasoning": "Uncertain."}', 0.5),
    "CD": ('{"score": 0.25, "reasoning": "Tangential."}', 0.5),
    "TR": ('{"score": 0, "reasoning": "Wrong order."}', 0.0),
    "KR": ('{"score": 0.6, "reasoning": "Between levels."}', None),  # off the rubric
    "VR": ("I would give this answer a 1.", None),  # no JSON object
    "FR": ('```json\n{"score": 1, "reasoning": "All brands."}\n```', 1.0),
    "TTL": ('{"score": 0.75}', 1.0),
}


def _raw(shared_data: Path, group: str) -> dict[str, Any]:
    data: dict[str, Any] = orjson.loads(
        (shared_data / "mem-gallery" / "dialog" / f"{group}.json").read_bytes()
    )
    return data


def _question(raw: dict[str, Any], task_id: str) -> dict[str, Any]:
    number = int(task_id.rpartition(":q")[2])
    question: dict[str, Any] = raw["human-annotated QAs"][number - 1]
    return question


def _judge_reply(types: dict[str, str]) -> Any:
    """A model answering every answer prompt with ``_ANSWER`` and every judge prompt with the
    scripted verdict for its question's type."""

    def reply(messages: list[dict[str, Any]]) -> str:
        asked = _ASKED.search(messages[-1]["content"])
        if messages[-1]["content"].startswith("You are an impartial judge") and asked:
            return _VERDICTS[types[asked.group(1)]][0]
        return _ANSWER

    return reply


def _upstream_answer(raw: dict[str, Any], question: dict[str, Any], sent: tuple[str, ...]) -> Any:
    """run_bench.py's messages for a caption-track memory that recalled the rounds ``sent``, in
    that order (the question's own image read as its caption, as memrank documents)."""
    speaker_a = f"user ({raw['character_profile']['name']})"
    memories: dict[str, str] = {}
    for session in raw["multi_session_dialogues"]:
        for turn in session["dialogues"]:
            text = f"{speaker_a}: {turn['user']}\nassistant: {turn['assistant']}"
            if turn.get("input_image"):
                text += (
                    f"\nimage:\nimage_id: {turn['image_id'][0]}"
                    f"\nimage_caption: {turn['image_caption'][0]}"
                )
            memories[turn["round"]] = f"timestamp: {session['date']}\n{text}"
    listed = "\n".join(f"[Memory {i}] {memories[r]}" for i, r in enumerate(sent)) or "None"
    kind = {"AR": "ar", "CD": "cd", "VS": "vs"}.get(question["point"].upper())
    constraint = f"\n\n{text_file(f'mem-gallery-{kind}_prompt.txt', True)}" if kind else ""
    user = constant(_RUN_BENCH, "TextMsgPrompt").format(
        memory_context=f"[Memory Start]\n{listed}\n[Memory End]"
    ) + constant(_RUN_BENCH, "DialogueAgentPrompt").format(
        observation=question["question"],
        speaker_a=speaker_a,
        speaker_b="assistant",
        format_constraint=constraint,
    )
    if question.get("question_image"):
        user += constant(_RUN_BENCH, "DialogueAgentPromptImage")
        user += f"image_caption: {question['image_caption']}"
    return [
        {"role": "system", "content": text_file("mem-gallery-sys_prompt.txt", True)},
        {"role": "user", "content": user},
    ]


@pytest.fixture(scope="module")
def smoke(shared_data: Path) -> memrank.Evaluation:
    return mem_gallery("smoke", path=shared_data / "mem-gallery")


def test_bm25_on_mem_gallery_smoke_asks_and_judges_as_upstream_and_scores_its_reading(
    shared_data: Path, smoke: memrank.Evaluation
) -> None:
    evaluation = smoke.model_copy(update={"measures": ()})
    raw = _raw(shared_data, evaluation.tasks[0].group or "")
    types = {_question(raw, t.id)["question"]: t.category or "" for t in evaluation.tasks}
    assert sorted(types.values()) == sorted(_VERDICTS)  # one question of every type
    with ChatServer(reply=_judge_reply(types)) as server:
        model = OpenAIChat("gpt-4o-mini", base_url=server.base, api_key=KEY)
        judge = OpenAIChat("Qwen2.5-VL-7B-Instruct", base_url=server.base, api_key=KEY)
        stage = AnswerStage(protocol("mem-gallery@v1"), model, 1000, judge=judge)
        result = memrank.run(memrank.system("bm25"), evaluation, answer=stage)
        model.close()
        judge.close()
    logged = server.logged("/v1/chat/completions")
    by_request = {
        cache_key(model.endpoint, model.model, e.body): json.loads(e.body) for e in logged
    }
    assert len(logged) == 2 * len(evaluation.tasks)  # one answer and one verdict per question
    template = text_file("mem-gallery-llm_judge.txt", False)
    judged: list[list[dict[str, str]]] = []
    cut = 0
    for trace in result.traces:
        assert trace.error is None, trace.error
        assert trace.answered is not None and trace.answered.answering is not None
        record = trace.answered.answering
        question = _question(raw, trace.task.id)
        body = by_request[record.request_sha256]
        assert set(body) == {"model", "messages", "temperature"} and body["temperature"] == 0
        assert body["messages"] == _upstream_answer(raw, question, record.documents_sent)
        memories = body["messages"][1]["content"]
        context = memories[memories.index("[Memory Start]") : memories.index("[Memory End]") + 12]
        assert count_tokens(context) <= 1000 and record.context_tokens == count_tokens(context)
        cut += bool(record.documents_cut)
        # upstream: prompt_template.replace('{{question}}', question) ... ('{{model_output}}', ...)
        filled = (
            template.replace("{{question}}", question["question"])
            .replace("{{ground_truth}}", str(question["answer"]))
            .replace("{{model_output}}", _ANSWER)
        )
        judged.append([{"role": "user", "content": filled}])
    assert cut  # the budget did cut
    asked = [b for b in map(json.loads, (e.body for e in logged)) if b["model"] == judge.model]
    assert len(asked) == len(evaluation.tasks)
    assert all(set(b) == {"model", "messages", "temperature"} for b in asked)
    assert all(b["temperature"] == 0 for b in asked)  # evaluation.py: temperature=0, no more
    sent = sorted(json.dumps(b["messages"]) for b in asked)
    assert sent == sorted(map(json.dumps, judged))  # byte for byte, every one
    name = answer_name("judge", "mem-gallery@v1", model.spec, judge.spec)
    assert judged_name(name) == ("judge", "mem-gallery@v1", model.spec, judge.spec)
    values = {v.task_id: v for v in result.values if v.measure == name}
    for trace in result.traces:
        reply, expected = _VERDICTS[trace.task.category or ""]
        value = values[trace.task.id]
        assert value.value == expected, trace.task.category
        if expected is None:
            assert value.why.startswith("malformed verdict") and repr(reply) in value.why
        else:
            assert reply in value.why
    (mean,) = [v for v in result.values if v.measure == f"{name}.mean"]
    decided = [e for _, e in _VERDICTS.values() if e is not None]
    assert mean.value == pytest.approx(statistics.mean(decided))  # 7 decided of 9
    (by_type,) = [v for v in result.values if v.measure == f"{name}.mean.category-CD"]
    assert by_type.value == 0.5
    (account,) = [v for v in result.values if v.measure == f"{name}.calls"]
    assert account.value == 9 and "mem-gallery-judge sha256 44969a08335d" in account.why
    assert name not in (result.evaluation.binary or ())  # graded: 0, 0.5 or 1


def test_mem_gallery_is_the_default_protocol_of_mem_gallery_on_the_command_line(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMRANK_DATA_DIR", str(shared_data))
    for variable in ("MEMRANK_JUDGE", "MEMRANK_MEM_GALLERY_DIR", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("MEMRANK_MEM_GALLERY_IMAGES", raising=False)
    raw = _raw(shared_data, "AI_Robotics_Automation_Future_Tech")
    types = {q["question"]: q["point"] for q in raw["human-annotated QAs"]}
    saved = {given: tmp_path / f"{given or 'default'}.json" for given in ("", "mem-gallery@v1")}
    with ChatServer(reply=_judge_reply(types), key=None) as server:
        answer = f"openai-compatible:{server.base}:answer-model"
        judge = f"openai-compatible:{server.base}:judge-model"
        for given, path in saved.items():
            chosen = ["--protocol", given] if given else []
            outcome = CliRunner().invoke(
                main,
                ["run", "bm25", "mem-gallery:smoke", "--answer-model", answer, "--judge", judge]
                + [*chosen, "--save", str(path)],
            )
            assert outcome.exit_code == 0, outcome.output
    name = answer_name("judge", "mem-gallery@v1", answer, judge)
    for path in saved.values():
        values = memrank.Result.load(path).values
        assert len([v for v in values if v.measure == name]) == 9
        assert any(v.measure == f"{name}.mean" and v.value is not None for v in values)


def test_a_question_image_given_as_a_file_is_read_as_its_caption(
    shared_data: Path, smoke: memrank.Evaluation, tmp_path: Path
) -> None:
    folder = tmp_path / "AI_Robotics_Automation_Future_Tech"
    folder.mkdir()
    (folder / "QA_IMG_005.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really an image")
    shown = mem_gallery("smoke", path=shared_data / "mem-gallery", images=tmp_path)
    (pictured,) = [t for t in shown.tasks if isinstance(t.prompt, tuple)]
    (captioned,) = [t for t in smoke.tasks if t.id == pictured.id]
    chosen = protocol("mem-gallery")
    documents = captioned.context[:3]
    as_file = chosen.render(pictured, documents).messages
    assert as_file == chosen.render(captioned, documents).messages
    assert as_file[1].content.endswith(
        "\nHere is the attached image of the question:\nimage_caption: Colorful abstract icon"
        " resembling a palm tree or flower, composed of six rounded, petal-like shapes radiating"
        " from a central point in orange, pink, purple, green, teal, and blue, with a vertical"
        " orange bar forming the trunk or stem, set against a black background."
    )
    # the judge reads the question alone, as upstream's evaluation does
    (message,) = chosen.judge_messages(pictured, "PaLM", "PaLM")[1]
    assert "Question: What is the name of the product in the picture?\nGround Truth: PaLM\n" in (
        message.content
    )


def test_no_recalled_memory_is_none_between_the_markers(smoke: memrank.Evaluation) -> None:
    task = smoke.tasks[0]
    rendered = protocol("mem-gallery").render(task, ())
    assert rendered.context == "[Memory Start]\nNone\n[Memory End]"
    assert "between user (Julian Vance) and assistant in a concise manner" in (
        rendered.messages[1].content
    )
