"""The paper's appendix tables 24–31 as data (steps/lawbench/paper_tables/): every cell of all 51 models is the number
the paper prints (compared with the paper's text in ../shared/seeds/), each per-task cell is round(100 × score, 2)
of LawBench's results.csv where the mirror holds the model's rows, and the report shows every model, ours ranked
among them."""

from __future__ import annotations

import pandas as pd
import pytest

from steps.lawbench.paper import PAPER_TABLES, paper_rows, paper_table_markdown
from steps.reports.agents import AgentInfo
from tests.reports.test_paper_tables import SEEDS, printed_rows

PAPER = "001_da7981daca3e86da.txt"
# setting -> the appendix tables that make it up, and the columns each prints after the model's name
TABLES = {
    "zero_shot": (24, 25, 26, 27),
    "one_shot": (28, 29, 30, 31),
}
GROUPS = ("Multilingual LLMs", "Chinese Oriented LLMs", "Law Specific LLMs")


def _paper_lines() -> list[str]:
    found = next((d / PAPER for d in SEEDS if (d / PAPER).is_file()), None)
    if found is None:
        pytest.skip("the paper's text (../shared/seeds/) is not on this machine")
    return found.read_text(encoding="utf-8").split("\n")


def printed_table(lines: list[str], number: int) -> tuple[list[str], dict[str, list[str]], dict[str, str]]:
    """Table `number` as the paper's text holds it (its caption follows it): the printed column names, the cells
    of each model's row, and each model's row block."""
    end = next(i for i, line in enumerate(lines) if line.startswith(f"Table {number}:"))
    start = max(i for i in range(end) if lines[i].startswith("model_name "))
    columns = lines[start].split()[1:]
    rows: dict[str, list[str]] = {}
    groups: dict[str, str] = {}
    group = ""
    for line in lines[start + 1 : end]:
        if line in GROUPS:
            group = line
        elif line and not line.startswith("%abstention"):
            name, *cells = line.split()
            rows[name], groups[name] = cells, group
    return columns, rows, groups


@pytest.mark.parametrize("setting", TABLES)
def test_every_cell_is_the_papers_printed_number(setting):
    lines = _paper_lines()
    ours = printed_rows(PAPER_TABLES / f"{setting}.csv")
    assert len(ours) == 51 and len({r["paper_model"] for r in ours}) == 51
    checked = 0
    for number in TABLES[setting]:
        columns, rows, groups = printed_table(lines, number)
        assert list(rows) == [r["paper_model"] for r in ours], number  # same 51 models, same order
        for row in ours:
            assert [row[c] for c in columns] == rows[row["paper_model"]], (number, row["paper_model"])
            assert row["group"] == groups[row["paper_model"]]
            checked += len(columns)
    assert checked == 51 * (20 + 3 + 4)  # tables 24-26 print their level beside the tasks, 27 all four


def test_a_transcription_error_would_be_caught():
    columns, rows, _ = printed_table(_paper_lines(), 24)
    assert columns == ["1-1", "1-2", "Memorization"] and rows["GPT-4"] == ["15.38", "55.20", "35.29"]
    assert rows["Fuzi-Mingcha"] != ["25.22", "7.80", "16.50"]


@pytest.mark.parametrize("setting", TABLES)
def test_task_cells_are_results_csv_rounded_where_the_mirror_holds_them(setting, mirror):
    path = mirror / "lawbench" / "predictions" / setting / "results.csv"
    if not path.is_file():
        pytest.skip(f"{path} is not mirrored here")
    published = pd.read_csv(path)
    table = paper_rows(setting).set_index("repo_dir")
    compared = 0
    for r in published.itertuples():
        printed = table.loc[r.model_name, r.task]
        assert f"{round(100 * r.score, 2):.2f}" == printed, (r.model_name, r.task)
        compared += 1
    assert compared >= 20  # GPT4's 20 tasks at least


def _long(agent: str, overall: float | None, task_score: float) -> pd.DataFrame:
    scopes = ["1-1", "overall"]
    values = [task_score, overall]
    return pd.DataFrame(
        {
            "table": "zero_shot",
            "agent": agent,
            "scope": scopes,
            "metric": "score",
            "value": values,
            "source": "ours",
        }
    )


def test_the_report_table_ranks_our_agents_among_the_51_models():
    long = pd.concat([_long("mine", 0.4321, 0.15), _long("half", None, 0.1), _long("GPT4", 0.5235, 0.1538)])
    agents = {
        "mine": AgentInfo("mine", "openai/my-model", False),
        "half": AgentInfo("half", "scripted/oracle", True),
    }
    text = paper_table_markdown(long, "zero_shot", agents)
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(lines) == 1 + 51 + 2  # header, the paper's 51 models, our 2 agents (the rescored GPT4 is not one)
    names = [line.split(" | ")[1] for line in lines[1:]]
    # GPT-4 52.35 and ChatGPT 42.15 lead the paper's zero-shot Overall; ours at 43.21 ranks between them
    assert names[:3] == ["GPT-4", "**mine**", "ChatGPT"]
    assert names[-1] == "**half [scripted]**"  # no Overall: after every ranked row
    gpt4 = lines[1].split(" | ")
    assert gpt4[0] == "| 1" and gpt4[3] == "15.38" and gpt4[-1] == "52.35 |"
    mine = lines[2].split(" | ")
    assert mine[0] == "| 2" and mine[2] == "ours" and mine[3] == "15.00" and mine[-1] == "43.21 |"
    assert lines[-1].split(" | ")[-1] == "— |"


def test_the_setting_report_holds_the_51_models_and_our_agents():
    from steps.lawbench.metrics.tasks import TASK_IDS
    from steps.lawbench.report import render_setting
    from steps.lawbench.stages import build_tables

    scores = pd.DataFrame(
        {
            "setting": "one_shot",
            "agent": "mine",
            "task": TASK_IDS,
            "score": 0.5,
            "abstention_rate": 0.0,
            "n": 500,
            "n_failed": 0,
            "proxy": False,
            "run_id": "r",
        }
    )
    published = pd.DataFrame({"setting": [], "model": [], "task": [], "score": [], "abstention_rate": []})
    long, deltas = build_tables(scores, published.astype({"score": float, "abstention_rate": float}))
    agents = {"mine": AgentInfo("mine", "openai/my-model", False)}
    report = render_setting(long, deltas, "one_shot", agents, "c0ffee", [], {"mine": {}}, ["Inputs of `mine`: …"])
    section = report[report.index("## The paper's appendix tables") : report.index("## Notes")]
    assert "Tables 28–31" in section and section.count("\n| ") == 1 + 51 + 1
    # one-shot Overall: GPT-4 53.85 > ours 50.00 > ChatGPT 44.52
    assert "| 1 | GPT-4 | Multilingual LLMs | 17.21 |" in section and "| 2 | **mine** | ours | 50.00 |" in section
    assert "- Inputs of `mine`: …" in report
