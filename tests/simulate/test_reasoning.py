"""Issue 38 item 5 in dialogues (the engine every dialogue benchmark runs: J1, MILE, UCL-Bench, PLawBench's
multi-turn consultations): roles played by a reasoning model (`<think>…</think>answer`, or the trace in
`reasoning_content`) say, hear and deliver exactly what roles answering `answer` do. No trace reaches another role
(nor the same role's history), a trace holding the end marker ends nothing, the turns table keeps each trace in
its `reasoning` column (a journal replays it), and a reply that is only a trace ends the dialogue as an empty
reply. The toy lawyer/client scenario over the model door and a fake OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json

import pandas as pd
import pytest

from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.schemas import Turns, validate
from steps.simulate.instance import Instance
from steps.simulate.journal import Journal
from steps.simulate.records import RunLabel, run_tables
from steps.simulate.runner import DoorSpeaker, simulate
from steps.simulate.transcript import lines, markdown
from tests.reasoning_forms import FORMS, serve
from tests.simulate.toys import interview

SCENARIO = interview(max_turns=4)
ASK, COMPLAINT = "请问您的诉求是什么？", "起诉状：原告张三请求判令被告李四返还借款十万元。<询问结束>"
LAWYER_TRACE = "先问诉求。也许可以直接写<询问结束>？不，还要再问。"  # the end marker inside a trace ends nothing
CLIENT_SAYS, CLIENT_TRACE = "我借给李四十万元，他不还。", "我的秘密是x，不能说。"
INSTANCES = [
    Instance("talks", "TOYCD", {"lawyer": {"template": "T"}, "client": {"name": "张三", "secret": "x"}}),
    Instance("silent", "TOYCD", {"lawyer": {"template": "T"}, "client": {"name": "王五", "secret": "y"}}),
]


def _lawyer(body: dict) -> bool:
    return body["messages"][0]["content"].startswith("你是律师")


def answer_of(body: dict) -> str:
    if _lawyer(body):
        spoken = sum(m["role"] == "assistant" for m in body["messages"])
        return ASK if spoken == 0 else COMPLAINT
    return "" if "王五" in body["messages"][0]["content"] else CLIENT_SAYS  # 王五 only thinks: an empty answer


def trace_of(body: dict) -> str:
    return LAWYER_TRACE if _lawyer(body) else CLIENT_TRACE


def run_form(form: str, tmp_path) -> tuple[pd.DataFrame, pd.DataFrame, list[dict]]:
    with serve(form, answer_of, trace_of) as server:
        model = ModelConfig(name="m", model="hosted_vllm/test-model", api_base=server.url)
        results = []
        for attempt in range(2):  # the second run replays every call from the journal
            door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / form / f"cache{attempt}")), run_id=form)
            journal = Journal(tmp_path / form / "journal.jsonl")
            dialogues = asyncio.run(simulate(INSTANCES, lambda _: SCENARIO, DoorSpeaker(door, model, model), journal))
            journal.close()
            door.close()
            results.append(run_tables(dialogues, lambda _: SCENARIO, RunLabel(form, "m", "ucl")))
        sent = list(server.requests)
    (turns, dialogue_rows), (again, _) = results
    pd.testing.assert_frame_equal(again.drop(columns="run_id"), turns.drop(columns="run_id"))
    return validate(turns, Turns, table="turns"), dialogue_rows, sent


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reasoning")
    return {form: run_form(form, tmp) for form in FORMS}


SAID = ["turn_index", "speaker", "addressee", "kind", "text", "failure"]


def test_reasoning_roles_say_and_deliver_what_plain_roles_do(runs):
    turns, dialogues, _ = runs["plain"]
    assert dialogues.set_index("instance_id").ended_by.to_dict() == {"talks": "marker", "silent": "empty_reply"}
    talks = dialogues.set_index("instance_id").loc["talks"]
    assert talks.deliverable == COMPLAINT.replace("<询问结束>", "").strip()
    for form in ("think", "field"):
        other_turns, other_dialogues, _ = runs[form]
        pd.testing.assert_frame_equal(other_turns[SAID], turns[SAID])
        keep = ["instance_id", "ended_by", "exchanges", "utterances", "deliverable"]
        pd.testing.assert_frame_equal(other_dialogues[keep], dialogues[keep])


def test_no_trace_is_heard_and_every_trace_is_kept(runs):
    for form in ("think", "field"):
        turns, _, sent = runs[form]
        heard = json.dumps([b["messages"] for b in sent], ensure_ascii=False)
        assert "<think>" not in heard and LAWYER_TRACE not in heard and CLIENT_TRACE not in heard
        by_speaker = turns.groupby("speaker").reasoning.agg(lambda r: set(r))
        assert by_speaker.to_dict() == {"lawyer": {LAWYER_TRACE}, "client": {CLIENT_TRACE}}
        silent = turns[turns.instance_id == "silent"]
        assert silent.text.tolist()[-1] == "" and silent.reasoning.tolist()[-1] == CLIENT_TRACE
    assert runs["plain"][0].reasoning.isna().all()


def test_the_transcript_shows_the_trace_folded(runs):
    turns, dialogues, _ = runs["think"]
    rows = turns[turns.instance_id == "talks"].to_dict("records")
    row = dialogues.iloc[0].to_dict() | {"failure_causes": []}
    page = markdown("talks", row, lines(rows, {}), agent="m", run_id="r", proxy=False)
    assert page.count("<details><summary>reasoning (not part of the reply)</summary>") == len(rows)
    assert f"> {LAWYER_TRACE}" in page and f"> {ASK}" in page
