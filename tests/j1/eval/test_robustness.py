"""Judge robustness through the real HTTP path (litellm → a fake OpenAI-compatible server): a malformed answer
(not JSON, a missing key, a score out of range) is repaired once, and otherwise becomes a judge failure in the
scores, excluded from its cell and counted in the tables, never a 0."""

from __future__ import annotations

import asyncio

import pandas as pd
import pytest

from steps.j1.eval.case import Panel
from steps.j1.eval.evaluate import evaluate_case, score_frame
from steps.j1.eval.schemas import J1Scores
from steps.j1.eval.tables import compute
from steps.j1.params import J1EvalParams
from steps.schemas import validate
from tests.j1.eval.test_court import criminal_case
from tests.j1.eval.test_drafting import cd_case, complaint
from tests.judges.conftest import answers, http_judge  # noqa: F401  (the fake server fixture)

GOOD = '{"score": 8, "reason": "要点基本齐全"}'


def score(case, panel) -> pd.DataFrame:
    rows = asyncio.run(evaluate_case(case, panel, J1EvalParams()))
    return validate(score_frame(rows, run_id="run1", agent="model"), J1Scores, table="j1_scores")


def tables(scores: pd.DataFrame, scenario: str):
    dialogues = pd.DataFrame(
        {
            "agent": "model",
            "scenario": scenario,
            "instance_id": scores.instance_id.iloc[0],
            "exchanges": 3,
            "ended_by": "marker",
            "failure_causes": [[]],
        }
    )
    agents = pd.DataFrame(
        {"agent": ["model"], "model": ["m"], "agent_scripted": [False], "environment_scripted": [False]}
    )
    return compute(
        scores, dialogues, agents, pd.DataFrame({"group": pd.Series(dtype=str), "agent": pd.Series(dtype=str)})
    )


@pytest.mark.parametrize(
    ("answer", "failure"),
    [
        ("我认为这份起诉状可以得八分。", "unparsable"),
        ('{"score": 8}', "unparsable"),
        ('{"score": 15, "reason": "超出满分"}', "out_of_range"),
    ],
)
def test_malformed_answers_become_counted_judge_failures(answers, door, answer, failure):  # noqa: F811
    server, script = answers(answer)
    scores = score(cd_case(complaint(evidence="1. 借条一份")), Panel(door, http_judge(server)))
    judged = scores[scores.component.isin(["CLA", "EVI", "F&R"])]
    assert (judged.status == "judge_failed").all() and (judged.failure == failure).all() and judged.value.isna().all()
    assert len(script.bodies) == 6  # three questions, each asked again once with the error shown
    head = scores.set_index(["metric", "component"])
    assert head.loc[("II-2", ""), "status"] == "judge_failed" and pd.isna(head.loc[("II-2", ""), "value"])
    assert head.loc[("II-1", ""), "value"] == 1.0 and head.loc[("II-2", "PLA"), "value"] == pytest.approx(0.8)
    results = tables(scores, "CD")
    cell = results.cells.set_index(["metric", "component"]).loc[("II-2", "")]
    assert (cell.n, cell.n_judge_failed) == (0, 1) and pd.isna(cell.value)
    health = results.judge_health.iloc[0]
    assert (health.asked, health.failed, getattr(health, failure)) == (3, 3, 3)


def test_a_repaired_answer_is_scored(answers, door):  # noqa: F811
    server, _ = answers("八分", GOOD)
    scores = score(cd_case(complaint(evidence="1. 借条一份")), Panel(door, http_judge(server)))
    judged = scores[scores.component.isin(["CLA", "EVI", "F&R"])]
    assert (judged.status == "scored").all() and (judged.value == 0.8).all()


def test_a_broken_procedure_judge_fails_iii1_and_leaves_the_rule_metrics(answers, door):  # noqa: F811
    server, _ = answers('{"result": "不知道"}')
    scores = score(criminal_case(), Panel(door, http_judge(server))).set_index(["metric", "component"])
    for key in [("III-1", ""), ("III-1", "STA"), ("III-1", "ACT"), ("III-5", "")]:
        assert scores.loc[key, "status"] == "judge_failed" and pd.isna(scores.loc[key, "value"]), key
    assert scores.loc[("III-1", "UNI"), "value"] == 1.0 and scores.loc[("III-3", ""), "value"] == 1.0
    assert scores.loc[("III-4", ""), "value"] == 0.0 and scores.loc[("III-6", ""), "value"] == 1.0
