"""UCL-Bench's judge stage with a panel of two judges that disagree by construction (`scripted/judge_contrary`
swaps [[1]] and [[2]]): each member's verdicts kept, their majority the verdict (a 1–1 split is a tie), the report
and the judge audit's agreement built on them; one judge writes the same verdicts and run id as before."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from flows.kit.context import FlowContext
from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import ucl_judge, ucl_reference, ucl_report, ucl_simulate
from steps.params import Params
from steps.reports.judges import judges_report
from steps.tables import read_table, write_table
from steps.ucl.schemas import UclHintScoresPanel, UclVerdicts, UclVerdictsPanel
from steps.ucl.sources import Ucl

pytestmark = pytest.mark.slow  # runs stages end to end

A, B = "scripted/judge", "scripted/judge_contrary"
TASKS = ["Charge Prediction", "Legal Issue Consultation"]


def _params(root, judge: object) -> dict:
    doc = {
        "agents": {"oracle": {"model": "scripted/oracle"}},
        "environment": {"model": "scripted/persona"},
        "judge": {"model": "scripted/judge"},
        "llm": {"cache_dir": str(root / "cache")},
        "ucl": {"limit": 1, "tasks": TASKS, **({"judge": judge} if judge is not None else {})},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    return doc


def test_a_panel_of_two_disagreeing_judges(tmp_path, ucl_items):
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    write_table(ucl_items, paths.interim / "ucl.parquet", Ucl, table="ucl")
    args = {"params_file": tmp_path / "params.yaml", "paths": paths}
    _params(tmp_path, None)
    assert run_stage("ucl_reference", ucl_reference, **args) == 0
    assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", **args) == 0
    assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", **args) == 0
    run = paths.run("ucl", "oracle")
    single = (run / "verdicts.parquet").read_bytes(), json.loads((run / "judge/run.json").read_text())["run_id"]
    assert read_table(run / "verdicts_panel.parquet", UclVerdictsPanel).empty

    doc = _params(tmp_path, [A, B])
    assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", **args) == 0
    members = read_table(run / "verdicts_panel.parquet", UclVerdictsPanel)
    verdicts = read_table(run / "verdicts.parquet", UclVerdicts)
    a, b = (members[members.judge == j].set_index(["item_id", "order"]) for j in (A, B))
    assert len(a) == len(b) == len(verdicts) == 4  # 2 items × 2 orders
    assert (a.value == 1.0).all() and (b.value == 0.0).all()  # the oracle wins; the contrary judge says it loses
    assert set(verdicts.judge) == {f"panel(majority): {A} + {B}"}
    assert (verdicts.value == 0.5).all() and (verdicts.outcome == "tie").all() and (verdicts.verdict == 3).all()
    hints = read_table(run / "hint_scores_panel.parquet", UclHintScoresPanel)
    assert sorted(hints.judge.unique()) == [A, B]
    assert json.loads((run / "judge/run.json").read_text())["panel"] == {
        "judges": [A, B],
        "aggregate": ["majority", "mean"],
    }
    assert run_stage("ucl_report", ucl_report, **args) == 0

    judges_report(FlowContext(Params.model_validate(doc), paths))
    agreement = pd.read_csv(paths.reports / "judges_panels.csv")
    row = agreement[(agreement.table == "verdicts")].iloc[0]
    assert (row.raters, row.level, row.units, row.kappa_weights) == (f"{A} vs {B}", "nominal", 4, "none")
    # every unit (1, 0): observed and chance disagreement are both 1, κ = 0; α (nominal, n = 8 values, 4 of each):
    # D_o = 1, D_e = 2·4·4/(8·7) = 4/7, α = 1 − 7/4
    assert row.kappa == pytest.approx(0.0) and row.alpha == pytest.approx(-0.75)
    assert pd.isna(row.spearman)  # each judge gave one value: ρ is undefined

    _params(tmp_path, None)
    assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", **args) == 0
    again = (run / "verdicts.parquet").read_bytes(), json.loads((run / "judge/run.json").read_text())["run_id"]
    assert again == single
