"""Bounds on all 230 public items with the scripted models and the proxy judge: the oracle beats the null
agent in at least 95 % of pairs in each order, the null agent loses to the oracle, a model against its own
kind ties; the oracle satisfies the user at once, the null agent runs to the cap."""

from __future__ import annotations

import pandas as pd
import pytest

from steps.llm import LLMSettings, ModelDoor
from steps.schemas import Turns, validate
from steps.simulate.journal import Journal
from steps.simulate.records import RunLabel
from steps.ucl.dialogues import ucl_tables
from steps.ucl.instances import build_instances
from steps.ucl.judging import RunIds, judge_run
from steps.ucl.params import UclParams
from steps.ucl.schemas import UclDialogues, UclHintScores, UclVerdicts
from steps.ucl.simulation import simulate_run
from tests.ucl.conftest import NULL, ORACLE, PROXY, USER

UCL = UclParams(judge_retries=2, pointwise=True)


@pytest.fixture(scope="module")
def runs(ucl_items, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bounds")
    doors: list[ModelDoor] = []

    def door() -> ModelDoor:  # one door per event loop, as in the flows (its bounds belong to one loop)
        doors.append(ModelDoor(LLMSettings(cache_dir=str(tmp / "cache")), run_id="bounds"))
        return doors[-1]

    instances = build_instances(ucl_items, max_exchanges=3)
    out = {}
    for agent in (ORACLE, NULL):
        dialogues = simulate_run(door(), agent, USER, instances, Journal(tmp / f"{agent.name}.jsonl"))
        turns, rows = ucl_tables(dialogues, RunLabel(agent.name, agent.name, "ucl"))
        out[agent.name] = (validate(turns, Turns, table="turns"), validate(rows, UclDialogues, table="dialogues"))

    def judge(candidate: str, reference: str) -> tuple[pd.DataFrame, pd.DataFrame]:
        ids = RunIds(candidate, candidate, reference, reference)
        verdicts, hints = judge_run(door(), PROXY, UCL, ucl_items, out[candidate][1], out[reference][1], ids)
        return validate(verdicts, UclVerdicts, table="v"), validate(hints, UclHintScores, table="h")

    yield out, judge
    for d in doors:
        d.close()


def win_share(verdicts: pd.DataFrame, order: str) -> float:
    rows = verdicts[verdicts.order == order]
    return float((rows.outcome == "win").mean())


def test_the_oracle_beats_the_null_agent_in_both_orders(runs):
    _, judge = runs
    verdicts, _ = judge("oracle", "null")
    assert len(verdicts) == 460 and verdicts.failure.isna().all()
    assert win_share(verdicts, "candidate_first") >= 0.95 and win_share(verdicts, "reference_first") >= 0.95
    reverse, _ = judge("null", "oracle")
    assert win_share(reverse, "candidate_first") <= 0.05 and win_share(reverse, "reference_first") <= 0.05
    assert (reverse.outcome == "lose").mean() >= 0.95


def test_a_model_against_its_own_kind_ties(runs):
    _, judge = runs
    verdicts, _ = judge("null", "null")
    assert (verdicts.outcome == "tie").all() and verdicts.value.mean() == 0.5


def test_hint_scores_bound_the_pointwise_mode(runs):
    _, judge = runs
    _, oracle = judge("oracle", "null")
    _, null = judge("null", "oracle")
    assert oracle.failure.isna().all() and null.failure.isna().all()
    assert oracle.value.mean() >= 0.95 and null.value.max() == 0.0
    assert oracle.hint_free.sum() == 10 == null.hint_free.sum()  # the ten 6-2 items without guidance
    # the oracle never cites what is forbidden (the repealed statutes of the six Real Case Consulting items)
    assert oracle.forbidden_mentioned.sum() == 0


def test_the_oracle_needs_one_round_and_the_null_agent_says_nothing(runs):
    out, _ = runs
    oracle, null = out["oracle"][1], out["null"][1]
    assert (oracle.rounds == 1).all() and (oracle.ended_by == "marker").all()
    assert (null.rounds == 1).all() and (null.ended_by == "empty_reply").all()
    # every user turn says something, and the first query is the same for every agent (shared by the cache)
    for turns, _ in out.values():
        assert (turns[turns.speaker == "user"].text.str.strip() != "").all()
    assert oracle.set_index("instance_id").first_query.equals(null.set_index("instance_id").first_query)


def test_the_scripted_user_never_reveals_the_answer(runs, ucl_items):
    out, _ = runs
    turns = out["null"][0]
    items = ucl_items.set_index("item_id")
    answers = items.hint_answer.dropna()
    said = turns[turns.speaker == "user"].groupby("instance_id").text.apply("\n".join)
    given = items.needs + items.information  # e.g. the answer 可以 is in the need 可以要求退款吗
    leaked = [item for item, answer in answers.items() if answer in said[item] and answer not in given[item]]
    assert len(answers) == 102 and leaked == []
