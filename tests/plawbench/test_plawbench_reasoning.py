"""Issue 38 item 5 on PLawBench's single-turn answers: a model that reasons (`<think>…</think>answer`, or the trace
in `reasoning_content`) gets the same responses, judgements and scores as one answering `answer` (the proxy judge
scores coverage of the rubric, so a trace that repeats the reference would raise a score if it were judged); the
trace is kept in the responses' `reasoning` column; a reply that is only a trace is an empty answer (`outcome`
`empty_answer`), never sent to the judge and scored 0 by rule. One task of each scenario."""

from __future__ import annotations

import asyncio
import json

import pandas as pd
import pytest

import steps.judges.scripted  # registers the proxy judge
import steps.plawbench.scripted  # noqa: F401
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.plawbench.judging import judge_all, judgement_rows
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.predict import build_requests, responses_frame, select_tasks
from steps.plawbench.schemas import PlawJudgements, PlawResponses, PlawScores
from steps.schemas import validate
from tests.reasoning_forms import FORMS, last_user, leaked, serve

JUDGE = ModelConfig(name="judge", model="scripted/judge")
OPTIONS = PlawBenchParams()


def halves(reference: str) -> tuple[str, str]:
    """(answer, trace): the first half of the reference answer is the answer, the second half the trace."""
    cut = len(reference) // 2
    return reference[:cut], reference[cut:]


async def run_forms(tasks: pd.DataFrame, rubric: pd.DataFrame, tmp_path) -> dict[str, tuple]:
    probe = build_requests(tasks, rubric, ModelConfig(name="x", model="scripted/oracle"), OPTIONS)
    by_prompt = {r.messages[-1]["content"]: halves(r.metadata["reference"]) for r in probe}
    silent = probe[0].messages[-1]["content"]  # the first task gets a reply that is only its trace
    by_prompt[silent] = ("", by_prompt[silent][1])
    out = {}
    for form in FORMS:
        with serve(form, lambda b: by_prompt[last_user(b)][0], lambda b: by_prompt[last_user(b)][1]) as server:
            agent = ModelConfig(name="reasoner", model="hosted_vllm/test-model", api_base=server.url)
            door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / form)), run_id=form)
            requests = build_requests(tasks, rubric, agent, OPTIONS)
            replies = await door.complete_many(requests)
            responses = validate(responses_frame(tasks, requests, replies, "reasoner", "r"), PlawResponses, table="r")
            results = await judge_all(door, JUDGE, tasks, rubric, responses, OPTIONS, repairs=1)
            judgements, scores, _ = judgement_rows(results, responses[responses.response.isna()], tasks, rubric, "j")
            door.close()
        out[form] = (
            responses,
            validate(judgements, PlawJudgements, table="j"),
            validate(scores, PlawScores, table="s"),
        )
    return out


@pytest.fixture(scope="module")
def runs(tables, tmp_path_factory):
    tasks = select_tasks(tables.tasks, 1)
    return tasks, asyncio.run(run_forms(tasks, tables.items, tmp_path_factory.mktemp("reasoning")))


def _cells(scores: pd.DataFrame) -> list:
    return scores[["item_id", "dimension", "awarded", "failure"]].fillna("-").values.tolist()


def test_a_reasoning_model_gets_the_same_responses_and_scores(runs):
    tasks, by_form = runs
    responses, _, scores = by_form["plain"]
    assert len(tasks) >= 3 and scores.awarded.notna().any()
    for form in ("think", "field"):
        assert by_form[form][0].response.tolist() == responses.response.tolist(), form
        assert _cells(by_form[form][2]) == _cells(scores), form


def test_the_trace_would_change_a_score(runs, tables):
    """The check above can fail: the second task judged with its trace scores higher than on its answer alone."""
    tasks, by_form = runs
    responses = by_form["plain"][0]
    second = responses.iloc[[1]]
    trace = by_form["think"][0].reasoning.iloc[1]
    with_trace = second.assign(response=leaked(trace, second.response.iloc[0]))

    async def judged(rows: pd.DataFrame) -> float:
        door = ModelDoor(LLMSettings(cache=False), run_id="leak")
        results = await judge_all(door, JUDGE, tasks, tables.items, rows, OPTIONS, repairs=1)
        _, s, _ = judgement_rows(results, rows.iloc[0:0], tasks, tables.items, "j")
        return float(s[s.dimension == "total"].awarded.iloc[0])

    assert asyncio.run(judged(with_trace)) > asyncio.run(judged(second))


def test_the_trace_is_kept_and_a_trace_only_reply_is_scored_0_without_a_judge(runs):
    tasks, by_form = runs
    first = tasks.item_id.iloc[0]
    for form in FORMS:
        responses, judgements, scores = by_form[form]
        assert responses.response.tolist()[0] == "" and responses.failure.isna().all()
        assert responses.outcome.fillna("answer").tolist() == ["empty_answer"] + ["answer"] * (len(tasks) - 1)
        judged = judgements.set_index("item_id").loc[first]
        assert (judged.judge, judged.value, judged.awarded, judged.attempts) == ("rule", 0.0, 0.0, 0)
        assert json.loads(judged.evidence)["empty_answer"] is True
        mine = scores[scores.item_id == first]
        assert mine.failure.isna().all() and (mine.awarded == 0).all() and len(mine) >= 1
    for form in ("think", "field"):
        responses = by_form[form][0]
        assert responses.reasoning.notna().all() and not responses.response.str.contains("think").any()
    assert by_form["plain"][0].reasoning.isna().all()
