"""`jurisflow results`: the leaderboard read from the committed reports' CSV twins, with the papers' rows."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pandas as pd

from flows.results import headline_rows
from steps.reports.paper_tables import load_paper_table
from steps.results import cell, labelled, leaderboard

ROOT = Path(__file__).resolve().parents[2]
JURISFLOW = Path(sys.executable).parent / "jurisflow"


def _twin(name: str) -> pd.DataFrame:
    return pd.read_csv(ROOT / "reports" / f"{name}.csv", keep_default_na=False, na_values=[""])


def _one(df: pd.DataFrame, **where: str) -> pd.Series:
    for column, value in where.items():
        df = df[df[column] == value]
    assert len(df) == 1, where
    return df.iloc[0]


def _results(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(JURISFLOW), "results", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def _rows(stdout: str) -> dict[str, dict[str, str]]:
    return {r["agent"]: r for r in csv.DictReader(io.StringIO(stdout))}


def test_the_leaderboard_holds_the_committed_numbers_and_the_papers_rows():
    done = _results("--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = _rows(done.stdout)
    ucl = _one(_twin("ucl"), table="win_rate", metric="win_rate", scope="overall", agent="oracle", source="ours")
    # ± half the twin's 95 % interval (LawBench's on its 0-1 scale, shown ×100)
    interval = f" ± {(ucl.ci_high - ucl.ci_low) / 2:.1f}"
    assert rows["oracle [scripted]"]["UCL win rate"] == f"{ucl.value:.1f}{interval} (n {int(ucl.n):,})"
    assert rows["oracle [scripted]"]["source"] == "ours"  # the oracle is a scripted stand-in: its label says so
    law = _one(_twin("lawbench"), table="zero_shot", metric="score", scope="overall", agent="null", source="ours")
    law_interval = f" ± {100 * (law.ci_high - law.ci_low) / 2:.1f}"
    assert rows["null [scripted]"]["LawBench 0-shot"] == f"{100 * law.value:.1f}{law_interval} (n {int(law.n):,})"
    j1 = _one(_twin("j1"), table="table3", metric="AVG_OO", scope="overall", agent="GPT-4o", source="paper")
    assert rows["GPT-4o (paper)"]["J1 AVG (OO)"].startswith(f"{j1.value:.1f}")
    assert rows["GPT-4o (paper)"]["source"] == "paper"
    # UCL-Bench's paper rows come from the paper's Table 3 (its AVG), as the UCL report quotes them
    paper_ucl = load_paper_table(ROOT / "steps" / "ucl" / "paper_tables" / "table3.csv").frame.set_index("model")
    assert rows["GPT-4 (paper)"]["UCL win rate"] == f"{paper_ucl.loc['GPT-4', 'AVG']:.1f}"
    plaw = _one(_twin("plawbench"), table="table3", metric="Overall", agent="Kimi-K2", source="paper")
    assert rows["Kimi-K2 (paper)"]["PLawBench"] == f"{100 * plaw.value:.1f}"
    # LawBench's paper rows are the 51 models of its appendix tables (Overall as printed), not results.csv's rows
    lawbench = [r for r in rows.values() if r["source"] == "paper" and r["LawBench 0-shot"]]
    assert len(lawbench) == len([r for r in rows.values() if r["source"] == "paper" and r["LawBench 1-shot"]]) == 51
    assert rows["GPT-4 (paper)"]["LawBench 0-shot"] == f"{100 * (52.35 / 100):.1f}"  # Table 27's Overall of GPT-4
    assert "GPT4 (paper)" not in rows  # results.csv's name for it
    # ours first, then the papers'
    sources = [r["source"] for r in rows.values()]
    assert sources.index("paper") == sum(s != "paper" for s in sources)
    assert "2 agents of ours" in done.stderr


def test_j1s_instance_provenance_is_listed_under_the_leaderboard():
    """The short form of reports/j1.md's provenance paragraph, under the table (not in CSV, which is data only)."""
    from steps.j1.page import results_note

    done = _results("-b", "j1", "--format", "md")
    assert done.returncode == 0, done.stderr
    note = results_note((ROOT / "reports" / "j1.md").read_text(encoding="utf-8"))
    assert note is not None and note.startswith("instances rebuilt from public judgments")
    assert f"  j1: {note}" in done.stdout.splitlines()
    assert "instances rebuilt" not in _results("-b", "j1", "--format", "csv").stdout
    assert "instances rebuilt" not in _results("-b", "ucl", "--format", "md").stdout  # only J1 has a brief


def test_one_benchmark_as_markdown_and_without_the_paper():
    done = _results("--benchmark", "ucl", "--format", "md")
    assert done.returncode == 0, done.stderr
    header = done.stdout.splitlines()[0]
    assert header == "| agent | source | UCL win rate |"
    assert "| GPT-4 (paper) | paper |" in done.stdout
    alone = _results("-b", "mile", "--no-paper", "--format", "csv")
    assert alone.returncode == 0, alone.stderr
    assert set(_rows(alone.stdout)) == {"null [scripted]", "oracle [scripted]"}


def test_an_unknown_benchmark_or_missing_reports_is_one_line():
    done = _results("--benchmark", "lawbenchx")
    assert done.returncode == 1 and "unknown benchmark lawbenchx; known: lawbench, j1" in done.stderr
    missing = _results("--reports", "no-such-folder")
    assert missing.returncode == 1 and "no benchmark CSV under no-such-folder/" in missing.stderr
    assert "Traceback" not in done.stderr + missing.stderr


def test_cells_and_order_by_hand():
    long = pd.DataFrame(
        [  # benchmark, column, position, table, agent, source, proxy, value, n, n_failed, judge
            ("ucl", "UCL win rate", 7, "win_rate", "zeta", "ours", False, 61.25, 40, 3, "gpt-4o"),
            ("ucl", "UCL win rate", 7, "win_rate", "alpha", "ours", True, 50.0, 40, 0, "scripted/judge"),
            ("ucl", "UCL win rate", 7, "win_rate", "P1", "paper", False, 40.0, None, None, "gpt-4"),
            ("ucl", "UCL win rate", 7, "win_rate", "P2", "paper", False, 70.0, None, None, "gpt-4"),
            ("j1", "J1 AVG (OO)", 3, "table3", "P3", "paper", False, 10.0, 508, None, "gpt-4o"),
            ("j1", "J1 AVG (OO)", 3, "table3", "zeta", "ours", False, None, 12, 0, "gpt-4o"),
        ],
        columns=[
            "benchmark", "column", "position", "table", "agent", "source", "proxy", "value", "n", "n_failed", "judge"
        ],
    )  # fmt: skip
    twins = long[long.source == "ours"][["benchmark", "table", "agent", "proxy", "source"]].assign(limit=None)
    table = leaderboard(labelled(long, twins))
    assert list(table.columns) == ["agent", "source", "J1 AVG (OO)", "UCL win rate"]
    assert list(table.agent) == ["alpha [scripted]", "zeta", "P3 (paper)", "P2 (paper)", "P1 (paper)"]
    zeta = table.set_index("agent").loc["zeta"]
    assert zeta["UCL win rate"] == "61.2 (n 40, 3 failed)" and zeta["J1 AVG (OO)"] == "— (n 12)"
    assert set(table.source) == {"ours", "paper"}
    assert list(leaderboard(labelled(long, twins), ("ucl",), paper=False).agent) == ["alpha [scripted]", "zeta"]
    assert cell(None) == "—" and cell(62.25) == "62.2"


def test_a_number_is_labelled_scripted_only_where_a_stand_in_touched_it():
    """A real agent is a measurement on rule-scored LawBench even when the judge is scripted; its UCL number, which
    the scripted judge made, is labelled so; its limited run says so in every column (issue 37)."""
    long = pd.DataFrame(
        [  # benchmark, column, position, table, agent, source, proxy, value, n, n_failed, judge
            ("lawbench", "LawBench 0-shot", 1, "zero_shot", "real", "ours", False, 41.0, 40, 0, ""),
            ("ucl", "UCL win rate", 7, "win_rate", "real", "ours", True, 55.0, 20, 0, "scripted/judge"),
            ("ucl", "UCL win rate", 7, "win_rate", "oracle", "ours", True, 99.0, 20, 0, "scripted/judge"),
        ],
        columns=[
            "benchmark", "column", "position", "table", "agent", "source", "proxy", "value", "n", "n_failed", "judge"
        ],
    )  # fmt: skip
    twins = pd.DataFrame(  # the twins' rows: the proxy of every number in the headline's table counts
        [
            ("lawbench", "zero_shot", "real", False, 2, "ours"),
            ("lawbench", "one_shot", "real", False, 2, "ours"),
            ("ucl", "win_rate", "real", False, 2, "ours"),  # a number of the table the judge did not touch
            ("ucl", "win_rate", "real", True, 2, "ours"),
            ("ucl", "win_rate", "oracle", True, None, "ours"),
        ],
        columns=["benchmark", "table", "agent", "proxy", "limit", "source"],
    )
    table = leaderboard(labelled(long, twins)).set_index("agent")
    assert list(table.index) == ["oracle [scripted]", "real [limit 2]", "real [scripted] [limit 2]"]
    assert table.loc["real [limit 2]", "LawBench 0-shot"] == "41.0 (n 40)"
    assert table.loc["real [limit 2]", "UCL win rate"] == ""
    assert table.loc["real [scripted] [limit 2]", "UCL win rate"] == "55.0 (n 20)"


def test_a_twin_written_before_the_limit_column_still_reads(tmp_path):
    twin = _twin("mile")
    twin.drop(columns=[c for c in ("limit",) if c in twin]).to_csv(tmp_path / "mile.csv", index=False)
    rows = headline_rows(tmp_path)
    assert set(rows[rows.source == "ours"].label) == {"null [scripted]", "oracle [scripted]"}
    twin.assign(limit=[3 if s == "ours" else None for s in twin.source]).astype({"limit": "Int64"}).to_csv(
        tmp_path / "mile.csv", index=False
    )
    assert set(headline_rows(tmp_path).query("source == 'ours'").label) == {
        "null [scripted] [limit 3]",
        "oracle [scripted] [limit 3]",
    }


def test_intervals_show_as_half_widths_where_a_twin_has_them(tmp_path):
    assert cell(71.24, 40, 0, 68.1, 74.3) == "71.2 ± 3.1 (n 40)"
    assert cell(71.24, 40, 2, None, None) == "71.2 (n 40, 2 failed)"
    twin = _twin("mile")
    ours = (twin.source == "ours") & (twin["table"] == "goal") & (twin.metric == "AVE")
    twin = twin.assign(
        se=[1.0 if o else None for o in ours],
        ci_low=twin.value.where(ours) - 2.0,
        ci_high=twin.value.where(ours) + 2.0,
        ci_method=["cluster-bootstrap(B=2000)" if o else None for o in ours],
    )
    twin.to_csv(tmp_path / "mile.csv", index=False)
    rows = headline_rows(tmp_path)
    goal = rows[(rows.source == "ours") & (rows["column"] == "MILE goal")]
    assert len(goal) == 2 and ((goal.ci_high - goal.ci_low - 4.0).abs() < 1e-9).all()
    table = leaderboard(rows, ("mile",), paper=False).set_index("source")
    assert all(" ± 2.0 (n " in c for c in table["MILE goal"])
    assert not any("±" in c for c in table["MILE interaction"])
