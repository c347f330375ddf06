"""One story everywhere (issue 37, item 6): for the same run data, `jurisflow eval`'s summary, `jurisflow results`,
the Markdown reports and the HTML report name the same headlines, quote the same paper rows and label every agent
alike: `[scripted]` only where a scripted stand-in touched the numbers, `[limit N]` wherever a run was limited.

The run data: a real agent limited to 2 items (`real`) and the scripted oracle, on rule-scored LawBench and on
UCL-Bench judged by the scripted proxy judge (with a real user and a real reference). Each report is built as its
stage builds it (labelled_rows, with_stand_ins, the Markdown, the CSV twin); the other outputs read the twins.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from flows.evaluate import headline_text, headlines
from flows.results import headline_rows
from steps.lawbench.metrics.tasks import TASK_IDS
from steps.lawbench.report import csv_text, render_setting
from steps.lawbench.stages import build_tables
from steps.reports.agents import AgentInfo, labelled_rows, with_stand_ins
from steps.reports.dvc_views import read_long_csv
from steps.reports.html.pages import benchmark_page
from steps.reports.long import long_csv
from steps.results import leaderboard
from steps.ucl.judging import HINT_COLUMNS
from steps.ucl.pairs import VERDICT_COLUMNS
from steps.ucl.paper import paper_long
from steps.ucl.report import render
from steps.ucl.schemas import UclDialogues
from steps.ucl.tables import agent_flags, long_table
from steps.ucl.tasks import PAPER_TASK_IDS
from tests.ucl.test_tables import dialogue, one_order, report_info

REAL = AgentInfo("real", "openai/some-model", False, limit=2, sizes={"1-1": 2})
ORACLE = AgentInfo("oracle", "scripted/oracle", True, sizes={"1-1": 2})
REFERENCE = AgentInfo("ref", "openai/reference", False, sizes={"1-1": 2})
AGENTS = ("real", "oracle")
# each agent's label, as every output must give it, in the table of its headline number
EXPECTED = {
    "lawbench": {"real": "real [limit 2]", "oracle": "oracle [scripted]"},  # rule-scored: the judge is no part
    "ucl": {"real": "real [scripted] [limit 2]", "oracle": "oracle [scripted]"},  # the proxy judge made them
}
COLUMNS = {"lawbench": "LawBench 0-shot", "ucl": "UCL win rate"}
HEADLINE_TABLE = {"lawbench": "zero_shot", "ucl": "win_rate"}


def _lawbench(reports: Path) -> str:
    """LawBench zero-shot as its report stage builds it: reports/lawbench.csv written, the Markdown returned."""
    scores = pd.DataFrame(
        [
            {
                "setting": "zero_shot",
                "agent": info.name,
                "task": t,
                "score": 1.0 if info.scripted else 0.4,
                "abstention_rate": 0.0,
                "n": 2,
                "n_failed": 0,
                "proxy": info.scripted,  # as lawbench_predict writes it: the agent is the only stand-in there
                "run_id": "r",
            }
            for info in (REAL, ORACLE)
            for t in TASK_IDS
        ]
    )
    published = pd.DataFrame(
        {"setting": "zero_shot", "model": "GPT4", "task": list(TASK_IDS), "score": 0.5, "abstention_rate": 0.0}
    )
    long, deltas = build_tables(scores, published)
    agents = {a.name: a for a in (REAL, ORACLE)}
    long = labelled_rows(long, agents)
    agents = with_stand_ins(agents, long)
    (reports / "lawbench.csv").write_text(csv_text(long), encoding="utf-8")
    return render_setting(long, deltas, "zero_shot", agents, "c0ffee", ["GPT4"])


def _ucl(reports: Path) -> str:
    """UCL-Bench as its report stage builds it, judged by the scripted proxy judge (user and reference real)."""
    verdicts = [v for a in AGENTS for t in PAPER_TASK_IDS for v in one_order(t, 1, 1, 0, agent=a)]
    dialogues = [dialogue(a, t, i, 2) for a in (*AGENTS, "ref") for t in PAPER_TASK_IDS for i in range(2)]
    flags = agent_flags([REAL, ORACLE], REFERENCE, "scripted/judge", user_scripted=False, judge_scripted=True)
    long = long_table(
        {
            "verdicts": pd.DataFrame(verdicts, columns=VERDICT_COLUMNS),
            "hint_scores": pd.DataFrame(columns=HINT_COLUMNS),
            "dialogues": pd.DataFrame(dialogues, columns=list(UclDialogues.to_schema().columns)),
            "paper": paper_long({}),
            "agents": flags,
        }
    )
    everyone = {a.name: a for a in (REAL, ORACLE, REFERENCE)}
    long = labelled_rows(long, everyone)
    everyone = with_stand_ins(everyone, long)
    twin = long_csv(long, table="reports/ucl.csv", digits=10, with_unparsable=True, with_limit=True)
    (reports / "ucl.csv").write_text(twin, encoding="utf-8")
    info = report_info(
        [everyone["real"], everyone["oracle"]],
        everyone["ref"],
        user="openai/user",
        judge="scripted/judge",
        judge_scripted=True,
        items_per_task=2,
    )
    return render(long, info)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, object]:
    reports = tmp_path_factory.mktemp("reports")
    markdown = {"lawbench": _lawbench(reports), "ucl": _ucl(reports)}
    html = {b: benchmark_page(b, read_long_csv(reports / f"{b}.csv"), None, list(AGENTS)) for b in ("lawbench", "ucl")}
    return {
        "reports": reports,
        "markdown": markdown,
        "html": html,
        "results": leaderboard(headline_rows(reports)),
        "eval": {a: headline_text(a, ["lawbench", "ucl"], reports) for a in AGENTS},
    }


def _markdown_labels(text: str) -> set[str]:
    """Our agents' row labels in a Markdown report (a row's first cell)."""
    return {m for m in re.findall(r"^\| ((?:real|oracle)\b[^|]*?) \|", text, re.MULTILINE)}


def _html_labels(page: str, table: str | None = None) -> set[str]:
    """Our agents' row labels in an HTML page (or in the section of one of its CSV tables)."""
    if table is not None:
        page = page[page.index(f'<h2 id="t-{table}">') :]
        page = page[: page.find("<h2", 4)] if "<h2" in page[4:] else page
    return set(re.findall(r"<th>((?:real|oracle)\b[^<]*)</th>", page))


@pytest.mark.parametrize("bench", ["lawbench", "ucl"])
def test_every_output_labels_the_headline_alike(outputs, bench):
    expected = EXPECTED[bench]
    column = COLUMNS[bench]
    # the Markdown report's rows
    assert set(expected.values()) <= _markdown_labels(outputs["markdown"][bench])
    # the HTML page's rows in the headline's table
    assert _html_labels(outputs["html"][bench], HEADLINE_TABLE[bench]) == set(expected.values())
    # `jurisflow results`: the row holding the headline number
    board = outputs["results"].set_index("agent")
    for label in expected.values():
        assert re.fullmatch(r"[\d.]+ \(n \d+\)", board.loc[label, column]) and board.loc[label, "source"] == "ours"
    # `jurisflow eval`'s summary: the line of that column
    for agent, label in expected.items():
        line = next(x for x in outputs["eval"][agent].splitlines() if x.strip().startswith(column))
        assert f" {label} " in line and board.loc[label, column] in line


@pytest.mark.parametrize("bench", ["lawbench", "ucl"])
def test_markdown_and_html_give_each_table_the_same_labels(outputs, bench):
    assert _markdown_labels(outputs["markdown"][bench]) == _html_labels(outputs["html"][bench])


def test_a_real_agent_is_never_scripted_on_rule_scored_lawbench_even_beside_a_proxy_judge(outputs):
    assert "real [scripted]" not in outputs["markdown"]["lawbench"] + outputs["html"]["lawbench"]
    board = outputs["results"].set_index("agent")
    assert board.loc["real [limit 2]", "UCL win rate"] == ""  # its UCL number is on its own row, labelled
    assert board.loc["real [scripted] [limit 2]", "LawBench 0-shot"] == ""
    assert "ours, scripted" not in outputs["results"].to_csv()
    twin = read_long_csv(outputs["reports"] / "lawbench.csv")
    assert not twin[twin.agent == "real"].proxy.any() and twin[twin.agent == "oracle"].proxy.all()


def test_the_limit_is_in_every_twin_and_every_output(outputs):
    for bench in ("lawbench", "ucl"):
        twin = read_long_csv(outputs["reports"] / f"{bench}.csv")
        assert set(twin[twin.agent == "real"]["limit"]) == {2}
        assert twin[twin.agent != "real"]["limit"].isna().all()  # full runs and the paper's rows
    assert "[limit 2]" in outputs["eval"]["real"] and "[limit 2]" not in outputs["eval"]["oracle"]


def test_eval_and_results_quote_the_same_paper_rows(outputs):
    rows = headline_rows(outputs["reports"])
    for line in headlines("real", ["lawbench", "ucl"], outputs["reports"]):
        papers = rows[(rows["column"] == line.column) & (rows.source == "paper") & rows.value.notna()]
        assert sorted(m for m, _ in line.paper) == sorted(papers.agent)
    ucl = next(h for h in headlines("real", ["ucl"], outputs["reports"]))
    assert len(ucl.paper) == 21  # the paper's Table 3, though the twin holds no paper row for an unmatched agent
    board = outputs["results"]
    assert (board.source == "paper").sum() == len(
        {m for h in headlines("real", ["lawbench", "ucl"], outputs["reports"]) for m, _ in h.paper}
    )
