"""The judge probes of MILE's graded judge (proxy judge, one instance's goal and interaction calls): round 0 is the
judgement itself, answered by the cache; the re-judgements are new calls with the seed moved; no shuffle."""

from __future__ import annotations

import asyncio

import pytest

import steps.mile.proxy  # noqa: F401  (registers MILE's proxy judge)
from steps.judges.probes import JudgeProbeParams, consistency
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.mile.judging import grade_key, probe_tasks, run_tasks, task_key
from tests.mile.test_judging import _tasks

PROXY = ModelConfig(name="judge", model="scripted/judge")


def test_graded_probes_are_the_judgement_then_new_calls(mile, tmp_path):
    tasks = _tasks(mile)
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / "judge")), run_id="judge")
    rows = asyncio.run(run_tasks(door, PROXY, tasks))
    before = len(door.usage)
    probes = asyncio.run(probe_tasks(door, PROXY, tasks, JudgeProbeParams(sample=2, repeats=2, seed=0)))
    made = door.usage[before:]
    door.close()
    chosen = [t for t in tasks if any(grade_key(t, m) in set(probes.item_id) for m in t.metrics.values())]
    assert len(chosen) == 2 and len({task_key(t) for t in tasks}) == len(tasks)  # keys tell every call apart
    # each chosen call asked three times (round 0 from the cache), one row per grade and round
    assert sorted(u.cache_hit for u in made) == [False, False, False, False, True, True]
    assert len({u.call_key for u in made}) == 6
    grades = sum(len(t.metrics) for t in chosen)
    assert len(probes) == 3 * grades and set(probes.probe) == {"repeat"}
    assert sorted(probes["round"].value_counts().items()) == [(0, grades), (1, grades), (2, grades)]
    own = {(r["instance_id"], r["stage"], r["turn"], r["metric"]): r["value"] for r in rows}
    for t in chosen:
        for metric in t.metrics.values():
            values = probes[probes.item_id == grade_key(t, metric)].value.tolist()
            assert values == pytest.approx([own[(t.instance_id, t.stage, t.turn, metric)]] * 3)  # the proxy: alike
    assert consistency(probes) == {"repeat_items": grades, "rounds": 3, "unanimous_pct": 100.0, "within_sd": 0.0}
    assert asyncio.run(probe_tasks(door, PROXY, tasks, JudgeProbeParams(sample=0))).empty
