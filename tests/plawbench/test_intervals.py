"""PLawBench's item scores: pooled rates by points, clustered on the case, and the Overall aggregate."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from steps.plawbench.intervals import case_of, item_scores_of
from steps.stats.cells import cell_intervals


def _tasks() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item_id": ["pca/0", "pca/1", "pca/2", "plc/1", "plc/2", "plaintiff/1", "defendant/1"],
            "category": ["case_analysis"] * 3 + ["consultation"] * 2 + ["drafting"] * 2,
            "context": ["case A", "case A", "case B", "", "", "", ""],
            "seq_class": ["nonsequential", "sequential", "nonsequential", None, None, None, None],
        }
    )


def _scores() -> pd.DataFrame:
    rows = [  # item, category, scenario, awarded, max
        ("pca/0", "case_analysis", "个人生活", 3.0, 4.0),
        ("pca/1", "case_analysis", "个人生活", 1.0, 2.0),
        ("pca/2", "case_analysis", "公司治理", 2.0, 6.0),
        ("plc/1", "consultation", "consultation", 5.0, 10.0),
        ("plc/2", "consultation", "consultation", 10.0, 10.0),
        ("plaintiff/1", "drafting", "plaintiff", 8.0, 10.0),
        ("defendant/1", "drafting", "defendant", 4.0, 10.0),
    ]
    frame = pd.DataFrame(rows, columns=["item_id", "category", "scenario", "awarded", "max_points"])
    return frame.assign(agent="a", variant="single", dimension="total", failure=None)


def test_cases_cluster_shared_contexts_and_both_sides_of_a_draft() -> None:
    case = case_of(_tasks())
    assert case["pca/0"] == case["pca/1"] != case["pca/2"]
    assert case["plaintiff/1"] == case["defendant/1"] == "draft/1"
    assert case["plc/1"] == "plc/1"


def test_pooled_rates_and_overall_by_hand() -> None:
    cells = cell_intervals(item_scores_of(_scores(), _tasks()), b=300).set_index(["table", "scope", "metric"])
    t2 = cells.loc[("table3", "overall", "T2")]
    # Σ awarded / Σ max = 6 / 12; two cases: A (3+1 − 0.5·6 = 1), B (2 − 0.5·6 = −1) → SE = √2 / 12 · √2
    assert t2.estimate == pytest.approx(0.5) and t2.clusters == 2
    assert t2.se == pytest.approx(math.sqrt(2) / 12 * math.sqrt(2))
    t1 = cells.loc[("table3", "overall", "T1")].estimate
    assert t1 == pytest.approx(15 / 20)
    overall = cells.loc[("table3", "overall", "Overall")]
    assert overall.estimate == pytest.approx(0.2 * 0.75 + 0.5 * 0.5 + 0.3 * (0.4 + 0.8) / 2)
    assert overall.ci_method == "cluster-bootstrap(B=300)" and overall.clusters == 5
    macro = cells.loc[("macro", "overall", "T2")]
    assert macro.estimate == pytest.approx((0.75 + 0.5 + 2 / 6) / 3)  # the responses' rates, unweighted
    assert cells.loc[("scenarios", "个人生活", "T2")].estimate == pytest.approx(4 / 6)
