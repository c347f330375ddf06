"""The rubric judge on PLawBench rubrics through the real HTTP path (litellm → fake OpenAI-compatible server):
non-JSON, missing items and out-of-range answers are retried, then recorded as judge failures (never 0);
fail conditions, extra penalties and 统一扣分项 are applied in code, the total floored at 0."""

from __future__ import annotations

import json
from types import SimpleNamespace

import duckdb
import pandas as pd
import pytest

from steps.judges import JudgeFailure
from steps.judges.rubric import judge_rubric
from steps.plawbench.drafting_rubric import parse_drafting
from steps.plawbench.items import rows_frame
from steps.plawbench.judging import AGENT_FAILED, Prepared, build_rubric, judgement_rows
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.sql import QUERIES
from tests.judges.conftest import http_judge, run

RUBRIC = "\n".join(
    [
        "总分：30分",
        "一、管辖（20分）",
        "1.1 法院选择（10分）",
        "得分点：选择昆山市人民法院（6分）；说明被告住所地管辖（4分）。",
        "扣分点：未说明理由，扣4分。",
        "不及格：选择杭州市西湖区人民法院，本项得0分并倒扣5分。",
        "1.2 案由（10分）",
        "得分点：案由为民间借贷纠纷（10分）。",
        "二、诉讼请求（10分）",
        "得分点：请求偿还本金300万元（10分）。",
        "三、统一扣分项",
        "法条准确：法条需真实有效。每出现一项错误，扣 10 分。",
        "指令遵循：未按要求生成民事起诉状的，扣 10 分。",
    ]
)
TASK = SimpleNamespace(
    item_id="plaintiff/9",
    category="drafting",
    scenario="plaintiff",
    max_points=30.0,
    document="民事起诉状",
    context="",
    query="我要起诉赵某。",
)


@pytest.fixture
def rubric():
    parsed = parse_drafting(TASK.item_id, RUBRIC, TASK.max_points)
    assert parsed.issues == []
    return build_rubric(TASK, rows_frame(parsed.rows), PlawBenchParams())


def answer(items: dict[str, float], fails: dict[str, bool] | None = None, penalties: dict[str, int] | None = None):
    return json.dumps(
        {
            "items": [{"id": k, "awarded": v, "justification": "理由"} for k, v in items.items()],
            "fails": [{"id": k, "triggered": v} for k, v in (fails or {"1.1-f1": False}).items()],
            "penalties": [{"id": k, "times": v} for k, v in (penalties or {"U1": 0, "U2": 0}).items()],
        },
        ensure_ascii=False,
    )


FULL = {"1.1": 10, "1.2": 10, "P2": 10}


def judge(door, server, rubric, repairs=2):
    return run(
        judge_rubric(door, http_judge(server), response="民事起诉状……", rubric=rubric, question="材料", repairs=repairs)
    )


def test_the_rubric_tree_is_what_the_judge_answers(rubric):
    assert [(i.id, i.kind.value, i.group or i.target) for i in rubric.items] == [
        ("1.1", "award", "P1"),
        ("1.1-f1", "fail", "1.1"),
        ("1.2", "award", "P1"),
        ("P2", "award", None),
        ("U1", "penalty", None),
        ("U2", "penalty", None),
    ]
    assert rubric.max_points == 30 and rubric.error_labels and len(rubric.rules) == 3


def test_fails_extra_penalties_and_uniform_deductions_are_applied_in_code(answers, door, rubric):
    server, _ = answers(answer(FULL))
    assert judge(door, server, rubric).value == 1.0
    server, _ = answers(answer(FULL, {"1.1-f1": True}, {"U1": 1, "U2": 0}))
    result = judge(door, server, rubric)
    # 1.1 zeroed by its 不及格 (and 5 more off), one wrong statute: 30 - 10 - 5 - 10 = 5
    assert result.value == pytest.approx(5 / 30)
    assert [i["awarded"] for i in result.evidence["items"]] == [0.0, 10, 10]
    server, _ = answers(answer({"1.1": 2, "1.2": 0, "P2": 0}, penalties={"U1": 3, "U2": 1}))
    floored = judge(door, server, rubric)
    assert (floored.value, floored.evidence["total"], floored.evidence["clamped"]) == (0.0, 0.0, 1)


def test_non_json_is_retried_then_a_judge_failure(answers, door, rubric):
    server, script = answers("1.1 得 10 分，1.2 得 10 分。", answer(FULL))
    assert judge(door, server, rubric).value == 1.0 and len(script.bodies) == 2
    server, script = answers("我无法评分。")
    failed = judge(door, server, rubric)
    assert (failed.value, failed.failure, failed.attempts, len(script.bodies)) == (None, JudgeFailure.UNPARSABLE, 3, 3)


def test_missing_keys_are_retried_then_a_judge_failure(answers, door, rubric):
    no_p2 = answer({"1.1": 10, "1.2": 10})
    no_penalties = json.dumps(
        {"items": json.loads(answer(FULL))["items"], "fails": [{"id": "1.1-f1", "triggered": False}]}
    )
    server, script = answers(no_p2, answer(FULL))
    assert judge(door, server, rubric).value == 1.0 and "P2" in script.bodies[1]["messages"][-1]["content"]
    for bad in (no_p2, no_penalties):
        server, _ = answers(bad)
        failed = judge(door, server, rubric)
        assert failed.failure is JudgeFailure.UNPARSABLE and failed.value is None


@pytest.mark.parametrize(
    ("bad", "detail"),
    [
        (answer({"1.1": 12, "1.2": 10, "P2": 10}), "1.1: 12 not in [0, 10]"),
        (answer(FULL, penalties={"U1": 0, "U2": 2}), "U2: 2 times, at most 1"),
        (answer(FULL, penalties={"U1": -1, "U2": 0}), "times"),
    ],
)
def test_out_of_range_is_retried_then_a_judge_failure(answers, door, rubric, bad, detail):
    server, script = answers(bad)
    failed = judge(door, server, rubric)
    assert (failed.failure, failed.attempts, len(script.bodies)) == (JudgeFailure.OUT_OF_RANGE, 3, 3)
    assert detail in failed.error


def test_an_error_label_outside_the_taxonomy_is_out_of_range(answers, door, rubric):
    labelled = json.loads(answer({"1.1": 5, "1.2": 10, "P2": 10}))
    labelled["items"][0]["error"] = "管辖规则把握不足"
    server, _ = answers(json.dumps(labelled, ensure_ascii=False))
    assert judge(door, server, rubric).evidence["items"][0]["error"] == "管辖规则把握不足"
    labelled["items"][0]["error"] = "写得不好"
    server, _ = answers(json.dumps(labelled, ensure_ascii=False))
    assert judge(door, server, rubric, repairs=0).failure is JudgeFailure.OUT_OF_RANGE


def test_failures_are_rows_without_a_score_and_counted_not_zero(answers, door, rubric):
    server, _ = answers("不是 JSON")
    failed = judge(door, server, rubric, repairs=0)
    resp = SimpleNamespace(
        agent="a",
        item_id=TASK.item_id,
        category="drafting",
        scenario="plaintiff",
        variant="single",
        response="……",
        failure=None,
    )
    tasks = pd.DataFrame([{"item_id": TASK.item_id, "max_points": 30.0, "seq_class": ""}])
    agent_failed = pd.DataFrame(
        [
            {
                **resp.__dict__,
                "item_id": "defendant/9",
                "scenario": "defendant",
                "response": None,
                "failure": "timeout: no answer",
            }
        ]
    )
    tasks = pd.concat([tasks, pd.DataFrame([{"item_id": "defendant/9", "max_points": 20.0, "seq_class": ""}])])
    rubric_rows = pd.DataFrame(columns=["item_id", "rubric_id", "kind", "parent_id", "points"])
    judgements, scores, items = judgement_rows(
        [(resp, Prepared("……"), failed)], agent_failed, tasks, rubric_rows, "run"
    )
    assert judgements.failure.tolist() == ["unparsable", AGENT_FAILED]
    assert judgements.value.isna().all() and judgements.awarded.isna().all() and items.empty
    assert scores.awarded.isna().all() and scores.failure.notna().all()
    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("tasks", tasks)
        rates = QUERIES.run(con, "plawbench_rates")
    main = rates[rates["table"] == "table3"].set_index("metric")
    assert main.n.sum() == 0 and main.n_failed.sum() == 2 and main.value.isna().all()


def test_no_judged_items_still_gives_typed_tables():
    """A run whose every rubric judgement failed (e.g. a judge that echoes its prompt) writes empty tables with
    every column, not frames without columns that the stage's schema check refuses (found by the fault soak)."""
    from steps.plawbench.judging import judgement_rows
    from steps.plawbench.schemas import PlawItemScores, PlawJudgements, PlawScores
    from steps.schemas import validate

    tasks = pd.DataFrame({"item_id": ["t1"], "max_points": [10.0]})
    rubric = pd.DataFrame(
        {"item_id": ["t1"], "rubric_id": ["A"], "kind": ["section"], "parent_id": [None], "points": [10.0]}
    )
    no_failed = pd.DataFrame(columns=["agent", "item_id", "category", "scenario", "variant"])
    judgements, scores, items = judgement_rows([], no_failed, tasks, rubric, "run")
    for frame, schema in ((judgements, PlawJudgements), (scores, PlawScores), (items, PlawItemScores)):
        assert list(frame.columns) == list(schema.to_schema().columns)
        assert len(validate(frame, schema, table="t")) == 0
