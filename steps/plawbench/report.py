"""Markdown for the PLawBench reports: the rubric parse report and the paper-style result tables.

The numbers come from DuckDB SQL (steps/sql/plawbench_*.sql); this module lays them out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from steps.plawbench import paper
from steps.plawbench.penalty_report import render_penalties
from steps.plawbench.rubrics import RubricTables
from steps.reports.agents import AgentInfo, RunInfo
from steps.reports.markdown import (
    CONTENT_FILTER_RULE,
    LABELS_RULE,
    truncated_note,
    value_pivot,
    with_failed,
    with_interval,
)
from steps.reports.prose import render_template

TEMPLATES = Path(__file__).parent / "templates"

MAIN_COLUMNS = [
    "Overall",
    "T1",
    "T2/Conclusion",
    "T2/Facts",
    "T2/Reasoning",
    "T2/Statute",
    "T2",
    "T3/Defendant",
    "T3/Plaintiff",
    "T3",
]
MAIN_HEADERS = [
    "Overall",
    "T1 PLC",
    "T2 Conclusion",
    "T2 Facts",
    "T2 Reasoning",
    "T2 Statute",
    "T2 Avg",
    "T3 Defendant",
    "T3 Plaintiff",
    "T3 Avg",
]


def render_rubrics(tables: RubricTables, summary: dict[str, pd.DataFrame]) -> str:
    data = summary["data"]
    paper2 = paper.table2().set_index("statistic")
    stats = pd.DataFrame(
        {
            "statistic": ["questions", "avg. prompt length (chars)", "rubric items (total)", "rubric items (avg.)"],
            **{
                f"{t} paper": [
                    paper2.at[s, t] for s in ("questions", "avg_prompt_chars", "rubric_items", "rubric_items_avg")
                ]
                for t in ("T1", "T2", "T3")
            },
        }
    )
    ours = data.set_index("task")
    for t in ("T1", "T2", "T3"):
        stats[f"{t} ours"] = [
            ours.at[t, c] for c in ("questions", "avg_prompt_chars", "rubric_items", "rubric_items_avg")
        ]
    stats = stats[["statistic", "T1 paper", "T1 ours", "T2 paper", "T2 ours", "T3 paper", "T3 ours"]]
    items = tables.items
    sections = items[(items.category == "case_analysis") & (items.kind == "section")]
    dims = sections.groupby("dimension", sort=False).points.sum()
    shares = pd.DataFrame(
        {"dimension": dims.index, "points": dims.to_numpy(), "share": (dims / dims.sum()).round(4).to_numpy()}
    )
    seq = (
        tables.tasks[tables.tasks.category == "case_analysis"]
        .seq_class.value_counts()
        .rename_axis("seq_class")
        .reset_index(name="tasks")
    )
    position = {item_id: i for i, item_id in enumerate(tables.tasks.item_id)}
    issues = tables.issues.sort_values("item_id", key=lambda ids: ids.map(position), kind="stable")
    return render_template(
        TEMPLATES,
        "rubrics.md.j2",
        tasks=len(tables.tasks),
        rows=len(items),
        statistics=stats,
        kinds=summary["kinds"],
        shares=shares,
        sequences=seq,
        issue_counts=summary["issue_counts"],
        issues=issues[["item_id", "rubric_id", "issue", "detail", "effect"]],
    )


def _fmt(value: Any) -> Any:
    return None if value is None or pd.isna(value) else round(float(value) * 100, 2)


def main_table(long: pd.DataFrame, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    """Paper Table 3 layout: our agents, each followed by the paper's row for the same model, then the
    paper's other models."""
    main = long[(long["table"] == "table3") & (long.scope == "overall")]
    rows, shown = [], set()
    for name, info in agents.items():
        mine = main[(main.agent == name) & (main.source == "ours")].set_index("metric")
        ours, n = mine.value, mine.n
        half = (mine.ci_high - mine.ci_low) / 2 * 100 if "ci_low" in mine else pd.Series(dtype=float)
        failed = mine.n_failed if "n_failed" in mine else pd.Series(dtype=float)
        unparsable = mine.n_unparsable if "n_unparsable" in mine else pd.Series(dtype=float)
        label = replace(info, name=f"{name} ({info.model})").label_in("table3")
        rows.append(
            {
                "model": label,
                **{
                    h: with_failed(
                        with_interval(_fmt(ours.get(c)), half.get(c)), failed.get(c), unparsable=unparsable.get(c)
                    )
                    for h, c in zip(MAIN_HEADERS, MAIN_COLUMNS, strict=True)
                },
                "n": int(n.get("T2", 0) or 0)
                + int(n.get("T1", 0) or 0)
                + int(n.get("T3/Defendant", 0) or 0)
                + int(n.get("T3/Plaintiff", 0) or 0),
            }
        )
        if info.paper_model:
            rows.append(_paper_row(main, info.paper_model, f"↳ {info.paper_model} (paper)"))
            shown.add(info.paper_model)
    for model in paper.table3().model:
        if model not in shown:
            rows.append(_paper_row(main, model, f"{model} (paper)"))
    return pd.DataFrame(rows).astype(object).where(lambda d: d.notna(), None)


def _paper_row(main: pd.DataFrame, model: str, label: str) -> dict[str, Any]:
    vals = main[(main.agent == model) & (main.source == "paper")].set_index("metric").value
    return {
        "model": label,
        **{h: _fmt(vals.get(c)) for h, c in zip(MAIN_HEADERS, MAIN_COLUMNS, strict=True)},
        "n": None,
    }


def pivot(
    long: pd.DataFrame,
    table: str,
    index: str,
    columns: str,
    agents: dict[str, AgentInfo],
    metric_filter: list[str] | None = None,
) -> pd.DataFrame:
    """One of our tables as agent/scope rows × metric columns, rates ×100."""
    part = long[(long["table"] == table) & (long.source == "ours")]
    if metric_filter is not None:
        part = part[part.metric.isin(metric_filter)]
    if part.empty:
        return pd.DataFrame()
    wide = value_pivot(part, index.split(","), columns)
    if metric_filter is not None:
        wide = wide.reindex(columns=[m for m in metric_filter if m in wide.columns])
    out = (wide * 100).round(2).astype(object).where(wide.notna(), None)
    if "ci_low" in part:  # ± half the 95 % interval, in the table's ×100 units
        part = part.assign(half=(part.ci_high.astype(float) - part.ci_low.astype(float)) * 50)
        half = part.pivot_table(index=index.split(","), columns=columns, values="half", aggfunc="first", sort=False)
        half = half.reindex(index=wide.index, columns=wide.columns)
        for col in out.columns:
            out[col] = [with_interval(v, h) for v, h in zip(out[col], half[col], strict=True)]
    if "n_failed" in part:
        failed, unparsable = (
            part.assign(**{count: part.get(count)})
            .pivot_table(index=index.split(","), columns=columns, values=count, aggfunc="first", sort=False)
            .reindex(index=wide.index, columns=wide.columns)
            for count in ("n_failed", "n_unparsable")
        )
        for col in out.columns:
            cells = zip(out[col], failed[col], unparsable[col], strict=True)
            out[col] = [with_failed(v, n, unparsable=u) for v, n, u in cells]
    sizes = part.groupby(index.split(","), sort=False).n.agg(["min", "max"]).reindex(wide.index)
    out.insert(
        0,
        "n",
        [
            None if pd.isna(lo) else int(lo) if lo == hi else f"{int(lo)}–{int(hi)}"
            for lo, hi in zip(sizes["min"], sizes["max"], strict=True)
        ],
    )  # responses behind the row
    out = out.reset_index()
    out.columns = [str(c) for c in out.columns]
    if "agent" in out:
        out["agent"] = [agents[a].label_in(table) if a in agents else a for a in out.agent]
    return out.astype(object).where(out.notna(), None)


@dataclass(frozen=True)
class ReportInputs:
    """What the report states besides its numbers: the agents, the setting (`run.options`: params.plawbench, its
    `limit` and `t1_penalties`), the data's commit, the public tasks, the rubric parse issues and their tasks."""

    agents: dict[str, AgentInfo]
    run: RunInfo
    data_commit: str
    n_tasks: int
    parse_issues: int
    issue_tasks: int


def failed_responses(long: pd.DataFrame, count: str = "n_failed") -> int:
    """The responses of the single-turn tasks that failed model calls left without a score (`count`
    n_unparsable: that unparsable judge answers did)."""
    main = long[
        (long["table"] == "table3")
        & (long.source == "ours")
        & long.metric.isin(["T1", "T2", "T3/Defendant", "T3/Plaintiff"])
    ]
    return int(main[count].fillna(0).sum()) if count in main else 0


def _check_table(long: pd.DataFrame) -> tuple[pd.DataFrame, float]:
    """The paper's T3 and Overall beside our formula applied to its per-category numbers."""
    published = long[(long["table"] == "table3") & (long.source == "paper") & long.metric.isin(["T3", "Overall"])]
    ours = long[(long["table"] == "table3_check") & long.metric.isin(["T3", "Overall"])]
    both = published.merge(ours, on=["agent", "metric"], suffixes=("_paper", "_formula"), validate="one_to_one")
    wide = both.pivot_table(index="agent", columns="metric", values=["value_paper", "value_formula"], sort=False)
    out = pd.DataFrame(
        {
            "model": wide.index,
            "T3 paper": (wide[("value_paper", "T3")] * 100).round(2).to_numpy(),
            "T3 = (Def+Pla)/2": (wide[("value_formula", "T3")] * 100).round(3).to_numpy(),
            "Overall paper": (wide[("value_paper", "Overall")] * 100).round(2).to_numpy(),
            "0.2·T1+0.5·T2+0.3·T3": (wide[("value_formula", "Overall")] * 100).round(3).to_numpy(),
        }
    )
    gap = float((both.value_paper - both.value_formula).abs().max() * 100) if len(both) else float("nan")
    return out, gap


def _multiturn(multi: pd.DataFrame, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    """T1 single-turn beside the multi-turn variant per agent (×100), with `(n failed)` where calls failed; each
    agent labelled for both tables' numbers."""
    mt = multi.pivot_table(index="agent", columns="table", values="value", aggfunc="first", sort=False)
    mt = (mt.reindex(columns=["table3", "multiturn"]) * 100).round(2)
    if "n_failed" in multi:
        failed = multi.pivot_table(index="agent", columns="table", values="n_failed", aggfunc="first", sort=False)
        failed = failed.reindex(index=mt.index, columns=mt.columns)
        if failed.fillna(0).to_numpy().any():
            mt = mt.astype(object).where(mt.notna(), None)
            for col in mt.columns:
                mt[col] = [with_failed(v, n) for v, n in zip(mt[col], failed[col], strict=True)]
    n = multi.pivot_table(index="agent", columns="table", values="n", aggfunc="first", sort=False)
    n = n.reindex(index=mt.index, columns=["table3", "multiturn"])
    mt = mt.reset_index()
    mt.columns = ["agent", "T1 single-turn (paper protocol)", "T1 multi-turn (ours)"]
    mt.insert(1, "n", [int(v) if pd.notna(v) else None for v in n["table3"]])  # consultations (both variants)
    mt["agent"] = [agents[a].label_in("table3", "multiturn") if a in agents else a for a in mt.agent]
    return mt


def same_family(agents: dict[str, AgentInfo], judge: str) -> list[str]:
    """The agents of the judge's family: the paper's judge is also one of its models (spec §6.15)."""
    families = ("gemini", "gpt", "claude", "qwen", "deepseek", "kimi", "glm", "doubao")
    judged_by = next((f for f in families if f in judge.lower()), None)
    return [a.name for a in agents.values() if judged_by and judged_by in a.model.lower()]


def _dataset_statistics(data: pd.DataFrame) -> pd.DataFrame:
    """Paper Table 2 beside our counts, one row per task."""
    paper2 = paper.table2().set_index("statistic")
    return pd.DataFrame(
        {
            "task": data.task,
            "questions (paper)": [paper2.at["questions", t] for t in data.task],
            "questions (ours)": data.questions,
            "avg. prompt chars (paper)": [paper2.at["avg_prompt_chars", t] for t in data.task],
            "avg. prompt chars (ours)": data.avg_prompt_chars,
            "rubric items (paper)": [paper2.at["rubric_items", t] for t in data.task],
            "judged items (ours)": data.rubric_items,
            "avg. (paper)": [paper2.at["rubric_items_avg", t] for t in data.task],
            "avg. (ours)": data.rubric_items_avg,
        }
    )


def render_report(tables: dict[str, pd.DataFrame], inputs: ReportInputs) -> str:
    """reports/plawbench.md: the tables built here, the prose in templates/report.md.j2."""
    long, agents, run = tables["long"], inputs.agents, inputs.run
    check, gap = _check_table(long)
    multi = long[(long["table"].isin(["table3", "multiturn"])) & (long.metric == "T1") & (long.source == "ours")]
    mt = _multiturn(multi, agents)
    penalties = run.options.get("t1_penalties") == "paper"
    text = render_template(
        TEMPLATES,
        "report.md.j2",
        inputs=inputs,
        agents=agents,
        run=run,
        limits=list({a.limit for a in agents.values()} or {run.options.get("limit")}),
        scripted=[a.name for a in agents.values() if a.scripted],
        main=main_table(long, agents),
        failed=failed_responses(long),
        unparsable=failed_responses(long, "n_unparsable"),
        same_family=same_family(agents, run.judge),
        check=check,
        gap=gap,
        statistics=_dataset_statistics(tables["data"]),
        table4=paper.table4(),
        health=tables["judge_health"].drop(columns=["judge"]),
        scenarios=pivot(
            long,
            "scenarios",
            "agent,scope",
            "metric",
            agents,
            ["T2/Conclusion", "T2/Facts", "T2/Reasoning", "T2/Statute", "T2"],
        ),
        sequential=pivot(long, "sequential", "agent,scope", "metric", agents, ["T2/Reasoning", "T2"]),
        multiturn=mt.astype(object).where(mt.notna(), None),
        macro=pivot(long, "macro", "agent", "metric", agents, ["T1", "T2", "T3/Defendant", "T3/Plaintiff"]),
        penalties=render_penalties(
            long, tables["penalty_answers"], tables["penalty_findings"], proxy=run.judge_scripted
        )
        if penalties
        else "",
        errors=tables["errors"],
        content_filter_rule=CONTENT_FILTER_RULE,
        labels_rule=LABELS_RULE,
        truncated=truncated_note({name: a.truncated for name, a in agents.items()}),
    )
    return text.rstrip() + "\n"
