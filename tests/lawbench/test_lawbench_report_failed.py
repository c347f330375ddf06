"""The LawBench report and its CSV twin carry the failed calls of each task (and nothing more when none failed)."""

from __future__ import annotations

import io

import pandas as pd

from steps.lawbench.metrics.tasks import TASK_IDS
from steps.lawbench.report import csv_text, render_setting
from steps.lawbench.stages import build_tables
from steps.reports.agents import AgentInfo, labelled_rows
from steps.reports.long import long_columns


def _scores(failed: dict[str, int]) -> pd.DataFrame:
    rows = [
        {
            "setting": "zero_shot",
            "agent": "local",
            "task": t,
            "score": None if failed.get(t) == 10 else 0.5,
            "abstention_rate": 0.0,
            "n": 10 - failed.get(t, 0),
            "n_failed": failed.get(t, 0),
            "proxy": False,
            "run_id": "r",
        }
        for t in TASK_IDS
    ]
    return pd.DataFrame(rows).astype({"score": float})


def _render(failed: dict[str, int]) -> tuple[str, pd.DataFrame]:
    scores = _scores(failed)
    published = pd.DataFrame(
        {"setting": ["zero_shot"], "model": ["GPT-4"], "task": ["1-1"], "score": [0.4], "abstention_rate": [0.0]}
    )
    long, deltas = build_tables(scores, published)
    info = AgentInfo("local", "hosted_vllm/m", False)
    return render_setting(long, deltas, "zero_shot", {"local": info}, "c0ffee", ["GPT-4"]), long


def test_the_csv_counts_failed_calls_per_task_level_and_overall():
    report, long = _render({"1-1": 3, "3-2": 10})
    local = AgentInfo("local", "hosted_vllm/m", False, limit=10)
    text = csv_text(labelled_rows(long, {"local": local}))
    csv = pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])
    assert list(csv.columns) == long_columns(with_limit=True)  # no judge: no n_unparsable
    assert (csv[csv.agent == "local"]["limit"] == 10).all()
    assert csv[csv.agent == "GPT-4"]["limit"].isna().all()  # rescored published predictions: no run of ours
    score = csv[(csv.metric == "score") & (csv.source == "ours")].set_index("scope").n_failed
    assert score["1-1"] == 3 and score["3-2"] == 10 and score["1-2"] == 0
    assert score["Memorization"] == 3 and score["Application"] == 10 and score["overall"] == 13
    assert csv[csv.source == "paper"].n_failed.isna().all()  # the paper's rows: not our calls
    assert "| 50 (3 failed) |" in report and "| — (10 failed) |" in report
    assert "13 calls failed after retries" in report and "content_filter" in report


def test_without_failures_no_mark_and_no_failure_note():
    report, long = _render({})
    assert "failed)" not in report and "content_filter" not in report and "no failed calls" in report
    assert (long[long.source == "ours"].n_failed == 0).all()
