"""The judge audit's panels (stage `judges_report`): where a benchmark is judged by a panel (`judge: [a, b, c]`),
how much its judges agree, and how the ranking of the agents changes with the judge.

A panel-judged table keeps every member's rows in `<table>_panel.parquet` beside it (steps/judges/panel.py). A
unit is one row of a member (its agent and the table's key columns, `unit_keys`); rows a rule valued or that
failed are left out. Per benchmark, table and prompt (the prompt's name, all its versions): for every pair of
judges the units both valued, Cohen's κ (unweighted on a nominal scale, linear weights on an ordinal one, not
computed on an interval one), Spearman's ρ and Krippendorff's α; with three judges or more, α of all of them
(`all`). The level comes from the values (steps/stats/agreement.py `level_of`). Rankings: per benchmark and table,
each judge's mean value per agent over its valued rows, and the panel's (the aggregated table), with each agent's
rank (1 = best, ties share the best) and a member's rank minus the panel's (`rank_change`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from steps.judges.panel import PANEL_SUFFIX, unit_keys
from steps.stats.agreement import cohen_kappa, krippendorff_alpha, level_of, spearman

AGREEMENT = ["benchmark", "table", "prompt", "raters", "level", "units", "kappa", "kappa_weights", "spearman", "alpha"]
RANKING = ["benchmark", "table", "agent", "judge", "panel", "mean", "rank", "rank_change"]


def panel_file(path: Path) -> Path:
    """`<table>_panel.parquet` beside the judged table `path`."""
    return path.with_name(path.stem + PANEL_SUFFIX + path.suffix)


def valued(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows a judge model valued (not a rule, not a failure), with their prompt's name and unit id."""
    asked = frame[~frame.judge.isin(["rule", ""]) & frame.value.notna() & frame.failure.isna()]
    keys = ["agent", *unit_keys(list(frame.columns))]
    # a missing key part (NaN; pandas' str dtype keeps it missing) reads as empty
    unit = (
        asked[keys].astype(object).fillna("").astype(str).agg("|".join, axis=1)
        if len(asked)
        else pd.Series([], dtype=str)
    )
    return asked.assign(prompt=asked.judge_prompt_version.str.split("@").str[0], unit=unit)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def agreement_rows(labels: Mapping[str, str], members: pd.DataFrame) -> list[dict]:
    """Agreement of every pair of judges (and of all, for three or more) per prompt of one table's member rows."""
    rows = valued(members)
    judges = list(dict.fromkeys(members.judge[~members.judge.isin(["rule", ""])]))
    out = []
    for prompt, part in rows.groupby("prompt", sort=True):
        wide = part.pivot_table(index="unit", columns="judge", values="value", aggfunc="first")
        level = level_of(part.value.tolist())
        groups = [list(pair) for pair in itertools.combinations(judges, 2)]
        if len(judges) > 2:
            groups.append(judges)
        for group in groups:
            present = [j for j in group if j in wide.columns]
            both = wide[present].dropna() if len(present) == len(group) else wide.iloc[0:0]
            kappa = spearman_value = None
            if len(group) == 2 and len(both):
                a, b = both[group[0]].tolist(), both[group[1]].tolist()
                kappa = None if level == "interval" else cohen_kappa(a, b, weighted=level == "ordinal")
                spearman_value = spearman(a, b)
            matrix = wide.reindex(columns=group).to_numpy(dtype=float).T
            out.append(
                {
                    **labels,
                    "prompt": prompt,
                    "raters": " vs ".join(group) if len(group) == 2 else "all",
                    "level": level,
                    "units": len(both) if len(group) == 2 else int(((~np.isnan(matrix)).sum(axis=0) >= 2).sum()),
                    "kappa": _round(kappa),
                    "kappa_weights": "" if level == "interval" else "linear" if level == "ordinal" else "none",
                    "spearman": _round(spearman_value),
                    "alpha": _round(krippendorff_alpha(matrix, level)),
                }
            )
    return out


def ranking_rows(labels: Mapping[str, str], members: pd.DataFrame, panel: pd.DataFrame) -> list[dict]:
    """Each judge's and the panel's mean value per agent over one table, with the agents' ranks."""
    out = []
    for judge, part in [*valued(members).groupby("judge", sort=False), *valued(panel).groupby("judge", sort=False)]:
        means = part.groupby("agent", sort=True).value.mean()
        ranks = means.rank(ascending=False, method="min")
        is_panel = str(judge).startswith("panel(")
        out += [
            {**labels, "agent": a, "judge": judge, "panel": is_panel, "mean": round(float(m), 4), "rank": int(ranks[a])}
            for a, m in means.items()
        ]
    panel_rank = {r["agent"]: r["rank"] for r in out if r["panel"]}
    for r in out:  # a member's rank minus the panel's (0: the same place; +1: one place lower under this judge)
        r["rank_change"] = r["rank"] - panel_rank[r["agent"]] if r["agent"] in panel_rank else None
    return out


def panels(files: list[tuple[dict[str, str], Path]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(agreement, rankings) of every panel-judged table among `files` (each judged table beside its members')."""
    agreement, ranking = [], []
    grouped: dict[tuple[str, str], list[Path]] = {}
    for labels, path in files:
        if panel_file(path).is_file():
            grouped.setdefault((labels["benchmark"], labels["table"]), []).append(path)
    for (benchmark, table), paths in grouped.items():
        labels = {"benchmark": benchmark, "table": table}
        members = pd.concat([_with_agent(panel_file(p)) for p in paths], ignore_index=True)
        if members.empty:  # a single judge writes its members' table empty: no panel to compare
            continue
        aggregated = pd.concat([_with_agent(p) for p in paths], ignore_index=True)
        agreement += agreement_rows(labels, members)
        ranking += ranking_rows(labels, members, aggregated)
    return pd.DataFrame(agreement, columns=AGREEMENT), pd.DataFrame(ranking, columns=RANKING)


def _with_agent(path: Path) -> pd.DataFrame:
    """A judged table, its agent the folder it lies in."""
    return pd.read_parquet(path).assign(agent=path.parent.name)


def _cell(value: object) -> str:
    return "—" if value is None or (isinstance(value, float) and np.isnan(value)) else f"{value:g}"


def render(agreement: pd.DataFrame, ranking: pd.DataFrame) -> str:
    """The panels section of reports/judges.md."""
    head = "## Panels of judges\n\n"
    if agreement.empty and ranking.empty:
        return head + "No benchmark is judged by a panel (`judge: [a, b]` in its section of params.yaml).\n"
    lines = [
        head + "Agreement between the judges of each panel, over the units both valued (κ: Cohen's, linear weights "
        "on an ordinal scale; α: Krippendorff's at the level shown; ρ: Spearman's). Twin: reports/judges_panels.csv.",
        "",
        "| benchmark | table | prompt | judges | level | units | κ | ρ | α |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in agreement.itertuples(index=False):
        lines.append(
            f"| {r.benchmark} | {r.table} | {r.prompt} | {r.raters} | {r.level} | {r.units} | {_cell(r.kappa)} | "
            f"{_cell(r.spearman)} | {_cell(r.alpha)} |"
        )
    lines += [
        "",
        "How the ranking of the agents changes with the judge: each agent's mean value (rank) under each judge and "
        "under the panel; `rank_change` in the twin (reports/judges_rankings.csv) is a judge's rank minus the "
        "panel's.",
        "",
    ]
    for (benchmark, table), part in ranking.groupby(["benchmark", "table"], sort=False):
        judges = list(dict.fromkeys(part.judge))
        lines += [
            f"{benchmark} · {table}:",
            "",
            "| agent | " + " | ".join(f"`{j}`" for j in judges) + " |",
            "|---|" + "---|" * len(judges),
        ]
        for agent, rows in part.groupby("agent", sort=True):
            by = {r.judge: f"{r.mean:g} ({r.rank})" for r in rows.itertuples(index=False)}
            lines.append(f"| {agent} | " + " | ".join(by.get(j, "—") for j in judges) + " |")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
