"""reports/mile.md and its long CSV twin, from the DuckDB result rows and the paper's published numbers.

The tables are built here; the prose around them is in templates/report.md.j2.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from steps.mile.decoding import describe
from steps.mile.params import ROLES
from steps.mile.published import GOAL_METRICS, paper_long
from steps.reports.agents import AgentInfo, RunInfo
from steps.reports.labels import size_phrase
from steps.reports.long import long_columns
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
PAPER_JUDGE = "gpt-4o-2024-08-06"
INTERACTION_METRICS = ("INT", "PROF", "LOGI", "AVE")
ROLE_NAMES = {
    "client": "client",
    "supervisor": "supervisor",
    "classifier": "stage classifier",
    "styler": "style checker",
    "blur": "fact blurring",
}


def dialogues_of(agent: AgentInfo) -> int:
    """The dialogues an agent's run holds (its `sizes`)."""
    return int(agent.sizes.get("dialogues", 0))


def role_decodings(agents: dict[str, AgentInfo]) -> tuple[dict, str, tuple[str, ...]]:
    """The environment roles' decoding as the first agent's run recorded it (run.json `environment`), its preset,
    and the agents whose runs recorded other role decodings."""
    envs = [a.run.get("environment", {}) for a in agents.values()]
    roles = envs[0].get("roles", {}) if envs else {}
    mixed = tuple(name for name, env in zip(agents, envs, strict=True) if env.get("roles", {}) != roles)
    return roles, envs[0].get("role_decoding", "") if envs else "", mixed


def decoding(agents: dict[str, AgentInfo]) -> dict:
    """The header's decoding figures: per environment role, per lawyer, and the agents whose runs differ."""
    roles, preset, mixed = role_decodings(agents)
    return {
        "preset": preset,
        "roles": [(ROLE_NAMES[r], describe(roles[r]) or "defaults") for r in ROLES if r in roles],
        "lawyers": [
            (a.name, describe(a.run["decoding"]) or "defaults") for a in agents.values() if a.run.get("decoding")
        ],
        "mixed": mixed,
    }


def csv_frame(ours: pd.DataFrame) -> pd.DataFrame:
    """Our long rows and the paper's, in the shared layout (values on the paper's 0–100 scale); `n_failed` is the
    units (dialogues, windows) that failed model calls left out, `n_unparsable` those whose judge answer did not
    parse; both empty on the paper's rows."""
    mine = ours.assign(
        benchmark="mile",
        source="ours",
        n_failed=ours.n_failed_calls.astype("Int64"),
        n_unparsable=ours.n_unparsable.astype("Int64"),
    )
    paper = paper_long()
    judge = paper.group.map({"Human": "human"}).fillna(PAPER_JUDGE)
    scope = paper["table"].eq("consistency").map({True: "rater ", False: ""}) + paper.group.where(
        paper["table"].eq("consistency"), "overall"
    )
    theirs = paper.assign(
        benchmark="mile",
        agent=paper.model,
        scope=scope,
        n=693,
        judge=judge,
        proxy=False,
        source="paper",
        n_failed=pd.NA,
        n_unparsable=pd.NA,
    )
    columns = long_columns(with_unparsable=True)
    out = pd.concat([mine[columns], theirs[columns]], ignore_index=True)
    return out.assign(value=out.value.astype(float).round(6))


def _label(agent: str, agents: dict[str, AgentInfo], table: str) -> str:
    """The agent's label in `table` of reports/mile.csv."""
    return agents[agent].label_in(table)


def _highlight(published: pd.DataFrame, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    """The paper's rows with the model each agent corresponds to in bold, followed by `↳ agent`."""
    mine: dict[str, list[str]] = {}
    for info in agents.values():
        if info.paper_model:
            mine.setdefault(info.paper_model, []).append(info.name)
    out = published.copy()
    out["model"] = [f"**{m}** ↳ {', '.join(mine[m])}" if m in mine else m for m in out.model]
    return out


def _wide(ours: pd.DataFrame, table: str, scope: str, metrics: tuple[str, ...]) -> pd.DataFrame:
    rows = ours[(ours["table"] == table) & (ours.scope == scope) & ours.metric.isin(metrics)]
    wide = rows.pivot_table(index="agent", columns="metric", values="value", aggfunc="first", dropna=False)
    return wide.reindex(columns=list(metrics))


def _calls(
    ours: pd.DataFrame, table: str, scope: str, metrics: tuple[str, ...], count: str = "n_failed_calls"
) -> pd.DataFrame:
    """agent × metric: the units of each number that model calls failing after retries left out (`count`
    n_unparsable: those whose judge answer did not parse)."""
    rows = ours[(ours["table"] == table) & (ours.scope == scope) & ours.metric.isin(metrics)]
    wide = rows.pivot_table(index="agent", columns="metric", values=count, aggfunc="first", dropna=False)
    return wide.reindex(columns=list(metrics))


def _both(ours: pd.DataFrame, table: str, scope: str, metrics: tuple[str, ...]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`_calls` of the failed calls and of the unparsable judge answers."""
    return _calls(ours, table, scope, metrics), _calls(ours, table, scope, metrics, "n_unparsable")


def _at(counts: pd.DataFrame | None, keys: list, metric: str) -> list:
    if counts is None:
        return [0] * len(keys)
    return [counts.at[k, metric] if k in counts.index and metric in counts.columns else 0 for k in keys]


def _mark(
    table: pd.DataFrame,
    keys: list,
    calls: pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame],
    columns: dict[str, str],
) -> pd.DataFrame:
    """`(n failed)` beside each (already rounded) number of `table` whose units failed calls left out, and
    `(n unparsable)` for those unparsable judge answers left out (`calls` may be the pair of counts `_both`
    gives); `keys` are the rows' labels in `calls` (an agent, or a tuple for a multi-level index), `columns` maps
    a table column to its column in `calls`. A column with neither is left as it is."""
    failed_counts, unparsable_counts = calls if isinstance(calls, tuple) else (calls, None)
    out = table.copy()
    for column, metric in columns.items():
        failed, unparsable = _at(failed_counts, keys, metric), _at(unparsable_counts, keys, metric)
        if any(n and not pd.isna(n) for n in [*failed, *unparsable]):
            cells = zip(out[column], failed, unparsable, strict=True)
            out[column] = [with_failed(v, n, unparsable=u) for v, n, u in cells]
    return out


def _plus(
    table: pd.DataFrame, keys: list, ours: pd.DataFrame, where: tuple[str, str], columns: dict[str, str]
) -> pd.DataFrame:
    """`71.2 ± 3.1` in each (already rounded) number of `table` with an interval: `keys` are its rows' agents,
    `where` the (table, scope) of `ours` the columns' metrics come from (`columns`: table column → metric).
    Unchanged when `ours` carries no intervals."""
    if "ci_low" not in ours:
        return table
    rows = ours[(ours["table"] == where[0]) & (ours.scope == where[1])]
    half = rows.assign(half=(rows.ci_high - rows.ci_low) / 2).pivot_table(
        index="agent", columns="metric", values="half", aggfunc="first"
    )
    out = table.copy()
    for column, metric in columns.items():
        values = [half.at[k, metric] if k in half.index and metric in half.columns else None for k in keys]
        out[column] = [with_interval(v, h) for v, h in zip(out[column], values, strict=True)]
    return out


def any_failed(ours: pd.DataFrame) -> bool:
    """Whether model calls failing after retries cost any dialogue, window or grade."""
    goal = ours[(ours["table"] == "goal") & (ours.metric == "AVE")]
    windows = ours[(ours["table"] == "interaction") & (ours.scope == "overall") & (ours.metric == "AVE")]
    return bool(
        goal.n_failed_calls.fillna(0).sum()
        or windows.n_failed_calls.fillna(0).sum()
        or ours[ours["table"].isin(["consistency", "rounds", "dialogues"])].n_failed_calls.fillna(0).sum()
    )


def _n(ours: pd.DataFrame, table: str, metric: str, scope: str = "overall") -> pd.Series:
    rows = ours[(ours["table"] == table) & (ours.metric == metric) & (ours.scope == scope)]
    return rows.set_index("agent").n


def _failed(ours: pd.DataFrame, table: str) -> pd.Series:
    rows = ours[(ours["table"] == table) & (ours.scope == "overall")]
    return rows.groupby("agent").n_failed.max()


def _round(df: pd.DataFrame) -> pd.DataFrame:
    numeric = df.select_dtypes("number").columns
    out = df.copy()
    out[numeric] = out[numeric].round(2)
    return out


def goal_tables(ours: pd.DataFrame, agents: dict[str, AgentInfo]) -> dict[str, pd.DataFrame]:
    """Table 1: ours, the paper's (the agents' models in bold), ours exact beside normalised."""
    wide = _wide(ours, "goal", "overall", (*GOAL_METRICS, "AVE"))
    table = wide.reset_index()
    table.insert(1, "model", table.agent.map(lambda a: agents[a].model))
    table.insert(2, "dialogues", table.agent.map(_n(ours, "goal", "AVE")))
    table["failed"] = table.agent.map(_failed(ours, "goal")).fillna(0).astype(int)
    names = table.agent.tolist()
    table["agent"] = table.agent.map(lambda a: _label(a, agents, "goal"))
    goal_metrics = (*GOAL_METRICS, "AVE")
    plus = _plus(_round(table), names, ours, ("goal", "overall"), {m: m for m in goal_metrics})
    goal = _mark(plus, names, _both(ours, "goal", "overall", goal_metrics), {m: m for m in goal_metrics})
    paper = paper_long()
    published = paper[paper["table"] == "goal"].pivot_table(
        index=["group", "model"], columns="metric", values="value", sort=False
    )
    published = published.reindex(columns=[*GOAL_METRICS, "AVE", "AVE (7-mean)"]).reset_index()
    published = published.rename(columns={"AVE": "AVE (printed)"})
    norm_metrics = ("CLI", "CLI-norm", "DEF", "DEF-norm")
    norm = _wide(ours, "goal", "overall", norm_metrics).reset_index()
    norm_names = norm.agent.tolist()
    norm.insert(1, "dialogues", norm.agent.map(_n(ours, "goal", "CLI")))
    norm["agent"] = norm.agent.map(lambda a: _label(a, agents, "goal"))
    norm = _mark(_round(norm), norm_names, _both(ours, "goal", "overall", norm_metrics), {m: m for m in norm_metrics})
    return {"ours": goal, "published": _round(_highlight(published, agents)), "norm": norm}


def interaction_tables(ours: pd.DataFrame, agents: dict[str, AgentInfo]) -> dict[str, pd.DataFrame]:
    """Table 2: ours, the paper's, ours by cause of action."""
    wide = _wide(ours, "interaction", "overall", INTERACTION_METRICS).reset_index()
    micro = _wide(ours, "interaction", "windows", ("INT", "PROF", "LOGI"))
    wide.insert(1, "model", wide.agent.map(lambda a: agents[a].model))
    wide.insert(2, "dialogues", wide.agent.map(_n(ours, "interaction", "INT")))
    wide.insert(3, "windows", wide.agent.map(_n(ours, "interaction", "INT", "windows")))
    for m in micro.columns:
        wide[f"{m} (windows)"] = wide.agent.map(micro[m])
    wide["failed windows"] = wide.agent.map(_failed(ours, "interaction")).fillna(0).astype(int)
    names = wide.agent.tolist()
    wide["agent"] = wide.agent.map(lambda a: _label(a, agents, "interaction"))
    wide = _mark(
        _plus(_round(wide), names, ours, ("interaction", "overall"), {m: m for m in INTERACTION_METRICS}),
        names,
        _both(ours, "interaction", "overall", INTERACTION_METRICS),
        {m: m for m in INTERACTION_METRICS},
    )
    windows = {f"{m} (windows)": m for m in ("INT", "PROF", "LOGI")}
    wide = _mark(
        _plus(wide, names, ours, ("interaction", "windows"), windows),
        names,
        _both(ours, "interaction", "windows", ("INT", "PROF", "LOGI")),
        {f"{m} (windows)": m for m in ("INT", "PROF", "LOGI")},
    )
    paper = paper_long()
    published = paper[paper["table"] == "interaction"].pivot_table(
        index=["group", "model"], columns="metric", values="value", sort=False
    )
    published = published.reindex(columns=list(INTERACTION_METRICS)).reset_index()
    by_cause = ours[(ours["table"] == "interaction") & ~ours.scope.isin(["overall", "windows"])]
    cause = value_pivot(by_cause, ["agent", "scope"], "metric", sort=True)
    cause = cause.reindex(columns=list(INTERACTION_METRICS)).reset_index().rename(columns={"scope": "cause"})
    cause.insert(
        2,
        "dialogues",
        [
            int(by_cause[(by_cause.agent == a) & (by_cause.scope == s)].n.min())
            for a, s in zip(cause.agent, cause.cause, strict=True)
        ],
    )
    cause_calls = (
        by_cause.pivot_table(index=["agent", "scope"], columns="metric", values="n_failed_calls", sort=True),
        by_cause.pivot_table(index=["agent", "scope"], columns="metric", values="n_unparsable", sort=True),
    )
    cause_keys = list(zip(cause.agent, cause.cause, strict=True))
    cause["agent"] = cause.agent.map(lambda a: _label(a, agents, "interaction"))
    cause = _mark(_round(cause), cause_keys, cause_calls, {m: m for m in INTERACTION_METRICS})
    return {"ours": wide, "published": _round(_highlight(published, agents)), "causes": cause}


def consistency_tables(ours: pd.DataFrame, agents: dict[str, AgentInfo]) -> dict[str, pd.DataFrame]:
    """Table 3: ours (graded by a real judge only) and the paper's (rows are raters)."""
    paper = paper_long()
    published = (
        paper[paper["table"] == "consistency"]
        .pivot_table(index="group", columns="model", values="value", sort=False)
        .reset_index()
    )
    rows = ours[(ours["table"] == "consistency")]
    table = pd.DataFrame(
        {
            "lawyer (agent)": rows.agent.map(lambda a: _label(a, agents, "consistency")),
            "client consistency": rows.value,
            "dialogues": rows.n,
            "failed": rows.n_failed,
        }
    )
    counts = rows.set_index("agent")
    calls = (
        counts[["n_failed_calls"]],
        counts[["n_unparsable"]].set_axis(["n_failed_calls"], axis=1),
    )
    table = _mark(
        _round(table.reset_index(drop=True)), rows.agent.tolist(), calls, {"client consistency": "n_failed_calls"}
    )
    return {"ours": table, "published": _round(published)}


def dialogues_tables(ours: pd.DataFrame, agents: dict[str, AgentInfo]) -> dict[str, pd.DataFrame]:
    """Paper Table 9's layout (turns, endings, supervision) and interaction by round (Fig. 5's data)."""
    metrics = (
        "avg_turns",
        "max_turns",
        "min_turns",
        "ended_by_lawyer",
        "ended_at_cap",
        "ended_at_context_limit",
        "failed",
        "client_revisions",
        "lawyer_revisions",
        "blurred_turns",
        "unsupervised_turns",
    )
    wide = _wide(ours, "dialogues", "overall", metrics).reset_index()
    if wide.ended_at_context_limit.isna().all():  # a column only where a lawyer reached its context limit
        wide = wide.drop(columns="ended_at_context_limit")
    wide.insert(1, "dialogues", wide.agent.map(_n(ours, "dialogues", "avg_turns")))
    names = wide.agent.tolist()
    wide["agent"] = wide.agent.map(lambda a: _label(a, agents, "dialogues"))
    turn_stats = ("avg_turns", "max_turns", "min_turns")
    wide = _mark(_round(wide), names, _calls(ours, "dialogues", "overall", turn_stats), {m: m for m in turn_stats})
    rounds = ours[ours["table"] == "rounds"].assign(turn=lambda d: d.scope.str.removeprefix("turn ").astype(int))
    pivot = rounds[rounds.metric.isin(["INT", "LOGI"])].pivot_table(
        index=["agent", "metric"], columns="turn", values="value"
    )
    pivot.columns = [f"T{c}" for c in pivot.columns]
    calls, unparsable = (
        rounds[rounds.metric.isin(["INT", "LOGI"])].pivot_table(index=["agent", "metric"], columns="turn", values=count)
        for count in ("n_failed_calls", "n_unparsable")
    )
    calls.columns = [f"T{c}" for c in calls.columns]
    unparsable.columns = [f"T{c}" for c in unparsable.columns]
    keys = list(pivot.index)
    pivot = pivot.reset_index()
    pivot["agent"] = pivot.agent.map(lambda a: _label(a, agents, "rounds"))
    pivot = _mark(_round(pivot), keys, (calls, unparsable), {c: c for c in calls.columns})
    return {"dialogues": wide, "rounds": pivot}


def comparison_table(ours: pd.DataFrame, agents: dict[str, AgentInfo]) -> pd.DataFrame | None:
    """Ours beside the paper for every agent that corresponds to a paper model; None when none does."""
    paper = paper_long()
    rows = []
    for name, info in agents.items():
        match = info.paper_model
        if match is None:
            continue
        for table, metrics in (("goal", (*GOAL_METRICS, "AVE")), ("interaction", INTERACTION_METRICS)):
            for metric in metrics:
                mine = ours[
                    (ours["table"] == table)
                    & (ours.agent == name)
                    & (ours.metric == metric)
                    & (ours.scope == "overall")
                ].value
                pm = "AVE (7-mean)" if (table, metric) == ("goal", "AVE") else metric
                theirs = paper[(paper["table"] == table) & (paper.model == match) & (paper.metric == pm)].value
                if len(mine) and len(theirs):
                    rows.append(
                        {
                            "agent": info.label_in(table),
                            "paper model": match,
                            "table": table,
                            "metric": metric,
                            "ours": mine.iloc[0],
                            "paper": theirs.iloc[0],
                            "ours − paper": mine.iloc[0] - theirs.iloc[0],
                        }
                    )
    return _round(pd.DataFrame(rows)) if rows else None


def total_table(ours: pd.DataFrame, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    """(goal AVE + interaction AVE) / 2 per agent (our reading of the paper's Fig. 4)."""
    totals = ours[ours["table"] == "total"].set_index("agent")
    total = totals.value
    table = _round(pd.DataFrame({"agent": [_label(a, agents, "total") for a in total.index], "total": total.values}))
    return _mark(
        _plus(table, list(total.index), ours, ("total", "overall"), {"total": "AVE"}),
        list(total.index),
        (totals[["n_failed_calls"]], totals[["n_unparsable"]].set_axis(["n_failed_calls"], axis=1)),
        {"total": "n_failed_calls"},
    )


def render(ours: pd.DataFrame, agents: dict[str, AgentInfo], run: RunInfo, sampled_from: int) -> str:
    """reports/mile.md: `run.options` are the first run's options under params.mile; `sampled_from` the MILE
    instances in the data; each agent's `sizes` its dialogues."""
    sizes = [dialogues_of(a) for a in agents.values()]
    return render_template(
        TEMPLATES,
        "report.md.j2",
        agents=agents,
        run=run,
        options=run.options,
        sizes=size_phrase(sizes, ""),
        full=set(sizes) == {sampled_from},
        sampled_from=sampled_from,
        decoding=decoding(agents),
        proxy=any(a.scripted for a in agents.values()) or run.scripted,
        goal=goal_tables(ours, agents),
        interaction=interaction_tables(ours, agents),
        consistency=consistency_tables(ours, agents),
        comparison=comparison_table(ours, agents),
        dialogues=dialogues_tables(ours, agents),
        total=total_table(ours, agents),
        failed=any_failed(ours),
        unparsable=bool(ours.n_unparsable.fillna(0).sum()),
        content_filter_rule=CONTENT_FILTER_RULE,
        labels_rule=LABELS_RULE,
        truncated=truncated_note({name: a.truncated for name, a in agents.items()}),
    )
