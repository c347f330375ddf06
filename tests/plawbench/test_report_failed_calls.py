"""reports/plawbench.md and .csv from small tables through the report's own SQL: failed model calls are shown as
`(n failed)` beside every rate they leave out and counted in the CSV's n_failed; without them nothing is marked."""

from __future__ import annotations

import pandas as pd

from steps.plawbench import paper
from steps.plawbench.report import ReportInputs, render_report
from steps.plawbench.schemas import PlawItemScores, PlawJudgements, PlawRubricItems
from steps.plawbench.stages import build_tables
from steps.reports.agents import AgentInfo, RunInfo
from steps.reports.long import long_columns

TASKS = [
    ("plc/1", "consultation", "consultation"),
    ("plc/2", "consultation", "consultation"),
    ("pca/1", "case_analysis", "个人生活"),
    ("plaintiff/1", "drafting", "plaintiff"),
    ("defendant/1", "drafting", "defendant"),
]


def _empty(schema) -> pd.DataFrame:
    columns = schema.to_schema().columns
    return pd.DataFrame({name: pd.Series(dtype=str(col.dtype)) for name, col in columns.items()})


def _frames(failure: str | None) -> dict[str, pd.DataFrame]:
    """Agent `a`: every response scored half its points, except plc/2 whose row carries `failure`."""
    scores = []
    for item_id, category, scenario in TASKS:
        failed = failure if item_id == "plc/2" else None
        dims = ["total", "conclusion", "facts", "reasoning", "statute"] if category == "case_analysis" else ["total"]
        for dim in dims:
            scores.append(
                {
                    "agent": "a",
                    "item_id": item_id,
                    "category": category,
                    "scenario": scenario,
                    "variant": "single",
                    "dimension": dim,
                    "awarded": None if failed else 5.0,
                    "max_points": 10.0,
                    "failure": failed,
                }
            )
    tasks = pd.DataFrame(
        [
            {
                "item_id": i,
                "category": c,
                "scenario": s,
                "context": "",
                "query": "q",
                "max_points": 10.0,
                "n_units": 1,
                "n_rows": 1,
                "seq_class": "",
                "level": "",
                "document": "",
            }
            for i, c, s in TASKS
        ]
    )
    return {
        "scores": pd.DataFrame(scores),
        "judgements": _empty(PlawJudgements),
        "item_scores": _empty(PlawItemScores),
        "tasks": tasks,
        "rubric_items": _empty(PlawRubricItems),
        "error_types": paper.error_types(),
        "paper3": paper.table3_long(),
        "paper2": paper.table2(),
        "paper4": paper.table4().melt(id_vars="judge", var_name="metric", value_name="value"),
        "agents": pd.DataFrame([{"agent": "a", "model": "m/a", "scripted": False}]),
        "judge_info": pd.DataFrame([{"judge": "m/judge", "proxy": False}]),
    }


def _report(failure: str | None) -> tuple[str, pd.DataFrame]:
    tables = build_tables(_frames(failure))
    inputs = ReportInputs(
        agents={"a": AgentInfo("a", "m/a", False, run_id="r")},
        run=RunInfo("m/env", False, "m/judge", False, {"limit": None, "t1_penalties": "none"}),
        data_commit="0" * 40,
        n_tasks=5,
        parse_issues=0,
        issue_tasks=0,
    )
    return render_report(tables, inputs), tables["long"]


def test_a_failed_call_is_shown_beside_t1_and_overall_and_counted_in_the_csv():
    text, long = _report("agent_call_failed")
    ours = long[(long["table"] == "table3") & (long.source == "ours")].set_index("metric").n_failed
    assert ours["T1"] == 1 and ours["T2"] == 0 and ours["T3"] == 0 and ours["Overall"] == 1
    row = next(line for line in text.splitlines() if line.startswith("| a (m/a)"))
    assert row.startswith("| a (m/a) | 50 (1 failed) | 50 (1 failed) | 50 | 50 |")  # Overall, T1 PLC, T2 parts
    assert "Failed model calls (after retries, accepted under `llm.max_failed_fraction`): 1 responses" in text
    assert "`content_filter`" in text
    macro = next(
        line
        for line in text.splitlines()[
            text.splitlines().index(
                "## Ours: macro means (mean of per-response rates, for comparison with the pooled rates)"
            ) :
        ]
        if line.startswith("| a |")
    )
    assert "| 50 (1 failed) |" in macro
    assert long[long.source == "paper"].n_failed.isna().all()


def test_an_unparsable_judge_answer_is_excluded_but_not_a_failed_call():
    text, long = _report("unparsable")
    assert (long[(long["table"] == "table3") & (long.source == "ours")].n_failed == 0).all()
    assert "failed)" not in text and "Failed model calls" not in text


def test_without_failures_nothing_is_marked():
    text, long = _report(None)
    assert "failed)" not in text and "Failed model calls" not in text and "content_filter" not in text
    assert (long[(long["table"] == "table3") & (long.source == "ours")].n_failed == 0).all()
    assert list(long.columns) == long_columns(with_unparsable=True)  # `limit`: labelled_rows adds it
