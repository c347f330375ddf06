"""The paper-style LawBench tables (Markdown) from the long result table produced by DuckDB SQL."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from steps.lawbench.metrics.tasks import TASK_IDS, TASKS
from steps.lawbench.paper import paper_table
from steps.reports.agents import AgentInfo
from steps.reports.long import long_csv
from steps.reports.markdown import CONTENT_FILTER_RULE, LABELS_RULE, truncated_note, with_failed, with_interval
from steps.reports.prose import render_template

LEVEL_COLUMNS = ("Memorization", "Understanding", "Application")
FULL_ITEMS = 500  # items per task in LawBench, on which its results.csv was computed
_LEVEL_OF = {"Memorization": "Memorization", "Understanding": "Understanding", "Applying": "Application"}
TEMPLATES = Path(__file__).parent / "templates"


def tasks_frame() -> pd.DataFrame:
    """task -> level, with the level names of the paper's tables (registered as `lawbench_tasks`)."""
    return pd.DataFrame({"task": [t.task_id for t in TASKS], "level": [_LEVEL_OF[t.level] for t in TASKS]})


def _label(agent: str, source: str, agents: dict[str, AgentInfo], setting: str) -> str:
    if source == "paper":
        return f"{agent} (published)"
    if source == "paper_of":
        return f"↳ {agents[agent].paper_model} (published)"
    info = agents.get(agent)
    return info.label_in(setting) if info else agent


def _items(long: pd.DataFrame, setting: str) -> dict[tuple[str, str], int]:
    """(agent, source) -> items per task its row averages (the most of one task; the published rows: 500)."""
    tasks = long[(long["table"] == setting) & long.scope.isin(TASK_IDS) & (long.metric == "score")]
    ours = tasks[tasks.source == "ours"].groupby("agent").n.max()
    return {(a, "ours"): int(n) for a, n in ours.items() if pd.notna(n)}


def _pivot(long: pd.DataFrame, setting: str, metric: str, scopes: list[str], agents: dict[str, AgentInfo]):
    rows = long[(long["table"] == setting) & (long.metric == metric) & long.scope.isin(scopes)]
    if rows.empty:
        return pd.DataFrame(columns=["model", "n", *scopes])
    wide = (
        rows.pivot_table(index=["agent", "source"], columns="scope", values="value", aggfunc="first", dropna=False)
        .reindex(columns=scopes)
        .dropna(how="all")
    )
    order = sorted(wide.index, key=lambda k: (k[0] in agents, k[0].lower(), k[1] != "ours"))
    wide = wide.loc[order]
    paired = []  # each agent's row, then the published row of the model it corresponds to
    for agent, source in wide.index:
        paired.append((agent, source))
        info = agents.get(agent)
        if source == "ours" and info and info.paper_model and (info.paper_model, "paper") in wide.index:
            paired.append((agent, "paper_of"))
    values = [wide.loc[(agents[a].paper_model, "paper")] if s == "paper_of" else wide.loc[(a, s)] for a, s in paired]
    wide = pd.DataFrame(values, index=pd.MultiIndex.from_tuples(paired, names=["agent", "source"]))
    items = _items(long, setting)
    out = (wide * 100).round(2)
    out.insert(0, "model", [_label(a, s, agents, setting) for a, s in wide.index])
    out.insert(1, "n", [items.get((a, s), FULL_ITEMS) for a, s in wide.index])
    out = out.reset_index(drop=True)
    out = out.astype({c: object for c in scopes}).where(out.notna(), None)
    if "ci_low" in rows:  # ± half our 95 % interval, in the table's ×100 units (the paper's rows have none)
        ours = rows[rows.source == "ours"]
        half = ((ours.ci_high.astype(float) - ours.ci_low.astype(float)) * 50).to_numpy()
        halves = dict(zip(zip(ours.agent, ours.scope, strict=True), half, strict=True))
        for row, (agent, source) in enumerate(wide.index):
            if source == "ours":
                for c in scopes:
                    out.at[row, c] = with_interval(out.at[row, c], halves.get((agent, c)))
    return _with_failed(out, wide.index, failed_by_task(long, setting), agents) if metric == "score" else out


def failed_by_task(long: pd.DataFrame, setting: str) -> dict[str, dict[str, int]]:
    """agent -> task -> our calls that failed after retries (left out of the task's score), where any failed."""
    rows = long[
        (long["table"] == setting)
        & (long.source == "ours")
        & (long.metric == "score")
        & long.scope.isin(TASK_IDS)
        & (long.n_failed.fillna(0) > 0)
    ]
    out: dict[str, dict[str, int]] = {}
    for r in rows.itertuples():
        out.setdefault(r.agent, {})[r.scope] = int(r.n_failed)
    return out


def _with_failed(
    out: pd.DataFrame, index: pd.Index, failed: dict[str, dict[str, int]], agents: dict[str, AgentInfo]
) -> pd.DataFrame:
    """Show the failed calls beside each task score of an agent they affected, e.g. `41.5 (2 failed)`."""
    for row, (agent, source) in enumerate(index):
        if source != "ours" or agent not in agents:
            continue
        for task, n in failed.get(agent, {}).items():
            if task in out.columns:
                out.at[row, task] = with_failed(out.at[row, task], n)
    return out


# |ours − published| above this counts as a difference (results.csv holds 4-decimal F-scores for 2-1).
REPRODUCED = 1e-6


def _differing_cells(long: pd.DataFrame, setting: str, task: str) -> list[tuple[str, float, float]]:
    """(agent, ours, published) for the models whose score on `task` differs from the published one."""
    rows = long[(long["table"] == setting) & (long.metric == "score") & (long.scope == task)]
    both = rows.pivot_table(index="agent", columns="source", values="value", aggfunc="first")
    if not {"ours", "paper"} <= set(both.columns):
        return []
    both = both.dropna(subset=["ours", "paper"])
    off = both[(both["ours"] - both["paper"]).abs() > REPRODUCED]
    return [(agent, float(r.ours), float(r.paper)) for agent, r in off.sort_index().iterrows()]


def csv_text(long: pd.DataFrame) -> str:
    """reports/lawbench.csv: the long table with `n_failed` (our failed calls; empty for the paper's rows) and
    `limit` (`labelled_rows`), and the intervals of our rows (`se`, `ci_low`, `ci_high`, `ci_method`;
    steps/lawbench/intervals.py) when `long` has them."""
    return long_csv(
        long, table="reports/lawbench.csv", digits=12, whole=("n_failed",), with_limit=True,
        with_intervals="ci_low" in long,
    )  # fmt: skip


def inputs_note(agent: str, predictions: pd.DataFrame, run: Mapping[str, Any]) -> str:
    """One line on how an agent's prompts were cut in a setting: from its predictions table (`input_truncated`,
    `input_rule`) and run.json (`input_limit`; `decoding.max_tokens`, the new tokens it was allowed)."""
    limit = run.get("input_limit") or {}
    tokens = limit.get("max_input_tokens")
    new = (run.get("decoding") or {}).get("max_tokens")  # the effective cap: lawbench.max_new_tokens or smaller
    answers = f"at most {new:,} new tokens" if new else "no cap on new tokens"
    if "input_truncated" not in predictions.columns:
        return f"Inputs of `{agent}`: sent whole (its run predates the input limit); {answers}."
    rules = ", ".join(sorted(set(predictions.input_rule))) or str(limit.get("count", "-"))
    if not tokens:
        return f"Inputs of `{agent}`: every prompt sent whole (no input limit; counted by {rules}); {answers}."
    cut = int(predictions.input_truncated.sum())
    side = limit.get("truncation", "right")
    return (
        f"Inputs of `{agent}`: {cut:,} of {len(predictions):,} prompts were over {tokens:,} tokens and were cut "
        f"({side} truncation; tokens counted by {rules}); {answers}."
    )


def render_setting(
    long: pd.DataFrame,
    deltas: pd.DataFrame,
    setting: str,
    agents: dict[str, AgentInfo],
    commit: str,
    published: list[str],
    truncated: Mapping[str, Mapping[str, int]] | None = None,
    inputs: list[str] | None = None,
) -> str:
    """reports/lawbench_<setting>.md: the tables built here, the prose in templates/report.md.j2 (`commit`: the
    data's pinned commit; `published`: the models whose published predictions were rescored; `truncated`: each
    agent's replies cut at max_tokens in this setting, by purpose, else those of `agents`; `inputs`: a line per
    agent on its prompts' cut, `inputs_note`)."""
    score_scopes = [*TASK_IDS, *LEVEL_COLUMNS, "overall"]
    abst = long[(long["table"] == setting) & (long.metric == "abstention_rate")]
    abst_tasks = [t for t in TASK_IDS if (abst[abst.scope == t].value.fillna(0) > 0).any()]
    ran = set(long[(long["table"] == setting) & (long.source == "ours")].agent)
    return render_template(
        TEMPLATES,
        "report.md.j2",
        setting=setting,
        title=setting.replace("_", "-"),
        commit=commit,
        published=published,
        scores=_pivot(long, setting, "score", score_scopes, agents),
        deltas=deltas[deltas.setting == setting].to_dict("records"),
        abstentions=_pivot(long, setting, "abstention_rate", abst_tasks, agents),
        proofreading=_differing_cells(long, setting, "2-1"),
        agents=agents,
        ran=ran,
        failed=failed_by_task(long, setting),
        content_filter_rule=CONTENT_FILTER_RULE,
        labels_rule=LABELS_RULE,
        truncated=truncated_note(truncated if truncated is not None else {a: i.truncated for a, i in agents.items()}),
        paper_table=paper_table(long, setting, agents),
        inputs=inputs or [],
    )
