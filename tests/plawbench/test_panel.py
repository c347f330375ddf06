"""PLawBench's judge stage with a panel of two HTTP judges that disagree by construction (one awards half of every
rubric item's points, the other all of them): each member's judgements kept, the mean their score, the scores and
item scores the mean of the members' points; the report is built on them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.run import plawbench_judge, plawbench_predict, plawbench_report, plawbench_rubrics
from steps.sources.tables import interim_tables
from steps.tables import to_arrow, write_parquet_atomic
from tests.conftest import ROOT
from tests.fake_openai_server import FakeOpenAIServer
from tests.plawbench.conftest import NAMES

pytestmark = pytest.mark.slow

ITEM = re.compile(r"^\[([^\]]+)\]（满分 ([\d.]+) 分）", re.M)
FAIL = re.compile(r"^\[([^\]]+)\]（针对", re.M)
PENALTY = re.compile(r"^\[([^\]]+)\]（每次扣", re.M)


def judging(share: float):
    """A judge awarding `share` of every item's points; no fail condition, no penalty."""

    def reply(body: dict) -> str:
        prompt = body["messages"][0]["content"]
        items = ",".join(f'{{"id": "{i}", "awarded": {float(p) * share}}}' for i, p in ITEM.findall(prompt))
        fails = ",".join(f'{{"id": "{i}", "triggered": false}}' for i in FAIL.findall(prompt))
        penalties = ",".join(f'{{"id": "{i}", "times": 0}}' for i in PENALTY.findall(prompt))
        return f'{{"items": [{items}], "fails": [{fails}], "penalties": [{penalties}]}}'

    return reply


@pytest.fixture
def project(tmp_path, monkeypatch, sources):
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "sources.yaml", tmp_path / "sources.yaml")
    for name in NAMES:
        write_parquet_atomic(
            to_arrow(sources[name], dict(interim_tables()[name].arrow_types)), Path("data/interim") / f"{name}.parquet"
        )
    half, full = FakeOpenAIServer(reply=judging(0.5)).start(), FakeOpenAIServer(reply=judging(1.0)).start()
    params = {
        "agents": {"oracle": {"model": "scripted/oracle"}},
        "environment": {"model": "scripted/persona"},
        "judge": {"model": "scripted/judge"},
        "llm": {"cache_dir": str(tmp_path / "cache"), "max_attempts": 1},
        "plawbench": {
            "limit": 1,
            "scenarios": ["consultation", "plaintiff", "个人生活"],
            "multiturn": {"enabled": False},
            "judge": [
                {"model": "hosted_vllm/judge-half", "api_base": half.url},
                {"model": "hosted_vllm/judge-full", "api_base": full.url},
            ],
        },
    }
    Path("params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    yield
    half.stop()
    full.stop()


def test_a_panel_of_two_judges_scores_the_mean_of_their_points(project):
    plawbench_rubrics()
    plawbench_predict("oracle")
    plawbench_judge("oracle")
    run = Path("data/plawbench/runs/oracle")
    members = pd.read_parquet(run / "judgements_panel.parquet")
    judgements = pd.read_parquet(run / "judgements.parquet")
    assert len(judgements) == 3 and judgements.failure.isna().all()
    by = {
        j: members[members.judge == j].set_index("item_id")
        for j in ("hosted_vllm/judge-half", "hosted_vllm/judge-full")
    }
    half, full = by["hosted_vllm/judge-half"], by["hosted_vllm/judge-full"]
    plain = (half.clamped == 0) & (full.clamped == 0)  # no section cap cut the points: half is half of full
    assert plain.sum() == 2 and (full.awarded[plain] == full.max_points[plain]).all()
    assert (half.awarded[plain] == full.awarded[plain] / 2).all() and (half.value[plain] == 0.5).all()
    panel = judgements.set_index("item_id")
    assert set(panel.judge) == {"panel(mean): hosted_vllm/judge-half + hosted_vllm/judge-full"}
    assert (panel.value == (half.value + full.value) / 2).all()  # the mean of the members, item by item
    assert (panel.awarded == (half.awarded + full.awarded) / 2).all()
    assert (panel.value[plain] == 0.75).all()
    scores = pd.read_parquet(run / "scores.parquet")
    total = scores[scores.dimension == "total"].set_index("item_id").awarded
    assert (total == panel.awarded.reindex(total.index)).all()  # the total score is the panel's points
    items = pd.read_parquet(run / "item_scores.parquet")
    mine = items[items.item_id.isin(plain[plain].index)]
    assert len(mine) and (mine.awarded == 0.75 * mine.points).all()
    plawbench_report()
    assert "panel of hosted_vllm/judge-half + hosted_vllm/judge-full" in Path("reports/plawbench.md").read_text(
        encoding="utf-8"
    )
