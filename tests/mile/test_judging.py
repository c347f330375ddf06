"""Judge answers through the real HTTP path: failures are rows with a kind and no value, never a low grade;
aggregates leave them out and count them."""

from __future__ import annotations

import asyncio
import json

import duckdb
import pandas as pd
import pytest

from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.mile.evaluate import plan_evaluation
from steps.mile.goal import judge_tasks, references
from steps.mile.instances import build_instance
from steps.mile.interaction import Utterance, interaction_tasks
from steps.mile.judging import run_tasks
from steps.mile.oracle import reference_complaint
from steps.mile.params import MileParams
from steps.mile.schemas import MileScores
from steps.mile.sql import QUERIES
from steps.schemas import validate
from tests.fake_openai_server import FakeOpenAIServer
from tests.mile.conftest import row_of


def answer(body: dict) -> str:
    prompt = body["messages"][0]["content"]
    if "规范性" in prompt:
        return '{"规范性": 11, "解释": "超过满分"}'
    if "专业性" in prompt and "标准答案" in prompt and "互动性" not in prompt:
        return "这份起诉状写得不错，我给八分。"
    if "互动性" in prompt:
        return '```json\n{"互动性": 8, "专业性": 6, "逻辑性": 7, "解释": "一次只问一个问题"}\n```'
    return '{"分数": 7, "解释": "基本一致"}'


@pytest.fixture
def server():
    s = FakeOpenAIServer(reply=answer).start()
    yield s
    s.stop()


def _tasks(mile):
    row = row_of(mile, 1)
    truth = build_instance(row).ground_truth
    complaint = reference_complaint(truth)
    tasks = judge_tasks(row.instance_id, complaint, references(truth, list(row.evidence), MileParams()))
    said = [
        Utterance(0, "client", "您好"),
        Utterance(0, "lawyer", "您好"),
        Utterance(1, "client", "好的"),
        Utterance(1, "lawyer", "请问您的姓名？"),
        Utterance(2, "client", "李恩泉"),
        Utterance(2, "lawyer", "您的性别？"),
    ]
    return tasks + interaction_tasks(row.instance_id, said, row.less)


def test_failed_answers_are_recorded_with_their_kind_and_never_scored(mile, server, tmp_path):
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / "c"), max_attempts=1), run_id="t")
    judge = ModelConfig(name="judge", model="hosted_vllm/test-model", api_base=server.url)
    rows = pd.DataFrame(asyncio.run(run_tasks(door, judge, _tasks(mile)))).assign(run_id="t", agent="a")
    rows = validate(rows, MileScores, table="mile_scores")
    by = rows.set_index(["metric", rows.turn.fillna(0).astype(int)])
    sta, prof = by.loc[("STA", 0)], by.loc[("PROF", 0)]
    assert sta.failure == "out_of_range" and pd.isna(sta.value) and pd.isna(sta.grade) and pd.isna(sta.scaled)
    assert "less than or equal to 10" in sta.error
    assert prof.failure == "unparsable" and pd.isna(prof.value)
    assert by.loc[("F&R", 0)].grade == 7 and by.loc[("F&R", 0)].value == pytest.approx(6 / 9)
    assert by.loc[("F&R", 0)].scaled == 70 and by.loc[("F&R", 0)].judge == "hosted_vllm/test-model"
    assert by.loc[("INT", 2)].grade == 8 and by.loc[("LOGI", 2)].grade == 7 and by.loc[("PROF", 2)].grade == 6
    # an invalid answer was shown its error and asked again once: two requests for STA and for PROF
    prompts = [r["messages"][0]["content"] for r in server.requests]
    assert sum("规范性" in p for p in prompts) == 2 and len(server.requests) == len(_tasks(mile)) + 2
    # every call is stateless: a judge prompt is one user message (plus the repair round for invalid answers)
    assert all(len(r["messages"]) in (1, 3) for r in server.requests)


def _scores(rows):
    base = {
        "run_id": "t",
        "agent": "a",
        "stage": "goal",
        "turn": None,
        "value": None,
        "grade": None,
        "scaled": None,
        "failure": None,
        "error": "",
        "judge": "j",
        "judge_prompt_version": "v",
        "judge_proxy": False,
        "attempts": 0,
        "reason": "",
        "detail": "",
    }
    return pd.DataFrame([{**base, **r} for r in rows])


def test_goal_means_leave_failures_out_and_count_them():
    rows = []
    for i, (cla, ok) in enumerate([(8, True), (None, False), (4, True)], 1):
        iid = f"mile/{i}"
        rows.append(
            {
                "instance_id": iid,
                "metric": "CLA",
                "grade": cla,
                "scaled": cla and cla * 10,
                "value": cla and (cla - 1) / 9,
                "failure": None if ok else "unparsable",
            }
        )
        for m in ("CLI", "DEF"):
            rows.append({"instance_id": iid, "metric": m, "value": 1.0, "scaled": 100.0, "judge": "rule"})
        for m in ("F&R", "EVID", "STA", "PROF"):
            rows.append({"instance_id": iid, "metric": m, "grade": 5.0, "scaled": 50.0, "value": 4 / 9})
    scores = _scores(rows)
    agents = pd.DataFrame({"agent": ["a"], "model": ["m"], "agent_scripted": [False], "environment_scripted": [False]})
    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("agents", agents)
        goal = QUERIES.run(con, "mile_goal").set_index("metric")
    assert goal.loc["CLA", "value"] == pytest.approx(60.0)  # (80 + 40) / 2, not (80 + 0 + 40) / 3
    assert (goal.loc["CLA", "n"], goal.loc["CLA", "n_failed"]) == (2, 1)
    assert goal.loc["AVE", "value"] == pytest.approx((100 + 100 + 60 + 50 * 4) / 7)
    assert goal.loc["CLI", "judge"] == "exact match" and not goal.proxy.any()


def test_a_failed_dialogue_is_counted_in_every_metric_and_judged_by_no_one(mile):
    row = row_of(mile, 1)
    dialogues = pd.DataFrame(
        [
            {
                "instance_id": row.instance_id,
                "ended_by": "call_failed",
                "complaint": None,
                "failure": "lawyer: timeout: no answer",
            }
        ]
    )
    turns = pd.DataFrame(columns=["instance_id", "turn_index", "turn", "speaker", "kind", "text", "failure"])
    plan = plan_evaluation(mile, dialogues, turns, MileParams())
    assert plan.tasks == []
    assert {r["failure"] for r in plan.rows} == {"dialogue_failed"} and len(plan.rows) == 13
    assert all(r["value"] is None for r in plan.rows) and plan.rows[0]["error"].startswith("lawyer: timeout")


def test_an_unknown_instance_is_an_error_not_a_silent_fallback(mile):
    dialogues = pd.DataFrame(
        [{"instance_id": "mile/9999", "ended_by": "marker", "complaint": "起诉状", "failure": None}]
    )
    with pytest.raises(ValueError, match="mile/9999"):
        plan_evaluation(
            mile, dialogues, pd.DataFrame(columns=["instance_id", "kind", "failure", "turn_index"]), MileParams()
        )


def test_interaction_inputs_reach_the_proxy_judge_as_structured_metadata(mile):
    task = _tasks(mile)[-1]
    assert task.kind == "mile.interaction" and task.turn == 2
    assert json.dumps(task.inputs, ensure_ascii=False).count("请问您的姓名？") == 1
