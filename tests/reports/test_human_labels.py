"""Human labels (steps/reports/human_labels.py) and panel aggregation (steps/judges/panel.py) on hand-made tables:
UCL-Bench's agreement with and without ties, PLawBench's correlation per task, the label file's checks, and how a
panel's members are aggregated."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from scipy.stats import pearsonr, spearmanr

from steps.judges.panel import aggregate, aggregate_values
from steps.plawbench.human import STUDY as PLAW
from steps.reports.human_labels import HUMAN_HUMAN, compare, read_labels
from steps.ucl.human import STUDY as UCL


def _judged(rows: list[tuple], columns: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=columns)
    return frame.assign(agent="oracle", failure=None, judge_prompt_version="v@1")


def _labels(benchmark: str, ratings: dict[str, tuple]) -> pd.DataFrame:
    rows = [
        (benchmark, item, "oracle", f"r{i}", float(s)) for item, scores in ratings.items() for i, s in enumerate(scores)
    ]
    return pd.DataFrame(rows, columns=["benchmark", "item", "agent", "rater", "score"])


def test_ucl_agreement_with_and_without_ties_and_between_raters():
    # the judge: a win in both orders (A, B), a loss (C), a split, i.e. a tie (D); the contrary judge: the reverse
    orders = ("candidate_first", "reference_first")
    rows = [
        (judge, item, order, x)
        for judge, values in (("j", {"A": 1, "B": 1, "C": 0, "D": (1, 0)}), ("k", {"A": 0, "B": 0, "C": 1, "D": 0.5}))
        for item, v in values.items()
        for order, x in zip(orders, v if isinstance(v, tuple) else (v, v), strict=True)
    ]
    judged = _judged(rows, ["judge", "item_id", "order", "value"])
    # humans: A win (2 of 3), B loss (2 of 3), C win/loss/tie (no majority: a tie), D tie (2 of 3)
    labels = _labels("ucl", {"A": (1, 1, 0), "B": (0, 0, 1), "C": (1, 0, 0.5), "D": (0.5, 0.5, 1)})
    got = {(r["judge"], r["statistic"]): (r["items"], r["value"]) for r in compare("ucl", UCL, judged, labels)}
    # j: A win=win ✓, B win≠loss, C loss≠tie, D tie=tie ✓ → 2/4; untied (neither side a tie): A ✓, B ✗ → 1/2
    assert got[("j", "agreement with ties %")] == (4, 50.0)
    assert got[("j", "agreement without ties %")] == (2, 50.0)
    # k: A loss≠win, B loss=loss ✓, C win≠tie, D tie=tie ✓ → 2/4; untied: A ✗, B ✓ → 1/2
    assert got[("k", "agreement with ties %")] == (4, 50.0)
    # raters, 3 pairs per item: A (w,w)(w,l)(w,l) 1 equal; B 1; C (w,l)(w,t)(l,t) 0; D (t,t)(t,w)(t,w) 1 → 3/12;
    # untied pairs: A 3 (1 equal), B 3 (1 equal), C 1 (w,l: 0), D 0 → 2/7
    assert got[(HUMAN_HUMAN, "agreement with ties %")] == (12, 25.0)
    assert got[(HUMAN_HUMAN, "agreement without ties %")] == (7, pytest.approx(100 * 2 / 7, abs=1e-4))


def test_plawbench_correlation_per_task_against_the_human_mean():
    judged = _judged(
        [
            ("j", "pca/1", "case_analysis", "single", 0.2),
            ("j", "pca/2", "case_analysis", "single", 0.5),
            ("j", "pca/3", "case_analysis", "single", 0.9),
            ("j", "plc/1", "consultation", "single", 0.4),
            ("j", "plc/2", "consultation", "single", 0.6),
            ("j", "plc/3", "consultation", "single", 0.8),
            ("j", "plc/3", "consultation", "multiturn", 0.0),  # ours, not the paper's: left out
        ],
        ["judge", "item_id", "category", "variant", "value"],
    )
    labels = _labels(
        "plawbench",
        {"pca/1": (10, 30), "pca/2": (60, 60), "pca/3": (70, 90), "plc/1": (90,), "plc/2": (50,), "plc/3": (70,)},
    )
    got = {(r["task"], r["statistic"]): (r["items"], r["value"]) for r in compare("plawbench", PLAW, judged, labels)}
    # analysis: human means .2 .6 .8 against .2 .5 .9; consultation: .9 .5 .7 against .4 .6 .8
    r = (0.2 * 0.2 + 0.6 * 0.5 + 0.8 * 0.9 - 3 * (1.6 / 3) * (1.6 / 3)) / (
        (0.04 + 0.36 + 0.64 - 3 * (1.6 / 3) ** 2) ** 0.5 * (0.04 + 0.25 + 0.81 - 3 * (1.6 / 3) ** 2) ** 0.5
    )
    assert got[("analysis", "Pearson")] == (3, pytest.approx(r, abs=1e-4))
    assert got[("analysis", "Pearson")][1] == pytest.approx(
        pearsonr([0.2, 0.6, 0.8], [0.2, 0.5, 0.9]).statistic, abs=1e-4
    )
    assert got[("analysis", "Spearman")] == (3, 1.0)  # the same order
    assert got[("consultation", "Spearman")] == (3, pytest.approx(-0.5))  # ranks 3 1 2 against 1 2 3
    assert spearmanr([0.9, 0.5, 0.7], [0.4, 0.6, 0.8]).statistic == pytest.approx(-0.5)


def test_a_label_file_is_checked(tmp_path):
    head = "benchmark,item,agent,rater,score\n"
    (tmp_path / "a.csv").write_text(head + "j1,KQ/1,oracle,r1,7\nucl,X/1,oracle,r1,1\n", encoding="utf-8")
    labels = read_labels(tmp_path, ["j1", "ucl"])
    assert labels.score.tolist() == [7.0, 1.0] and labels.file.unique().tolist() == ["a.csv"]
    assert read_labels(tmp_path / "none", ["j1"]).empty  # no folder: no labels
    cases = {
        "benchmark,item,agent,score\nj1,KQ/1,oracle,7\n": "missing column(s) rater",
        head + "j1,KQ/1,oracle,r1,seven\n": "line 2: score 'seven' is not a number",
        head + "mile,m/1,oracle,r1,3\n": "unknown benchmark(s) mile",
        head + "j1,KQ/1,oracle,r1,7\n": "rater r1 rates j1 item KQ/1 of oracle more than once (a.csv, b.csv)",
    }
    for text, error in cases.items():
        (tmp_path / "b.csv").write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=re.escape(error)):
            read_labels(tmp_path, ["j1", "ucl"])


def test_majority_and_mean_of_a_panels_members():
    assert aggregate_values([1.0, 1.0, 0.0], "majority") == 1.0
    assert aggregate_values([1.0, 0.0], "majority") == 0.5  # a split: the median, a tie for a verdict
    assert aggregate_values([0.2, 0.4, 0.9], "majority") == 0.4  # every value once: the median
    assert aggregate_values([0.2, 0.4, 0.9], "mean") == pytest.approx(0.5)
    assert aggregate_values([], "mean") is None
    members = pd.DataFrame(
        {
            "item_id": ["A", "B", "C", "R", "A", "B", "C", "R"],
            "judge": ["x", "x", "x", "rule", "y", "y", "y", "rule"],
            "judge_proxy": [False] * 8,
            "value": [1.0, None, None, 0.3, 0.0, 0.5, None, 0.3],
            "failure": [None, "unparsable", "unparsable", None, None, None, "call_failed", None],
            "error": ["", "bad", "bad", "", "", "", "down", ""],
            "attempts": [1, 2, 2, 0, 1, 1, 0, 0],
            "raw": ["x:A", "x:B", "x:C", "", "y:A", "y:B", "y:C", ""],
        }
    )
    out = aggregate(members, ["item_id"], "mean").set_index("item_id")
    assert out.loc["A", ["value", "raw", "attempts"]].tolist() == [0.5, "x:A", 2]  # the nearest member's reason
    assert out.loc["B", ["value", "raw", "attempts"]].tolist() == [0.5, "y:B", 3] and pd.isna(out.loc["B", "failure"])
    assert out.loc["C", ["failure", "error"]].tolist() == ["unparsable", "bad"]  # nobody: the first's failure
    assert out.loc["R", ["judge", "value"]].tolist() == ["rule", 0.3]  # a rule value kept as it is
    assert set(out.judge.drop("R")) == {"panel(mean): x + y"}
    with pytest.raises(ValueError, match="not a key"):
        aggregate(pd.concat([members, members.iloc[:1]]), ["item_id"], "mean")


def test_the_ranking_of_agents_under_each_judge_and_the_panel():
    from steps.reports.judge_panels import ranking_rows

    def rows(judge: str, values: dict[str, float]) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "agent": list(values),
                "item_id": "A",
                "judge": judge,
                "judge_prompt_version": "v@1",
                "value": list(values.values()),
                "failure": None,
            }
        )

    members = pd.concat([rows("x", {"p": 0.9, "q": 0.5, "r": 0.1}), rows("y", {"p": 0.2, "q": 0.6, "r": 0.4})])
    panel = rows("panel(mean): x + y", {"p": 0.55, "q": 0.55, "r": 0.25})
    got = {(r["judge"], r["agent"]): (r["rank"], r["rank_change"]) for r in ranking_rows({}, members, panel)}
    # the panel ranks p and q first together (0.55), r third; x: p 1, q 2, r 3; y: q 1, r 2, p 3
    assert got[("panel(mean): x + y", "p")] == (1, 0) and got[("panel(mean): x + y", "r")] == (3, 0)
    assert [got[("x", a)] for a in "pqr"] == [(1, 0), (2, 1), (3, 0)]
    assert [got[("y", a)] for a in "pqr"] == [(3, 2), (1, 0), (2, -1)]
