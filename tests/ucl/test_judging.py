"""Pairwise judging against the reference through the real HTTP path (litellm → fake OpenAI-compatible judge):
the last [[d]] counts, swapped orders are mapped back, ties count half, unparsable answers are retried and
then excluded with their reason, never counted as losses; plus the pointwise hint judge's answers."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from steps.schemas import validate
from steps.ucl.judging import RunIds, judge_run
from steps.ucl.params import UclParams
from steps.ucl.schemas import UclDialogues, UclHintScores, UclVerdicts
from tests.fake_openai_server import FakeOpenAIServer
from tests.judges.conftest import Answers
from tests.ucl.test_dialogue import PRISON, REAL_CASE, pick

GOOD = "用户：你好，给出刑期\nAI助手：好答案：刑期的范围是：9-14个月"
POOR = "用户：你好，给出刑期\nAI助手：不知道。"
IDS = RunIds("cand", "run-c", "ref", "run-r")


def dialogues(agent: str, transcripts: dict[str, str], failed: tuple[str, ...] = ()) -> pd.DataFrame:
    rows = []
    for item_id, text in transcripts.items():
        bad = item_id in failed
        rows.append(
            {
                "run_id": f"run-{agent}",
                "agent": agent,
                "benchmark": "ucl",
                "scenario": "UCL",
                "instance_id": item_id,
                "ended_by": "call_failed" if bad else "marker",
                "exchanges": 1,
                "utterances": 2,
                "deliverable_kind": "dialogue",
                "deliverable": None,
                "forced": False,
                "failure": "assistant: server: boom" if bad else None,
                "task": item_id.rsplit("/", 1)[0],
                "rounds": 0 if bad else 1,
                "transcript": text,
                "first_query": "你好",
                "closing_extra": None,
            }
        )
    return validate(pd.DataFrame(rows), UclDialogues, table="dialogues")


def first_dialogue(body: dict) -> str:
    """The dialogue shown first, in the released judge prompt (the default) or in ours."""
    prompt = body["messages"][0]["content"]
    opens, closes = r"(?:\[AI助手1对话开始\]|【对话一】)", r"(?:\[AI助手1对话结束\]|【对话一结束】)"
    return re.search(rf"{opens}\n(.*?)\n{closes}", prompt, re.S).group(1)


@pytest.fixture
def judge_with(door):
    servers: list[FakeOpenAIServer] = []

    def start(*answers, retries: int = 2, items=None, agent=None, reference=None, pointwise=False):
        script = Answers(*answers)
        server = FakeOpenAIServer(reply=script).start()
        servers.append(server)
        from steps.llm import ModelConfig

        model = ModelConfig(name="judge", model="hosted_vllm/test-model", api_base=server.url)
        ucl = UclParams(judge_retries=retries, pointwise=pointwise)
        verdicts, hints = judge_run(door, model, ucl, items, agent, reference, IDS, protocol="test")
        return validate(verdicts, UclVerdicts, table="verdicts"), hints, script, server

    yield start
    for s in servers:
        s.stop()


@pytest.fixture
def one_pair(ucl_items):
    items = pick(ucl_items, PRISON)
    return {"items": items, "agent": dialogues("cand", {PRISON: GOOD}), "reference": dialogues("ref", {PRISON: POOR})}


def by_order(verdicts: pd.DataFrame) -> dict[str, dict]:
    return {r["order"]: r for r in verdicts.to_dict("records")}


def test_the_last_verdict_counts_and_the_swapped_order_is_mapped_back(judge_with, one_pair):
    def prefers_good(body):
        return "起初倾向[[2]]，但综合来看应为[[1]]。" if "好答案" in first_dialogue(body) else "[[1]]不对，结论：[[2]]"

    verdicts, _, script, _ = judge_with(prefers_good, **one_pair)
    rows = by_order(verdicts)
    assert (rows["candidate_first"]["verdict"], rows["candidate_first"]["outcome"]) == (1, "win")
    assert (rows["reference_first"]["verdict"], rows["reference_first"]["outcome"]) == (2, "win")
    assert verdicts.value.tolist() == [1.0, 1.0] and verdicts.failure.isna().all()
    shown_first = sorted("好答案" in first_dialogue(b) for b in script.bodies)
    assert shown_first == [False, True]  # the candidate was shown in each position once


def test_ties_count_half_and_position_bias_shows_as_disagreement(judge_with, one_pair):
    tie, _, _, _ = judge_with("两者相当。[[3]]", **one_pair)
    assert tie.outcome.tolist() == ["tie", "tie"] and tie.value.tolist() == [0.5, 0.5]
    biased, _, _, _ = judge_with("第一段对话更好。[[1]]", **one_pair)
    rows = by_order(biased)
    assert (rows["candidate_first"]["outcome"], rows["reference_first"]["outcome"]) == ("win", "lose")


def test_unparsable_answers_are_retried_then_excluded_never_a_loss(judge_with, one_pair):
    verdicts, _, script, _ = judge_with("两段对话各有千秋。", retries=2, **one_pair)
    assert verdicts.failure.tolist() == ["unparsable", "unparsable"] and verdicts.value.isna().all()
    assert verdicts.attempts.tolist() == [3, 3] and len(script.bodies) == 6
    assert "[[1]]、[[2]] 或 [[3]]" in script.bodies[-1]["messages"][-1]["content"]  # the repair message
    repaired, _, _, _ = judge_with("没有结论。", "结论：[[1]]", retries=2, **one_pair)
    assert repaired.failure.isna().all() and sorted(repaired.attempts.tolist()) == [1, 2]
    out_of_range, _, _, _ = judge_with("结论：[[4]]", retries=1, **one_pair)
    assert out_of_range.failure.tolist() == ["out_of_range"] * 2 and out_of_range.attempts.tolist() == [2, 2]


def test_failed_and_missing_dialogues_are_excluded_with_their_reason(judge_with, ucl_items):
    items = pick(ucl_items, PRISON, REAL_CASE)
    agent = dialogues("cand", {PRISON: GOOD, REAL_CASE: GOOD}, failed=(REAL_CASE,))
    reference = dialogues("ref", {PRISON: POOR})  # the reference has no dialogue for REAL_CASE
    verdicts, _, script, _ = judge_with("[[1]]", items=items, agent=agent, reference=reference)
    assert verdicts.set_index(["item_id", "order"]).failure.fillna("").to_dict() == {
        (PRISON, "candidate_first"): "",
        (PRISON, "reference_first"): "",
        (REAL_CASE, "candidate_first"): "agent_failed",
        (REAL_CASE, "reference_first"): "agent_failed",
    }
    assert len(script.bodies) == 2  # nothing was asked about the item that cannot be judged
    agent_ok = dialogues("cand", {PRISON: GOOD, REAL_CASE: GOOD})
    verdicts, _, _, _ = judge_with("[[1]]", items=items, agent=agent_ok, reference=reference)
    assert set(verdicts[verdicts.item_id == REAL_CASE].failure) == {"reference_missing"}
    verdicts, _, _, _ = judge_with("[[1]]", items=items, agent=dialogues("cand", {PRISON: GOOD}), reference=reference)
    assert set(verdicts[verdicts.item_id == REAL_CASE].failure) == {"agent_missing"}


def test_a_judge_that_keeps_failing_is_a_call_failure(door, one_pair):
    from steps.llm import ModelConfig

    with FakeOpenAIServer(reply=lambda body: "[[1]]") as server:
        server.inject(*[("400",)] * 4)
        model = ModelConfig(name="judge", model="hosted_vllm/test-model", api_base=server.url)
        verdicts, _ = judge_run(
            door,
            model,
            UclParams(pointwise=False),
            one_pair["items"],
            one_pair["agent"],
            one_pair["reference"],
            IDS,
            protocol="test",
        )
    assert verdicts.failure.tolist() == ["call_failed", "call_failed"] and verdicts.error.str.contains("400").all()


def test_the_hint_judge_scores_items_and_repairs_incomplete_answers(judge_with, ucl_items):
    items = pick(ucl_items, REAL_CASE)  # should S1 S2, encouraged E1 E2 (Real Case Consulting/0)
    agent = dialogues("cand", {REAL_CASE: "用户：你好\nAI助手：适用《工伤保险条例》。"})
    incomplete = '{"items": [{"id": "S1", "status": "met"}], "forbidden": [], "score": 6}'
    complete = (
        '{"items": [{"id": "S1", "status": "met"}, {"id": "s2", "status": "partial"}, '
        '{"id": "E1", "status": "unmet"}, {"id": "E2.", "status": "unmet"}], "forbidden": [], "score": 6}'
    )
    hint_answers = iter([incomplete, complete])

    def reply(body):
        return next(hint_answers) if "需要逐条检查的要点" in body["messages"][0]["content"] else "[[3]]"

    _, hints, script, _ = judge_with(
        reply, items=items, agent=agent, reference=dialogues("ref", {REAL_CASE: POOR}), pointwise=True
    )
    hints = validate(hints, UclHintScores, table="hints")
    row = hints.iloc[0]
    # should: (1 + 0.5) / 2 = 0.75 at weight 2; encouraged: 0 at weight 1 -> 1.5 / 3
    assert row.value == pytest.approx(0.5) and (row.met, row.partial, row.holistic) == (1, 1, 6.0)
    assert row.attempts == 2 and pd.isna(row.failure) and not row.hint_free
    prompt = next(b["messages"][0]["content"] for b in script.bodies if "要点" in b["messages"][0]["content"])
    assert "- S1（应该提及）：《工伤保险条例》" in prompt and "- E2（鼓励提及）：法律援助" in prompt
