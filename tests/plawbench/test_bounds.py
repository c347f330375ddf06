"""Bounds under the proxy judge: the scripted oracle scores ≥ 0.9 and the null agent ≤ 0.05 on every
category and Overall, single-turn and multi-turn, on a sample of every scenario of the public release."""

from __future__ import annotations

import asyncio

import duckdb
import pandas as pd
import pytest

import steps.judges.scripted  # registers the proxy judge
import steps.plawbench.scripted  # noqa: F401  (registers the oracle and the client)
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.plawbench import dialogue
from steps.plawbench.judging import judge_all, judgement_rows
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.predict import build_requests, multiturn_frame, responses_frame, select_tasks
from steps.plawbench.sql import QUERIES
from steps.simulate.journal import Journal
from steps.simulate.runner import DoorSpeaker, simulate

JUDGE = ModelConfig(name="judge", model="scripted/judge")
ENVIRONMENT = ModelConfig(name="environment", model="scripted/persona")
OPTIONS = PlawBenchParams()
PER_SCENARIO = 3


async def run_agent(door: ModelDoor, agent: ModelConfig, tasks: pd.DataFrame, rubric: pd.DataFrame, tmp_path):
    requests = build_requests(tasks, rubric, agent, OPTIONS)
    replies = await door.complete_many(requests)
    responses = responses_frame(tasks, requests, replies, agent.name, "test")
    consult, instances = dialogue.consultations(tasks, rubric, 10)
    journal = Journal(tmp_path / f"{agent.name}.jsonl")
    scenario = dialogue.scenario(10)
    dialogues = await simulate(instances, lambda _: scenario, DoorSpeaker(door, agent, ENVIRONMENT), journal)
    journal.close()
    responses = pd.concat([responses, multiturn_frame(consult, dialogues, agent.name, "test")], ignore_index=True)
    results = await judge_all(door, JUDGE, tasks, rubric, responses, OPTIONS, repairs=1)
    return responses, judgement_rows(results, responses[responses.response.isna()], tasks, rubric, "test")


def rates_of(scores: pd.DataFrame, tasks: pd.DataFrame) -> dict[tuple[str, str], float]:
    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("tasks", tasks)
        rates = QUERIES.run(con, "plawbench_rates")
        main = rates[rates["table"] == "table3"].assign(source="ours")[["agent", "source", "metric", "value"]]
        con.register("rates", main)
        derived = QUERIES.run(con, "plawbench_overall")
    out = {(r.table, r.metric): r.value for r in rates[rates["table"].isin(["table3", "multiturn"])].itertuples()}
    out |= {("table3", r.metric): r.value for r in derived.itertuples()}
    return out


@pytest.fixture(scope="module")
def runs(tables, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bounds")
    tasks = select_tasks(tables.tasks, PER_SCENARIO)
    out = {}
    for name in ("oracle", "null"):
        door = ModelDoor(LLMSettings(cache_dir=str(tmp / "cache")), run_id="bounds")  # one door per event loop
        agent = ModelConfig(name=name, model=f"scripted/{name}")
        responses, (judgements, scores, items) = asyncio.run(run_agent(door, agent, tasks, tables.items, tmp))
        door.close()
        out[name] = {
            "responses": responses,
            "judgements": judgements,
            "items": items,
            "rates": rates_of(scores, tables.tasks),
        }
    return out


METRICS = [
    ("table3", m)
    for m in (
        "T1",
        "T2/Conclusion",
        "T2/Facts",
        "T2/Reasoning",
        "T2/Statute",
        "T2",
        "T3/Defendant",
        "T3/Plaintiff",
        "T3",
        "Overall",
    )
] + [("multiturn", "T1")]


def test_the_sample_covers_every_scenario(tables):
    sample = select_tasks(tables.tasks, PER_SCENARIO)
    assert sample.scenario.nunique() == 15 and len(sample) == 15 * PER_SCENARIO


def test_oracle_scores_at_least_090_everywhere(runs):
    rates = runs["oracle"]["rates"]
    low = {k: round(rates[k], 4) for k in METRICS if rates[k] < 0.9}
    assert not low, low
    assert rates[("table3", "Overall")] > 0.97


def test_null_scores_at_most_005_everywhere(runs):
    rates = runs["null"]["rates"]
    high = {k: round(rates[k], 4) for k in METRICS if rates[k] > 0.05}
    assert not high, high


def test_every_response_is_judged_and_labelled_proxy_and_empty_answers_are_scored_by_rule(runs):
    for run in runs.values():
        judgements = run["judgements"]
        assert judgements.failure.isna().all() and len(judgements) == len(run["responses"])
    assert runs["oracle"]["judgements"].judge_proxy.all()
    # the null agent says nothing: every answer, single-turn or multi-turn, is an empty answer, never judged
    assert runs["null"]["responses"].outcome.eq("empty_answer").all()
    null = runs["null"]["judgements"]
    assert null.judge.eq("rule").all() and not null.judge_proxy.any() and null.attempts.eq(0).all()


def test_null_drafts_are_empty_answers_worth_nothing(runs):
    drafts = runs["null"]["judgements"].query("category == 'drafting'")
    assert len(drafts) and (drafts.awarded == 0).all() and (drafts.value == 0).all() and drafts.raw.eq("").all()
    assert (runs["oracle"]["judgements"].query("category == 'drafting'").penalty_points == 0).all()


def test_the_oracle_multiturn_dialogue_asks_each_rubric_question_then_ends(runs):
    multi = runs["oracle"]["responses"].query("variant == 'multiturn'")
    assert (multi.ended_by.isin(["marker", "max_turns"])).all() and multi.failure.isna().all()
    null = runs["null"]["responses"].query("variant == 'multiturn'")
    assert (null.ended_by == "empty_reply").all() and (null.response == "").all()  # the engine passes no empty speech
