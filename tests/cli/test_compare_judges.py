"""`jurisflow compare --judge A --judge B`: two judges of the same transcripts, cell by cell, with the share of
items they scored alike (hand-computed on a small PLawBench run judged twice)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from flows.cli import app
from flows.compare import judge_comparison


def _project(root, awarded, run_id="transcripts-1"):
    """A judged project folder: PLawBench's tasks, one agent's transcript run record and its judged scores."""
    data = root / "data" / "plawbench"
    run = data / "runs" / "m"
    run.mkdir(parents=True)
    ids = [f"plc/{n}" for n in range(1, len(awarded) + 1)]
    pd.DataFrame(
        {"item_id": ids, "category": "consultation", "context": "", "seq_class": "", "scenario": "consultation"}
    ).to_parquet(data / "tasks.parquet")
    (run / "run.json").write_text(json.dumps({"run_id": run_id}), encoding="utf-8")
    pd.DataFrame(
        {
            "agent": "m",
            "item_id": ids,
            "category": "consultation",
            "scenario": "consultation",
            "variant": "single",
            "dimension": "total",
            "awarded": [float(a) for a in awarded],
            "max_points": 10.0,
            "failure": None,
        }
    ).to_parquet(run / "scores.parquet")
    return root


def test_two_judges_of_the_same_transcripts_by_hand(tmp_path):
    a = _project(tmp_path / "a", [5] * 8)
    b = _project(tmp_path / "b", [5, 5, 5, 5, 3, 3, 3, 3])
    rows, notes = judge_comparison(a, b, benchmark="plawbench")
    assert notes == [] and set(rows.agent) == {"m"}
    t1 = rows[(rows["table"] == "table3") & (rows.metric == "T1")].iloc[0]
    # pooled by points: A 40/80 = 0.5, B 32/80 = 0.4; four of eight items scored alike
    assert (t1.a, t1.b, t1.delta, t1.n) == (pytest.approx(0.5), pytest.approx(0.4), pytest.approx(0.1), 8)
    assert t1.agree == pytest.approx(0.5)
    assert 0 <= t1.p <= 1


def test_different_transcripts_are_left_out_with_a_note(tmp_path):
    a = _project(tmp_path / "a", [5] * 4)
    b = _project(tmp_path / "b", [5] * 4, run_id="transcripts-2")
    with pytest.raises(ValueError, match="different transcripts"):
        judge_comparison(a, b, benchmark="plawbench")


def test_the_command_line(tmp_path):
    a = _project(tmp_path / "a", [5] * 8)
    b = _project(tmp_path / "b", [5, 5, 5, 5, 3, 3, 3, 3])
    out = CliRunner().invoke(
        app, ["compare", "--judge", str(a), "--judge", str(b), "-b", "plawbench", "--format", "md"]
    )
    assert out.exit_code == 0, out.output
    row = next(line for line in out.output.splitlines() if "table3 · overall · T1 " in line)
    assert "| m |" in row and "| 0.50 | 0.40 | 0.10 |" in row and row.rstrip().endswith("| 50.0 |")
    one = CliRunner().invoke(app, ["compare", "--judge", str(a)])
    assert one.exit_code == 1 and "--judge takes two folders" in one.output
    none = CliRunner().invoke(app, ["compare", "x"])
    assert none.exit_code == 1 and "name two agents" in none.output
