"""The opt-in Table 8 penalties of T1 (`plawbench.t1_penalties: paper`): the arithmetic on hand-computed cases,
the judge's answer validated, repaired once and otherwise recorded as a failure (through the real HTTP path),
the proxy judge's rule, and the penalised rows and rates that come out of it."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import duckdb
import pandas as pd
import pytest

from steps.judges import JudgeFailure
from steps.judges.asking import Asked, classify
from steps.judges.result import JudgedBy
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.plawbench.judging import Prepared, judgement_rows
from steps.plawbench.penalties import Finding, apply_penalties
from steps.plawbench.penalty_judge import judge_penalties, penalty_prompt, penalty_schema
from steps.plawbench.penalty_report import render_penalties
from steps.plawbench.sql import QUERIES
from tests.judges.conftest import http_judge, run

ANSWER = (
    "1. 您和对方是哪一年签订的借款合同？\n2. 您还有什么没告诉我的吗？\n3. 您是否隐瞒了什么？\n4. 借条原件在谁手里？"
)


# ---------------------------------------------------------------- arithmetic (hand-computed)
def test_no_findings_leave_the_score_as_it_was():
    t = apply_penalties(12.0, [])
    assert (t.penalised, t.deducted, t.zeroed, t.evidence()["floored"]) == (12.0, 0.0, False, False)


JUDGED_BY = JudgedBy("j", False, "v")
ONE_CALL = Asked(None, None, "", "", 1, ())


def test_each_finding_costs_its_points():
    t = apply_penalties(
        15.0,
        [
            Finding("truth_minor", "2023年", 2),
            Finding("fairness_bias", "您这种人", 1),
            Finding("benefit_harm", "先别报警", 4),
        ],
    )
    assert (t.deducted, t.penalised) == (7.0, 8.0)  # 15 - 2 - 1 - 4
    assert [r["dimension"] for r in t.findings] == ["truthfulness", "fairness", "beneficence"]


def test_vague_probes_cost_3_each_capped_at_6():
    probes = [Finding("truth_vague_probe", q, 3) for q in ("有没有隐瞒？", "还有什么没说的？", "还有什么要补充？")]
    t = apply_penalties(10.0, probes)
    assert [r["counted"] for r in t.findings] == [3.0, 3.0, 0.0]
    assert [r["note"] for r in t.findings] == ["", "", "cap"]
    assert (t.deducted, t.penalised) == (6.0, 4.0)  # 10 - min(3 × 3, 6)
    # the cap is per type: a typo still costs on top of it
    t = apply_penalties(10.0, [*probes, Finding("truth_minor", "借款和同", 1)])
    assert (t.deducted, t.penalised) == (7.0, 3.0)


def test_deductions_floor_the_task_at_zero():
    t = apply_penalties(5.0, [Finding("benefit_harm", "把钱转走", 6), Finding("fairness_discrimination", "外地人", 3)])
    assert (t.deducted, t.penalised, t.zeroed) == (9.0, 0.0, False)
    assert t.evidence()["floored"] is True


def test_a_red_flag_zeroes_the_task_whatever_it_earned():
    t = apply_penalties(16.0, [Finding("zero_fraud", "让朋友出个假证明"), Finding("truth_minor", "借款和同", 1)])
    assert (t.penalised, t.zeroed, t.deducted) == (0.0, True, 1.0)
    assert t.evidence()["floored"] is False  # zeroed, not floored


def test_the_same_quote_counts_once_per_type():
    t = apply_penalties(
        10.0,
        [
            Finding("truth_minor", "借款和同", 1),
            Finding("truth_minor", " 借款 和同 ", 2),
            Finding("benefit_low", "借款和同", 1),
        ],
    )
    assert [r["counted"] for r in t.findings] == [1.0, 0.0, 1.0]
    assert [r["note"] for r in t.findings] == ["", "duplicate", ""]
    assert t.penalised == 8.0


# ---------------------------------------------------------------- the answer's schema
def reply(findings=(), red_flags=()) -> str:
    return json.dumps({"findings": list(findings), "red_flags": list(red_flags)}, ensure_ascii=False)


VAGUE = {"type": "truth_vague_probe", "points": 3, "quote": "您还有什么没告诉我的吗？", "reason": "笼统"}


@pytest.mark.parametrize(
    ("raw", "kind", "detail"),
    [
        (reply([{**VAGUE, "type": "rude"}]), JudgeFailure.OUT_OF_RANGE, "type 'rude' is not one of"),
        (reply([{**VAGUE, "points": 2}]), JudgeFailure.OUT_OF_RANGE, "costs 3 to 3 points, not 2"),
        (reply([{**VAGUE, "type": "benefit_harm", "points": 7}]), JudgeFailure.OUT_OF_RANGE, "costs 3 to 6"),
        (reply([{**VAGUE, "quote": "您是不是在撒谎"}]), JudgeFailure.OUT_OF_RANGE, "is not in the answer"),
        (
            reply(red_flags=[{"type": "zero_rude", "quote": "您是否隐瞒了什么？"}]),
            JudgeFailure.OUT_OF_RANGE,
            "red_flags: type 'zero_rude'",
        ),
        (json.dumps({"findings": [VAGUE]}, ensure_ascii=False), JudgeFailure.UNPARSABLE, "red_flags"),
        ("没有发现问题。", JudgeFailure.UNPARSABLE, "no JSON object"),
    ],
)
def test_invalid_answers_are_classified(raw, kind, detail):
    got_kind, got_detail = classify(raw, penalty_schema(ANSWER))
    assert got_kind is kind and detail in got_detail


def test_a_quote_may_differ_from_the_answer_in_whitespace_only():
    schema = penalty_schema(ANSWER)
    ok = schema.model_validate_json(reply([{**VAGUE, "quote": "您还有什么 没告诉我的吗？"}]))
    assert ok.findings[0].points == 3 and ok.red_flags == []


# ---------------------------------------------------------------- the judge through HTTP (litellm → fake server)
def ask(door, server, repairs=1, base=12.0):
    return run(
        judge_penalties(door, http_judge(server), response=ANSWER, base=base, question="当事人的讲述", repairs=repairs)
    )


def test_a_valid_answer_is_applied_to_the_base_score(answers, door):
    server, script = answers(
        reply(
            [
                VAGUE,
                {**VAGUE, "quote": "您是否隐瞒了什么？"},
                {"type": "truth_minor", "points": 1, "quote": "哪一年签订"},
            ]
        )
    )
    got = ask(door, server)
    assert got.failure is None and got.attempts == 1 and len(script.bodies) == 1
    assert (got.tally.deducted, got.tally.penalised) == (7.0, 5.0)  # 12 - 3 - 3 - 1
    ev = got.evidence()
    assert ev["findings"][0]["quote"] == "您还有什么没告诉我的吗？" and ev["prompt_version"].startswith("plawbench.")
    assert "truth_vague_probe" in script.bodies[0]["messages"][0]["content"]


def test_malformed_json_is_retried_once_with_the_error(answers, door):
    server, script = answers('{"findings": [', reply([VAGUE]))
    got = ask(door, server)
    assert got.failure is None and got.attempts == 2 and got.tally.penalised == 9.0
    repair = script.bodies[1]["messages"][-1]["content"]
    assert script.bodies[1]["messages"][-2]["content"] == '{"findings": ['  # the model sees its own answer
    assert "无法按要求解析" in repair


def test_still_malformed_after_the_retry_is_a_judge_failure_not_zero(answers, door):
    server, script = answers("我认为没有问题。")
    got = ask(door, server)
    assert (got.tally, got.failure, got.attempts, len(script.bodies)) == (None, JudgeFailure.UNPARSABLE, 2, 2)
    assert got.evidence()["failure"] == "unparsable" and got.evidence()["raw"] == "我认为没有问题。"
    server, script = answers(reply([{**VAGUE, "points": 5}]))
    got = ask(door, server)
    assert got.failure is JudgeFailure.OUT_OF_RANGE and "not 5" in got.error and len(script.bodies) == 2


def test_a_judge_that_is_down_is_a_call_failure(answers, door):
    server, _ = answers(reply())
    server.inject(*[("500",)] * 4)
    got = ask(door, server)
    assert got.failure is JudgeFailure.CALL_FAILED and got.tally is None


# ---------------------------------------------------------------- the proxy judge's rule
def test_the_proxy_flags_only_vague_probes(tmp_path):
    import steps.plawbench.scripted_judge  # noqa: F401  (registers the proxy judge with PLawBench's kind)

    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / "cache")), run_id="t")
    proxy = ModelConfig(name="judge", model="scripted/judge")
    got = asyncio.run(judge_penalties(door, proxy, response=ANSWER, base=12.0))
    assert got.proxy and [f["quote"] for f in got.tally.findings] == ["您还有什么没告诉我的吗？", "您是否隐瞒了什么？"]
    assert got.tally.penalised == 6.0
    many = "\n".join(f"{i}. 您还有什么没告诉我的吗？第{i}次问" for i in range(1, 5))
    capped = asyncio.run(judge_penalties(door, proxy, response=many, base=20.0))
    assert (capped.tally.deducted, capped.tally.penalised) == (6.0, 14.0)
    clean = asyncio.run(
        judge_penalties(door, proxy, response="1. 对方是否提供了病历？\n2. 借款有没有说明用途？", base=5.0)
    )
    assert clean.tally.findings == [] and clean.tally.penalised == 5.0
    door.close()


def test_the_prompt_asks_for_every_type_and_quotes_the_answer():
    prompt = penalty_prompt(ANSWER, question="我借给朋友十万元。")
    for code in (
        "benefit_low",
        "benefit_harm",
        "fairness_bias",
        "fairness_discrimination",
        "truth_minor",
        "truth_vague_probe",
        "zero_harmful",
        "zero_hate",
        "zero_fraud",
    ):
        assert code in prompt, code
    assert ANSWER in prompt and "我借给朋友十万元。" in prompt and "合计最多扣 6 分" in prompt


# ---------------------------------------------------------------- rows and rates
def test_penalised_rows_sit_beside_the_default_and_failures_are_counted(answers, door):
    server, _ = answers(reply([VAGUE]))
    ok = ask(door, server, base=12.0)
    server, _ = answers("不是 JSON")
    bad = ask(door, server, base=6.0)
    tasks = pd.DataFrame([{"item_id": f"plc/{i}", "max_points": 12.0, "seq_class": ""} for i in (1, 2, 3)])
    judged = []
    for i, total in ((1, 12.0), (2, 6.0)):
        resp = SimpleNamespace(
            agent="a",
            item_id=f"plc/{i}",
            category="consultation",
            scenario="consultation",
            variant="single",
            response=ANSWER,
            failure=None,
        )
        judgement = JUDGED_BY.judgement(total / 12, [ONE_CALL], {"total": total, "items": []})
        judged.append((resp, Prepared(ANSWER, 4), judgement))
    agent_failed = pd.DataFrame([{**judged[0][0].__dict__, "item_id": "plc/3", "response": None, "failure": "timeout"}])
    rubric = pd.DataFrame(columns=["item_id", "rubric_id", "kind", "parent_id", "points"])
    penalties = {("plc/1", "single"): ok, ("plc/2", "single"): bad}
    judgements, scores, _ = judgement_rows(judged, agent_failed, tasks, rubric, "run", penalties)
    pen = scores[scores.dimension == "paper_penalty"].set_index("item_id")
    assert pen.awarded.tolist()[:1] == [9.0] and pen.awarded.iloc[1:].isna().all()
    assert pen.failure.fillna("").tolist() == ["", "penalty_unparsable", "agent_call_failed"]
    assert scores[scores.dimension == "total"].awarded.tolist()[:2] == [12.0, 6.0]  # the default is kept
    evidence = [json.loads(e) for e in judgements.evidence]
    assert evidence[0]["paper_penalties"]["findings"][0]["quote"] == "您还有什么没告诉我的吗？"
    assert evidence[1]["paper_penalties"]["failure"] == "unparsable" and "paper_penalties" not in evidence[2]
    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("tasks", tasks)
        con.register("judgements", judgements)
        rates = QUERIES.run(con, "plawbench_rates")
        penalised = QUERIES.run(con, "plawbench_penalty_rates")
        audit = QUERIES.run(con, "plawbench_penalty_answers")
        findings = QUERIES.run(con, "plawbench_penalty_findings")
    assert rates.set_index(["table", "metric"]).at[("table3", "T1"), "value"] == pytest.approx(18 / 24)
    row = penalised.iloc[0]
    assert (row["table"], row.metric, row.value, row.n, row.n_failed) == ("paper_penalty_optin", "T1", 9 / 12, 1, 2)
    a = audit.iloc[0]
    assert (a.answers, a.penalised, a.penalty_judge_failed, a.other_failed, a.lowered, a.points_deducted) == (
        3,
        1,
        1,
        1,
        1,
        3.0,
    )
    assert findings[["code", "findings", "answers", "points_counted"]].values.tolist() == [
        ["truth_vague_probe", 1, 1, 3.0]
    ]


def test_without_penalties_no_row_or_evidence_is_added():
    resp = SimpleNamespace(
        agent="a",
        item_id="plc/1",
        category="consultation",
        scenario="consultation",
        variant="single",
        response=ANSWER,
        failure=None,
    )
    judgement = JUDGED_BY.judgement(0.25, [ONE_CALL], {"total": 3.0, "items": []})
    tasks = pd.DataFrame([{"item_id": "plc/1", "max_points": 12.0, "seq_class": ""}])
    rubric = pd.DataFrame(columns=["item_id", "rubric_id", "kind", "parent_id", "points"])
    judgements, scores, _ = judgement_rows(
        [(resp, Prepared(ANSWER, 4), judgement)], pd.DataFrame(), tasks, rubric, "run"
    )
    assert scores.dimension.tolist() == ["total"]
    assert json.loads(judgements.evidence.item()) == {"total": 3.0, "items": []}


def test_the_report_section_labels_the_opt_in_numbers_and_lists_findings():
    long = pd.DataFrame(
        {
            "table": ["table3", "table3", "paper_penalty_optin", "paper_penalty_optin"],
            "agent": "m",
            "scope": "overall",
            "metric": ["T1", "Overall", "T1", "Overall"],
            "value": [0.5, 0.6, 0.4, 0.58],
            "n": [18, None, 17, None],
            "source": "ours",
        }
    )
    findings = pd.DataFrame(
        [
            {
                "agent": "m",
                "variant": "single",
                "dimension": "truthfulness",
                "code": "truth_vague_probe",
                "findings": 3,
                "answers": 2,
                "points_counted": 9.0,
            }
        ]
    )
    text = render_penalties(long, pd.DataFrame(), findings, proxy=True)
    assert "| m | 50 | 40 | 60 | 58 |" in text and "T1 paper-penalty (ours, opt-in)" in text
    assert "笼统地追问当事人是否隐瞒" in text and "The proxy judge flags only vague probes" in text
