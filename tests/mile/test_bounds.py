"""Bounds: the oracle lawyer scores ≥ 0.95 on CLI, DEF and STA, the null lawyer ≤ 0.05 — on the reference
complaints of all 693 instances, and on simulated dialogues through the model door with the proxy judge."""

from __future__ import annotations

import asyncio

import pandas as pd
import pytest

from steps.llm import LLMSettings, ModelDoor
from steps.mile.evaluate import plan_evaluation
from steps.mile.frames import mile_tables
from steps.mile.goal import match_rows
from steps.mile.instances import build_instance, sample_rows
from steps.mile.judging import run_tasks
from steps.mile.opening import FixedOpening
from steps.mile.oracle import reference_complaint
from steps.mile.params import MileParams
from steps.mile.parties import parse_defendants, parse_plaintiff
from steps.mile.proxy import standard_rules
from steps.mile.scenario import mile_scenario
from steps.simulate.journal import Journal
from steps.simulate.records import RunLabel
from steps.simulate.runner import DoorSpeaker, simulate
from tests.mile.conftest import JUDGE, NULL, ORACLE, PERSONA

BOUNDED = ("CLI", "DEF", "STA")


def test_the_reference_complaint_of_every_instance_matches_fully_and_keeps_the_sta_format(mile):
    markup_in_source = []
    for row in mile.itertuples():
        truth = build_instance(row).ground_truth
        complaint = reference_complaint(truth)
        plaintiff = parse_plaintiff(row.plaintiff, row.plaintiff_type)
        rows = {
            r["metric"]: r
            for r in match_rows(row.instance_id, plaintiff, parse_defendants(row.defendant), complaint, MileParams())
        }
        assert rows["CLI"]["value"] == 1.0 and rows["DEF"]["value"] == 1.0, (row.id, rows["CLI"], rows["DEF"])
        rules = standard_rules(complaint)
        if not all(rules):  # only when the source's evidence list itself holds extraction chatter in markdown
            assert rules == [True] * 5 + [False] and "**原告证据**" in "".join(row.evidence), row.id
            markup_in_source.append(row.id)
    assert markup_in_source == [391, 458, 472, 489, 507]
    assert not any(standard_rules(""))


async def _simulate_and_judge(mile, rows, agent, door, journal) -> pd.DataFrame:
    """As stages mile_simulate and mile_judge do it (one event loop per door, as in the flows)."""
    scenario = mile_scenario()
    instances = [build_instance(r) for r in rows.itertuples()]
    dialogues = await simulate(instances, lambda _: scenario, FixedOpening(DoorSpeaker(door, agent, PERSONA)), journal)
    by_id, row_of = {i.instance_id: i for i in instances}, {r.instance_id: r for r in rows.itertuples()}
    turns, dialogue_rows = mile_tables(scenario, by_id, row_of, dialogues, RunLabel("t", agent.name, "mile"))
    plan = plan_evaluation(mile, dialogue_rows, turns, MileParams())
    return pd.DataFrame(plan.rows + await run_tasks(door, JUDGE, plan.tasks))


def _run(mile, rows, agent, tmp_path) -> pd.DataFrame:
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / "llm")), run_id=agent.name)
    journal = Journal(tmp_path / f"{agent.name}.jsonl")
    scores = asyncio.run(_simulate_and_judge(mile, rows, agent, door, journal))
    journal.close()
    door.close()
    assert scores.failure.isna().all(), scores[scores.failure.notna()].error.head().tolist()
    return scores


@pytest.fixture(scope="module")
def sample(mile):
    rows = sample_rows(mile, 12, 0)
    assert (rows.plaintiff_type == "company").any() and (rows.plaintiff_type == "personal").any()
    assert rows.defendant.str.count("身份：").max() >= 3
    return rows


def test_oracle_and_null_lawyers_bound_cli_def_and_sta(mile, sample, tmp_path):
    oracle = _run(mile, sample, ORACLE, tmp_path).groupby("metric").value.mean()
    null = _run(mile, sample, NULL, tmp_path).groupby("metric").value.mean()
    for metric in BOUNDED:
        assert oracle[metric] >= 0.95, (metric, oracle[metric])
        assert null[metric] <= 0.05, (metric, null[metric])
    # the other metrics order the two as well (proxy judge: bigram overlap and rules)
    for metric in ("F&R", "CLA", "EVID", "PROF", "INT", "LOGI"):
        assert oracle[metric] > null[metric] + 0.3, metric
