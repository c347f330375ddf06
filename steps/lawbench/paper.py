"""The paper's appendix tables 24–31 (all 51 models, zero-shot and one-shot), read from `paper_tables/<setting>.csv`
with the numbers exactly as printed, and the report's table that ranks our agents among them by Overall.

LawBench's results.csv (the mirror holds only the rows of the models whose predictions it mirrors) stays the
reference of the reproduced-from-predictions check; these tables are what the paper printed for every model, and
their Overall is what `jurisflow results` and eval's printout compare with (`zero_shot_overall`, `one_shot_overall`).
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pandas as pd

from steps.lawbench.metrics.tasks import TASK_IDS
from steps.reports.agents import AgentInfo
from steps.reports.paper_tables import load_paper_table

PAPER_TABLES = Path(__file__).parent / "paper_tables"
LEVELS = ("Memorization", "Understanding", "Application")
COLUMNS = (*TASK_IDS, *LEVELS, "Overall")
OURS = "ours"  # the group of our agents' rows


def paper_rows(setting: str) -> pd.DataFrame:
    """The setting's 51 rows (group, paper_model, repo_dir, the 20 tasks, three levels, Overall), every cell the
    printed text (`15.38`, `0.00`)."""
    table = load_paper_table(PAPER_TABLES / f"{setting}.csv")  # validates the provenance lines
    lines = [line for line in table.path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return pd.read_csv(StringIO("\n".join(lines)), dtype=str, keep_default_na=False)


def overall(setting: str) -> pd.DataFrame:
    """The setting's Overall of all 51 models as the paper printed it, as a fraction (agent, value, judge): the
    papers' rows of `jurisflow results` and eval's paper best and median (not results.csv's mirrored models)."""
    rows = paper_rows(setting)
    values = pd.to_numeric(rows.Overall, errors="coerce") / 100
    return pd.DataFrame({"agent": rows.paper_model, "value": values, "judge": None}).dropna(subset=["value"])


def zero_shot_overall() -> pd.DataFrame:
    """`overall` of the zero-shot tables (named in the registration)."""
    return overall("zero_shot")


def one_shot_overall() -> pd.DataFrame:
    """`overall` of the one-shot tables (named in the registration)."""
    return overall("one_shot")


def _ours(long: pd.DataFrame, setting: str, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    """Our agents' rows in the paper's layout (×100, 2 decimals; `—` where a cell has no number)."""
    rows = long[(long["table"] == setting) & (long.metric == "score") & (long.source == "ours")]
    rows = rows[rows.agent.isin(list(agents))]
    scope = {**{t: t for t in TASK_IDS}, **{lv: lv for lv in LEVELS}, "overall": "Overall"}
    out = []
    for agent, group in rows.groupby("agent", sort=True):
        values = {scope[s]: v for s, v in zip(group.scope, group.value, strict=True) if s in scope}
        cells = {c: "—" if pd.isna(values.get(c)) else f"{100 * float(values[c]):.2f}" for c in COLUMNS}
        out.append({"group": OURS, "paper_model": f"**{agents[str(agent)].label_in(setting)}**", **cells})
    return pd.DataFrame(out, columns=["paper_model", "group", *COLUMNS])


def paper_table(long: pd.DataFrame, setting: str, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    """The paper's 51 models and our agents (from the long table), ranked by Overall, best first (a row without
    Overall after every ranked one); the paper's cells as printed, ours rounded as the paper rounds."""
    paper = paper_rows(setting)[["paper_model", "group", *COLUMNS]]
    rows = pd.concat([paper, _ours(long, setting, agents)], ignore_index=True)
    overall = pd.to_numeric(rows.Overall, errors="coerce")
    rows = rows.assign(_o=overall).sort_values("_o", ascending=False, kind="stable", na_position="last")
    ranked = rows._o.notna().to_numpy()
    rank = [str(i + 1) if r else "—" for i, r in enumerate(ranked)]
    rows = rows.drop(columns="_o").rename(columns={"paper_model": "model"})
    rows.insert(0, "#", rank)
    return rows.reset_index(drop=True)


def paper_table_markdown(long: pd.DataFrame, setting: str, agents: dict[str, AgentInfo]) -> str:
    """`paper_table` as a Markdown table."""
    from steps.reports.markdown import markdown_table

    return markdown_table(paper_table(long, setting, agents))
