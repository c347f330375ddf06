"""The judge probes of UCL-Bench's hint judge (proxy judge, two public items): round 0 is the judgement itself,
answered by the cache; the re-judgements and the shuffled guidance are new calls."""

from __future__ import annotations

import json

import pytest

from steps.judges.probes import JudgeProbeParams
from steps.llm import LLMSettings, ModelDoor
from steps.ucl.judging import judge_run, probe_hints
from steps.ucl.params import UclParams
from tests.ucl.conftest import ORACLE, PROXY
from tests.ucl.test_ucl_reasoning import IDS, PRISON, REAL_CASE, dialogues_of


@pytest.fixture(scope="module")
def judged(ucl_items, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hint-probes")
    items = ucl_items[ucl_items.item_id.isin([PRISON, REAL_CASE])].reset_index(drop=True)
    _, rows = dialogues_of(items, ORACLE, tmp, "oracle")
    return items, rows, tmp


def test_hint_probes_are_the_judgement_then_new_calls(judged):
    items, rows, tmp = judged
    ucl = UclParams(pointwise=True, judge_probes=JudgeProbeParams(sample=1, repeats=2, shuffle=True, seed=0))
    door = ModelDoor(LLMSettings(cache_dir=str(tmp / "judge")), run_id="judge")
    _, hints = judge_run(door, PROXY, ucl, items, rows, rows, IDS, protocol="t")
    before = len(door.usage)
    probes = probe_hints(door, PROXY, ucl, items, rows, hints, protocol="t")
    made = door.usage[before:]
    door.close()
    assert list(zip(probes.probe, probes["round"], strict=True)) == [
        ("repeat", 0),
        ("repeat", 1),
        ("repeat", 2),
        ("shuffle", 1),
    ]
    assert probes.item_id.nunique() == 1 and probes.item_id.iloc[0] in (PRISON, REAL_CASE)
    # round 0 from the cache, the other three asked: distinct keys
    assert sorted(u.cache_hit for u in made) == [False, False, False, True]
    assert len({u.call_key for u in made}) == 4
    own = hints.set_index("item_id").loc[probes.item_id.iloc[0], "value"]
    assert probes.value.iloc[0] == pytest.approx(own)
    statuses = json.loads(probes["items"].iloc[0])
    assert statuses and set(statuses.values()) <= {"met", "partial", "unmet"}
    off = UclParams(pointwise=False)
    assert probe_hints(door, PROXY, off, items, rows, hints, protocol="t").empty
