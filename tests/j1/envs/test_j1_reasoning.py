"""Issue 38 item 5 on J1-EVAL: an agent served by a reasoning model (`<think>…</think>answer`, or the trace in
`reasoning_content`) has the same dialogues and the same scores as one answering `answer` in the two consultation
environments (KQ, LC); its trace, which says the opposite, reaches neither the user, the supervisor nor the judge.
Stage-level: the J1 scenarios on the engine (scripted user and supervisor), the run tables, and the judge stage's
case building and evaluation with the proxy judge, on the first instance of each."""

from __future__ import annotations

import asyncio
import json

import pandas as pd
import pytest

import steps.j1.eval.scripted  # noqa: F401  (registers the proxy judge with J1's kinds)
from steps.j1.envs.registry import SCENARIOS
from steps.j1.eval.case import Panel
from steps.j1.eval.evaluate import build_cases, evaluate_run, score_frame
from steps.j1.params import J1EvalParams
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.simulate.journal import Journal
from steps.simulate.records import RunLabel, run_tables
from steps.simulate.runner import DoorSpeaker, simulate
from tests.reasoning_forms import FORMS, serve

ENVIRONMENT = ModelConfig(name="env", model="scripted/persona")
JUDGE = ModelConfig(name="judge", model="scripted/judge")
ANSWER = "这种说法是对的。依据《中华人民共和国民法典》第一百四十三条，具备条件的民事法律行为有效。"
TRACE = "这种说法不对，是错误的？不，应当是对的。"


async def run_and_judge(instances, rows: pd.DataFrame, agent: ModelConfig, door: ModelDoor, journal: Journal):
    dialogues = await simulate(
        instances, lambda i: SCENARIOS[i.scenario], DoorSpeaker(door, agent, ENVIRONMENT), journal
    )
    turns, deliverables = run_tables(dialogues, SCENARIOS.__getitem__, RunLabel("r", agent.name, "j1"))
    cases = build_cases(rows, turns, deliverables)
    scores = score_frame(await evaluate_run(cases, Panel(door, JUDGE), J1EvalParams()), run_id="r", agent=agent.name)
    return turns, scores


@pytest.fixture(scope="module")
def runs(instances, instance_rows, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reasoning")
    chosen = [instances["KQ"], instances["LC"]]
    out = {}
    for form in FORMS:
        with serve(form, lambda body: ANSWER, lambda body: TRACE) as server:
            agent = ModelConfig(name="reasoner", model="hosted_vllm/test-model", api_base=server.url)
            door = ModelDoor(LLMSettings(cache_dir=str(tmp / form)), run_id=form)
            journal = Journal(tmp / f"{form}.jsonl")
            turns, scores = asyncio.run(run_and_judge(chosen, instance_rows, agent, door, journal))
            journal.close()
            door.close()
            out[form] = (turns, scores, list(server.requests))
    return out


def _cells(scores: pd.DataFrame) -> list:
    return scores[["instance_id", "metric", "component", "value", "status"]].fillna("-").values.tolist()


def test_a_reasoning_agent_gets_the_same_dialogues_and_scores(runs):
    turns, scores, _ = runs["plain"]
    assert (scores.status == "scored").any()
    for form in ("think", "field"):
        other_turns, other_scores, sent = runs[form]
        assert other_turns.text.tolist() == turns.text.tolist(), form
        assert _cells(other_scores) == _cells(scores), form
        heard = json.dumps([b["messages"] for b in sent], ensure_ascii=False)
        assert TRACE not in heard and "<think>" not in heard
        agent_turns = other_turns[other_turns.model == "hosted_vllm/test-model"]
        assert len(agent_turns) and agent_turns.reasoning.eq(TRACE).all()
