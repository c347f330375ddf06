"""The opt-in paper-penalty mode through the stages (scripted agents, proxy judge): off, the outputs are the
default ones (no extra row, key, run-id input, report section or CSV table); on, the same default numbers
plus the penalised T1 and Overall beside them, with the oracle/null bounds still holding."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.run import plawbench_judge, plawbench_predict, plawbench_report, plawbench_rubrics
from steps.sources.tables import interim_tables
from steps.tables import to_arrow, write_parquet_atomic
from tests.conftest import ROOT
from tests.plawbench.conftest import NAMES

pytestmark = pytest.mark.slow
AGENTS = ("oracle", "null")


def write_params(tmp_path: Path, mode: str) -> None:
    params = {
        "agents": {a: {"model": f"scripted/{a}"} for a in AGENTS},
        "environment": {"model": "scripted/persona"},
        "judge": {"model": "scripted/judge"},
        "llm": {"cache_dir": str(tmp_path / "cache")},
        "plawbench": {"limit": 2, "multiturn": {"enabled": True, "max_turns": 3}, "t1_penalties": mode},
    }
    Path("params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")


def judged(mode: str, tmp_path: Path) -> dict:
    write_params(tmp_path, mode)
    summaries = [plawbench_judge(a) for a in AGENTS]
    plawbench_report()
    out = {
        "summaries": summaries,
        "md": Path("reports/plawbench.md").read_text(encoding="utf-8"),
        "csv": pd.read_csv("reports/plawbench.csv", keep_default_na=False, na_values=[""]),
    }  # agent "null"
    for a in AGENTS:
        out[a] = {
            "scores": pd.read_parquet(f"data/plawbench/runs/{a}/scores.parquet"),
            "judgements": pd.read_parquet(f"data/plawbench/runs/{a}/judgements.parquet"),
            "run": json.loads(Path(f"data/plawbench/runs/{a}/judge/run.json").read_text(encoding="utf-8")),
        }
    return out


@pytest.fixture(scope="module")
def both(tmp_path_factory, sources):
    tmp = tmp_path_factory.mktemp("penalty_mode")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp)
        shutil.copy(ROOT / "sources.yaml", tmp / "sources.yaml")
        for name in NAMES:
            write_parquet_atomic(
                to_arrow(sources[name], dict(interim_tables()[name].arrow_types)),
                Path("data/interim") / f"{name}.parquet",
            )
        write_params(tmp, "none")
        plawbench_rubrics()
        for a in AGENTS:
            plawbench_predict(a)
        yield judged("none", tmp), judged("paper", tmp)


def test_off_adds_nothing(both):
    off, _ = both
    for a in AGENTS:
        assert "paper_penalty" not in set(off[a]["scores"].dimension)
        assert not off[a]["judgements"].evidence.str.contains("paper_penalties").any()
        assert "t1_penalties" not in off[a]["run"] and "penalty_template" not in off[a]["run"]
    assert "Ours, opt-in" not in off["md"] and "paper-penalty" not in off["md"]
    assert not off["csv"]["table"].str.startswith("paper_penalty").any()
    assert "off by default" in off["md"] and "t1_penalties: paper" in off["md"]  # the deviation note says how
    assert not any("paper penalties" in s for s in off["summaries"])


def test_on_keeps_every_default_output_and_adds_the_penalised_ones(both):
    off, on = both
    for a in AGENTS:
        default = on[a]["scores"][on[a]["scores"].dimension != "paper_penalty"].reset_index(drop=True)
        pd.testing.assert_frame_equal(default, off[a]["scores"])
        keep = [c for c in off[a]["judgements"].columns if c not in ("judge_run", "evidence")]
        pd.testing.assert_frame_equal(on[a]["judgements"][keep], off[a]["judgements"][keep])
        for before, after in zip(off[a]["judgements"].evidence, on[a]["judgements"].evidence, strict=True):
            after = json.loads(after)
            after.pop("paper_penalties", None)
            assert after == json.loads(before)
        assert on[a]["run"]["t1_penalties"] == "paper" and on[a]["run"]["run_id"] != off[a]["run"]["run_id"]
        consult = on[a]["scores"].query("category == 'consultation'")
        assert (consult.dimension == "paper_penalty").sum() == (consult.dimension == "total").sum() > 0
    csv_on = on["csv"][~on["csv"]["table"].str.startswith("paper_penalty_optin")].reset_index(drop=True)
    pd.testing.assert_frame_equal(csv_on, off["csv"])
    assert "Ours, opt-in: T1 with the paper's Table 8 penalties" in on["md"]
    assert "T1 paper-penalty (ours, opt-in)" in on["md"] and "Overall paper-penalty (ours, opt-in)" in on["md"]
    assert all("T1 paper penalties" in s and "0 penalty judge failures" in s for s in on["summaries"])


def test_the_bounds_hold_with_penalties(both):
    _, on = both
    csv = on["csv"]
    opt = csv[csv["table"] == "paper_penalty_optin"].set_index(["agent", "scope", "metric"]).value
    main = csv[(csv["table"] == "table3") & (csv.source == "ours")].set_index(["agent", "metric"]).value
    assert opt[("oracle", "overall", "T1")] == pytest.approx(main[("oracle", "T1")])  # it asks no vague probe
    assert opt[("oracle", "overall", "T1")] >= 0.9
    assert opt[("oracle", "overall", "Overall")] == pytest.approx(main[("oracle", "Overall")])
    multi = csv[csv["table"] == "multiturn"].set_index(["agent", "metric"]).value  # 3 turns: a few questions
    assert opt[("oracle", "consultation_multiturn", "T1")] == pytest.approx(multi[("oracle", "T1")])
    assert opt[("null", "overall", "T1")] <= 0.05 and opt[("null", "overall", "Overall")] <= 0.05
    judge = csv[csv["table"] == "paper_penalty_optin_judge"].set_index(["agent", "scope", "metric"]).value
    assert judge[("oracle", "single", "penalised")] == 2 and judge[("oracle", "single", "penalty_judge_failed")] == 0
