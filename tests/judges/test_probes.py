"""Judge probes: the sample, re-judgements as distinct calls, shuffled rubrics, and the agreement measures on
hand-computed tables; PLawBench's probes with the proxy judge; the audit's section."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest

from steps.judges.probes import (
    JudgeProbeParams,
    consistency,
    order_effect,
    probe_frame,
    reseeded,
    sample_ids,
    shuffled,
)
from steps.judges.rubric import judge_rubric, rubric_prompt
from steps.llm import ModelConfig
from steps.llm.cache import call_key
from steps.reports.judges import TRIVIAL, probe_audit, render_probes
from tests.judges.conftest import PROXY, run

HI = [{"role": "user", "content": "你好"}]


def test_the_sample_is_seeded_and_independent_of_order():
    ids = [f"i{n}" for n in range(20)]
    assert sample_ids(ids, 5, 0) == sample_ids(list(reversed(ids)), 5, 0)
    assert sample_ids(ids, 5, 0) != sample_ids(ids, 5, 1)
    assert sample_ids(ids[:3], 10, 0) == ["i0", "i1", "i2"] and sample_ids(ids, 0, 0) == []


def test_each_round_is_a_distinct_call():
    judge = ModelConfig(name="judge", model="openai/m", api_base="http://x/v1")
    keys = {call_key(reseeded(judge, r), HI) for r in range(4)}
    assert len(keys) == 4 and reseeded(judge, 0) == judge.model_copy(
        update={"decoding": judge.decoding.model_copy(update={"seed": 0})}
    )
    assert (
        reseeded(judge.model_copy(update={"decoding": judge.decoding.model_copy(update={"seed": 7})}), 2).decoding.seed
        == 9
    )


def _frame(rows):
    return probe_frame(
        [
            {
                "item_id": i,
                "probe": p,
                "round": r,
                "judge": "j",
                "judge_proxy": False,
                "value": v,
                "failure": f,
                "items": json.dumps(g),
            }
            for i, p, r, v, f, g in rows
        ]
    )


def test_agreement_among_rounds_by_hand():
    frame = _frame(
        [
            ("a", "repeat", 0, 0.5, None, {"1": 2, "2": 0}),
            ("a", "repeat", 1, 0.5, None, {}),
            ("a", "repeat", 2, 0.5, None, {}),
            ("b", "repeat", 0, 0.2, None, {"x": True}),
            ("b", "repeat", 1, 0.4, None, {}),
            ("b", "repeat", 2, 0.6, None, {}),
            ("c", "repeat", 0, 0.9, None, {}),  # one valued round only: not counted
            ("c", "repeat", 1, None, "unparsable", {}),
            ("a", "shuffle", 1, 0.7, None, {"1": 2, "2": 1}),
            ("b", "shuffle", 1, 0.2, None, {"x": True}),
        ]
    )
    # a: unanimous, SD 0; b: 0.2, 0.4, 0.6 → SD 0.2
    assert consistency(frame) == {"repeat_items": 2, "rounds": 3, "unanimous_pct": 50.0, "within_sd": 0.1}
    # a: item 2 changed (0 → 1), item 1 not; b: x unchanged → 1 of 3; Δ (0.2 + 0) / 2
    assert order_effect(frame) == {"shuffle_items": 2, "rubric_items": 3, "changed_pct": 33.3, "mean_diff": 0.1}
    assert consistency(_frame([])) == {"repeat_items": 0, "rounds": 0, "unanimous_pct": None, "within_sd": None}


@pytest.fixture
def drafting():
    from steps.plawbench.drafting_rubric import parse_drafting
    from steps.plawbench.items import rows_frame
    from steps.plawbench.judging import build_rubric
    from steps.plawbench.params import PlawBenchParams
    from tests.plawbench.test_judge_robustness import RUBRIC, TASK

    rows = rows_frame(parse_drafting(TASK.item_id, RUBRIC, TASK.max_points).rows)
    return TASK, rows, build_rubric(TASK, rows, PlawBenchParams())


def test_a_shuffled_rubric_keeps_its_items_and_changes_their_order(drafting):
    _, _, rubric = drafting
    moved = shuffled(rubric, 3)
    assert sorted(i.id for i in moved.items) == sorted(i.id for i in rubric.items)
    assert [i.id for i in moved.items] != [i.id for i in rubric.items]
    assert rubric_prompt("答", moved) != rubric_prompt("答", rubric)
    assert shuffled(rubric, 3) == moved


def test_plawbench_probes_with_the_proxy_judge_are_real_calls(drafting, door):
    from steps.plawbench.judging import Prepared, probe_all
    from steps.plawbench.params import PlawBenchParams

    task, rows, rubric = drafting
    text = "民事起诉状：原告请求被告偿还本金300万元，由昆山市人民法院管辖。"
    own = run(judge_rubric(door, PROXY, response=text, rubric=rubric, name="plawbench.drafting"))
    resp = SimpleNamespace(item_id=task.item_id, variant="single", category="drafting")
    tasks = pd.DataFrame([vars(task)])
    options = PlawBenchParams(judge_probes=JudgeProbeParams(sample=5, repeats=2, shuffle=True))
    frame = run(probe_all(door, PROXY, tasks, rows, [(resp, Prepared(text), own)], options, repairs=0))
    assert list(zip(frame.probe, frame["round"], strict=True)) == [
        ("repeat", 0),
        ("repeat", 1),
        ("repeat", 2),
        ("shuffle", 1),
    ]
    assert frame.value.nunique() == 1 and frame.judge_proxy.all()  # deterministic: alike by construction
    # the judgement and its three probe calls: four distinct keys, none answered from the cache
    assert len({u.call_key for u in door.usage}) == 4 and not any(u.cache_hit for u in door.usage)
    audit = probe_audit_of(frame)
    assert audit.loc[0, "unanimous_pct"] == 100 and audit.loc[0, "changed_pct"] == 0
    assert TRIVIAL in render_probes(audit)
    none = PlawBenchParams(judge_probes=JudgeProbeParams(sample=0))
    assert run(probe_all(door, PROXY, tasks, rows, [(resp, Prepared(text), own)], none, repairs=0)).empty


def probe_audit_of(frame):
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp()) / "agent_x"
    folder.mkdir()
    frame.to_parquet(folder / "judge_probes.parquet")
    return probe_audit([("plawbench", folder / "judge_probes.parquet")])


def test_a_real_judges_probes_are_reported_as_measured():
    frame = _frame(
        [
            ("a", "repeat", 0, 0.5, None, {"1": 2}),
            ("a", "repeat", 1, 0.25, None, {}),
            ("a", "shuffle", 1, 0.75, None, {"1": 1}),
        ]
    )
    audit = probe_audit_of(frame)
    text = render_probes(audit)
    row = next(line for line in text.splitlines() if line.startswith("| plawbench"))
    # one item, two rounds: not unanimous, SD of (0.5, 0.25) = 0.1768; its one rubric item changed; Δ +0.25
    assert row == "| plawbench | agent_x | `j` | 2 | 1 | 2 | 0 | 0.1768 | 1 | 1 | 100 | 0.25 |"
    assert TRIVIAL not in text and render_probes(audit.iloc[0:0]) == ""
