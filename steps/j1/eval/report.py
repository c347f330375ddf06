"""reports/j1.md: J1-EVAL's tables in the paper's layout, our numbers with the paper's beside them.

Cells are ×100 with one decimal, as printed in the paper. † marks a cell the proxy judge (a scripted model)
scored at least in part; ‡ a cell that leaves out judge failures (counted in "Judge health"); `(n failed)` the
instances of a cell that model calls failing after retries left out or affected; "—" a cell with no value.
The paper's "-" (the model failed the task) is printed as "-".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import pandas as pd

from steps.j1.envs.catalog import environments, paper_sizes
from steps.j1.envs.provenance import HEAD, Provenance, provenance_line
from steps.j1.eval.paper import (
    PAPER_ENVIRONMENT,
    PAPER_JUDGE,
    PAPER_REPEATS_ENVIRONMENT,
    models,
    paper_long,
    paper_names,
)
from steps.j1.eval.tables import Results
from steps.reports.agents import AgentInfo, RunInfo
from steps.reports.long import long_columns
from steps.reports.markdown import CONTENT_FILTER_RULE, LABELS_RULE, truncated_note, with_failed
from steps.reports.paper_models import match_paper_model
from steps.reports.prose import render_template
from steps.stats.cells import half_width

TEMPLATES = Path(__file__).parent / "templates"

# The layout from the environments' registrations: their order, metrics (Table 3's columns) and paper sizes.
SCOPES = tuple(environments())
TABLE3 = tuple((code, metric) for code, env in environments().items() for metric in env.metrics)
PAPER_SIZES = paper_sizes()
COURTS = tuple(code for code, env in environments().items() if env.court)
AVERAGES = ("AVG_OO", "AVG_PO", "Overall")
COMPONENT_TABLES = {  # table: (title, scope, metric/component columns)
    "table6": (
        "Table 6: CD document score components (II-2)",
        "CD",
        ("II-2/PLA", "II-2/DEF", "II-2/CLA", "II-2/EVI", "II-2/F&R"),
    ),
    "table7": ("Table 7: DD document score components (II-2)", "DD", ("II-2/RES", "II-2/DEF", "II-2/EVI")),
    "table8": ("Table 8: CI procedure components (III-1)", "CI", ("III-1/STA", "III-1/ACT", "III-1/UNI")),
    "table9": (
        "Table 9: CR procedure and penalty components (III-1, III-4; SEN and FINE lower is better)",
        "CR",
        ("III-1/STA", "III-1/ACT", "III-1/UNI", "III-4/SEN", "III-4/FINE"),
    ),
}
DIAGNOSTICS = tuple(  # III-6's precision and F1 beside its recall, III-3's partial credit
    (code, f"{metric}/{part}")
    for code, env in environments().items()
    for metric, parts in (("III-6", ("precision", "f1")), ("III-3", ("partial",)))
    if metric in env.metrics
    for part in parts
)


def groups(run: RunInfo) -> dict[str, list[str]]:
    """The repeats groups of `j1.eval.repeats` (group -> its agents' runs)."""
    return dict(run.options.get("repeats") or {})


def group_papers(run: RunInfo) -> dict[str, str | None]:
    """The paper model of each repeats group: `j1.eval.paper_names`, else the model of the group's name."""
    explicit = run.options.get("paper_names") or {}
    names = paper_names()
    return {g: match_paper_model(g, None, names, explicit, "j1.eval.paper_names") for g in groups(run)}


def cell_key(metric: str, component: str) -> str:
    return f"{metric}/{component}" if component else metric


def ours_long(results: Results) -> pd.DataFrame:
    """Every number of ours in the long layout: table, agent, scope, metric, value, n, n_failed (instances that
    failed model calls left out or affected), n_unparsable (those unparsable judge answers did), judge, proxy,
    plus the judge-proxy flag and the judge-failure count that the Markdown marks."""
    c = results.cells.assign(
        metric=[cell_key(m, k) for m, k in zip(results.cells.metric, results.cells.component, strict=True)]
    )
    table = pd.Series("diagnostics", index=c.index)
    table[c.metric.isin([m for _, m in TABLE3])] = "table3"
    for name, (_, scope, metrics) in COMPONENT_TABLES.items():
        table[(c.scope == scope) & c.metric.isin(metrics)] = name
    cells = c.assign(table=table)
    averages = results.averages.assign(
        table="table3", judge_proxy=results.averages.proxy & (results.averages.judge != "rule"), n_judge_failed=0
    )
    turns = results.turns.assign(table="table10", judge_proxy=False, n_judge_failed=0)
    failures = results.failures.assign(
        table="failures", judge_proxy=False, n_judge_failed=0, n_failed=0, n_unparsable=0
    )
    frames = [cells, averages, turns, failures]
    if len(results.repeats):
        r = results.repeats
        for stat in ("mean", "std"):
            frames.append(
                r.assign(
                    table=f"repeats_{stat}", value=r[stat], judge_proxy=r.proxy & (r.judge != "rule"), n_judge_failed=0
                )
            )
    columns = [
        "table",
        "agent",
        "scope",
        "metric",
        "value",
        "n",
        "n_failed",
        "n_unparsable",
        "judge",
        "proxy",
        "judge_proxy",
        "n_judge_failed",
    ]
    return pd.concat([f[columns] for f in frames], ignore_index=True)


def paper_rows(agents: dict[str, AgentInfo], run: RunInfo) -> pd.DataFrame:
    """The paper's numbers: under our agent's name for an agent named after a paper model (and under a repeats
    group's name for Tables 11-12), under the paper's model name otherwise."""
    paper = paper_long()
    out = []
    for model, rows in paper.groupby("model", sort=False):
        names = [a.name for a in agents.values() if a.paper_model == model] or [model]
        repeat_names = [g for g, p in group_papers(run).items() if p == model] or [model]
        for name in names:
            out.append(rows[~rows["table"].str.startswith("repeats")].assign(agent=name))
        for name in repeat_names:
            out.append(rows[rows["table"].str.startswith("repeats")].assign(agent=name))
    frame = pd.concat(out, ignore_index=True)
    n = frame.scope.map(PAPER_SIZES).fillna(sum(PAPER_SIZES.values())).astype(int)
    return frame.assign(n=n, judge=PAPER_JUDGE, proxy=False, source="paper")


def csv_frame(results: Results, agents: dict[str, AgentInfo], run: RunInfo) -> pd.DataFrame:
    """reports/j1.csv: ours and the paper's, long (values on the paper's 0-100 scale; turns as counted)."""
    ours = ours_long(results).assign(source="ours")
    out = pd.concat([ours, paper_rows(agents, run)], ignore_index=True).assign(benchmark="j1")
    out["value"] = out.value.astype(float).round(6)
    out["n"] = out.n.astype("Int64")
    out["n_failed"] = out.n_failed.astype("Int64")  # empty on the paper's rows
    out["n_unparsable"] = out.n_unparsable.astype("Int64")
    return out[long_columns(with_unparsable=True)]


# ---------------------------------------------------------------- Markdown
def _fmt(
    value: float | None, *, proxy: bool = False, excluded: bool = False, digits: int = 1, half: float | None = None
) -> str:
    """`71.2`, with `± 3.1` (half its 95 % interval) where it has one, then † (the proxy judge) and ‡ (judge
    failures left out)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    plus = "" if half is None or (isinstance(half, float) and math.isnan(half)) else f" ± {float(half):.{digits}f}"
    return f"{float(value):.{digits}f}{plus}" + ("†" if proxy else "") + ("‡" if excluded else "")


def _label(agent: str, agents: dict[str, AgentInfo], table: str = "table3") -> str:
    """The agent's label in `table` of reports/j1.csv (the tables of counts, judge health and topics describe
    Table 3's cells)."""
    info = agents.get(agent)
    return info.label_in(table) if info else agent


def headline(results: Results) -> dict[str, object]:
    """Each agent's Overall as Table 3 shows it (×100, one decimal), for the aggregate stage's summary."""
    overall = results.averages[(results.averages.metric == "Overall") & (results.averages.scope == "overall")]
    return {r.agent: _fmt(r.value) for r in overall.itertuples()}


def _lookup(long: pd.DataFrame) -> dict[tuple[str, str, str, str], dict]:
    return {(r["table"], r["agent"], r["scope"], r["metric"]): r for r in long.to_dict("records")}


def _paper_cell(paper: dict, table: str, model: str, scope: str, metric: str) -> str:
    row = paper.get((table, model, scope, metric))
    if row is None:
        return ""
    return "-" if pd.isna(row["value"]) else f"{row['value']:.1f}"


def _wide(
    long: pd.DataFrame,
    table: str,
    columns: list[tuple[str, str]],
    agents: dict[str, AgentInfo],
    names: list[str],
    *,
    paper_table: str | None = None,
    digits: int = 1,
) -> pd.DataFrame:
    """Rows of ours (and the paper's, beside each agent named after a paper model) for the given cells."""
    ours = _lookup(long)
    paper = _lookup(paper_long().rename(columns={"model": "agent"}))
    scopes = {s for s, _ in columns if s in PAPER_SIZES} or set(PAPER_SIZES)  # the environments the row averages
    rows = []
    for name in names:
        cells = [ours.get((table, name, scope, metric)) for scope, metric in columns]
        n = sum(agents[name].sizes.get(s, 0) for s in scopes) if name in agents else 0
        rows.append(
            [_label(name, agents, table), n or "—"]
            + [
                with_failed(
                    _fmt(
                        c["value"],
                        proxy=bool(c["judge_proxy"]),
                        excluded=c["n_judge_failed"] > 0,
                        digits=digits,
                        half=half_width(c.get("ci_low"), c.get("ci_high")),
                    ),
                    c["n_failed"],
                    unparsable=c["n_unparsable"],
                )
                if c
                else "—"
                for c in cells
            ]
        )
        model = agents[name].paper_model if name in agents else None
        if model and paper_table:
            rows.append(
                [f"↳ paper: {model}", sum(PAPER_SIZES[s] for s in scopes)]
                + [_paper_cell(paper, paper_table, model, s, m) for s, m in columns]
            )
    header = ["Agent", "n"] + [f"{s} {m}" if s != "overall" else m for s, m in columns]
    return pd.DataFrame(rows, columns=header)


def _sizes(agents: dict[str, AgentInfo]) -> tuple[list[tuple[str, int, int]], bool]:
    """(environment, our instances, the paper's) in the first agent's run (every agent runs the same ones), and
    whether agents ran on different numbers of instances or a limited run."""
    first = next(iter(agents.values()), None)
    sizes = [(s, first.sizes.get(s, 0) if first else 0, PAPER_SIZES[s]) for s in SCOPES]
    differ = len({tuple(sorted(a.sizes.items())) for a in agents.values()}) > 1
    return sizes, differ or any(a.limit is not None for a in agents.values())


def _counts(results: Results, agents: dict[str, AgentInfo], names: list[str]) -> pd.DataFrame:
    """Per agent and Table 3 cell: instances averaged, of them failed tasks (and, where any agent outgrew its
    context, how many of those it ended so: the model's limit), and what was left out and why."""
    c = results.cells[results.cells.component == ""]
    at_limit = bool(c.n_context_exceeded.sum())
    rows = []
    for name in names:
        for scope, metric in TABLE3:
            hit = c[(c.agent == name) & (c.scope == scope) & (c.metric == metric)]
            if hit.empty:
                continue
            r = hit.iloc[0]
            limit = [int(r.n_context_exceeded)] if at_limit else []
            rows.append(
                [
                    _label(name, agents),
                    scope,
                    metric,
                    int(r.n),
                    int(r.n_failed_task),
                    *limit,
                    int(r.n_skipped),
                    int(r.n_judge_failed),
                    int(r.n_dialogue_failed),
                ]
            )
    limit_column = ["of them at the agent's context limit"] if at_limit else []
    return pd.DataFrame(
        rows,
        columns=[
            "Agent",
            "Env",
            "Metric",
            "n averaged",
            "of which failed tasks",
            *limit_column,
            "skipped",
            "judge failures",
            "broken dialogues",
        ],
    )


def _count(value: dict, name: str, scope: str, metric: str) -> int:
    return value.get((name, scope, metric), 0)


def _failures(results: Results, agents: dict[str, AgentInfo], names: list[str]) -> pd.DataFrame:
    f = results.failures
    value = {(r["agent"], r["scope"], r["metric"]): int(r["value"]) for r in f.to_dict("records")}
    causes = ("single_turn_collapse", "missing_final_objective", "missing_addressee", "role_omission")
    rows = []
    for name in names:
        for scope in COURTS:
            trials = value.get((name, scope, "trials"))
            if trials is None:
                continue
            pick = partial(_count, value, name, scope)
            invalid = pick("invalid")
            reasons = ", ".join(
                f"{r.replace('_', ' ')} {pick('invalid/' + r)}"
                for r in ("no_judgment", "single_turn_collapse", "too_short")
            )
            rows.append(
                [_label(name, agents, "failures"), scope, trials, pick("broken"), f"{invalid} ({reasons})"]
                + [f"{pick('cause/' + c)} / {pick('invalid+cause/' + c)}" for c in causes]
            )
    return pd.DataFrame(
        rows,
        columns=[
            "Agent",
            "Court",
            "trials",
            "broken (excluded)",
            "invalid, UNI = 0 (why)",
            "single-turn collapse",
            "missing final objective",
            "missing addressee",
            "role omission",
        ],
    )


def _in_agent_order(frame: pd.DataFrame, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    order = {name: i for i, name in enumerate(agents)}
    return frame.sort_values("agent", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)


def _judge_health(results: Results, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    h = _in_agent_order(results.judge_health, agents)
    return pd.DataFrame(
        {
            "Agent": [_label(a, agents) for a in h.agent],
            "Env": h.scope,
            "Metric": h.metric,
            "judge": h.judge,
            "asked": h.asked,
            "failed": h.failed,
            "call failed": h.call_failed,
            "unparsable": h.unparsable,
            "out of range": h.out_of_range,
        }
    )


def _topics(results: Results, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    t = _in_agent_order(results.topics, agents)
    return pd.DataFrame(
        {
            "Agent": [_label(a, agents) for a in t.agent],
            "Env": t.scope,
            "Metric": t.metric,
            "topics": t.topics,
            "scored": t.scored,
            "skipped (never raised)": t.skipped,
            "judge failures": t.judge_failed,
        }
    )


def _repeats(results: Results, run: RunInfo, intervals: pd.DataFrame | None = None) -> pd.DataFrame:
    """Tables 11-12: each repeats group's mean ± sample std over its runs, then (with `intervals`, the groups'
    `repeats_mean` cells from steps/j1/eval/intervals.py repeats_cells) a row of each mean's 95 % interval, which
    includes the run-to-run variance, and the paper's row where a paper model corresponds."""
    r = results.repeats
    bounds = {} if intervals is None else {
        (x["agent"], x["scope"], x["metric"]): (x["ci_low"], x["ci_high"]) for x in intervals.to_dict("records")
    }  # fmt: skip
    paper = _lookup(paper_long().rename(columns={"model": "agent"}))
    rows: list[Sequence[object]] = []
    papers = group_papers(run)
    for group, members in groups(run).items():
        mine = r[r.agent == group]
        cells = {(x["scope"], x["metric"]): x for x in mine.to_dict("records")}
        row: list[object] = [f"{group} ({len(members)} runs)"]
        for scope, metric in TABLE3:
            x = cells.get((scope, metric))
            row.append(
                "—"
                if x is None or pd.isna(x["mean"])
                else with_failed(
                    f"{x['mean']:.1f} ± {0.0 if pd.isna(x['std']) else x['std']:.1f}"
                    + ("†" if x["proxy"] and x["judge"] != "rule" else ""),
                    x["n_failed"],
                    unparsable=x["n_unparsable"],
                )
            )
        rows.append(row)
        if bounds:
            rows.append(["↳ 95 % interval (runs' spread in)"] + [_bounds(bounds.get((group, *c))) for c in TABLE3])
        model = papers.get(group)
        if model:
            rows.append(
                [f"↳ paper: {model}"]
                + [
                    ""
                    if (m := paper.get(("repeats_mean", model, s, k))) is None
                    else f"{m['value']:.1f} ± {paper[('repeats_std', model, s, k)]['value']:.1f}"
                    for s, k in TABLE3
                ]
            )
    return pd.DataFrame(rows, columns=["Group"] + [f"{s} {m}" for s, m in TABLE3])


def _bounds(pair: tuple[float, float] | None) -> str:
    """`[low, high]` of an interval, or '' without one."""
    if pair is None or pd.isna(pair[0]) or pd.isna(pair[1]):
        return ""
    return f"[{float(pair[0]):.1f}, {float(pair[1]):.1f}]"


def _provenance(sizes: list[tuple[str, int, int]], provenance: Provenance | None) -> str:
    """The instances' provenance line (from the instances table), or, without one, the sizes the runs show."""
    if provenance is not None:
        return provenance_line(provenance)
    listed = ", ".join(f"{scope} {ours} ({paper})" for scope, ours, paper in sizes)
    return (
        f"{HEAD} (unreleased; reports/instances.md says how "
        f"they differ). Instances run, ours (paper, Table 5): {listed}."
    )


def render(
    results: Results,
    agents: dict[str, AgentInfo],
    run: RunInfo,
    provenance: Provenance | None = None,
    intervals: pd.DataFrame | None = None,
    repeat_intervals: pd.DataFrame | None = None,
) -> str:
    """The whole report: the tables built here, the prose in templates/report.md.j2; `provenance` (from the
    instances table) opens it with where the instances come from and how they differ from J1's; `intervals`
    (steps.stats.cells.cell_intervals) puts `± half the 95 % interval` beside our numbers; `repeat_intervals`
    (the groups' `repeats_mean` cells) gives Tables 11-12 a row of intervals."""
    long = ours_long(results)
    if intervals is not None:
        keys = ["agent", "table", "scope", "metric"]
        long = long.merge(intervals[[*keys, "ci_low", "ci_high"]], on=keys, how="left")
    names = list(agents)
    main = _wide(long, "table3", [*TABLE3, *(("overall", a) for a in AVERAGES)], agents, names, paper_table="table3")
    components = [
        (title, _wide(long, name, [(scope, m) for m in metrics], agents, names, paper_table=name))
        for name, (title, scope, metrics) in COMPONENT_TABLES.items()
    ]
    sizes, differ = _sizes(agents)
    cells = long[(long["table"] == "table3") & (long.scope != "overall")]
    text = render_template(
        TEMPLATES,
        "report.md.j2",
        agents=agents,
        run=run,
        options=run.options,
        provenance=_provenance(sizes, provenance),
        differ=differ,
        paper_environment=PAPER_ENVIRONMENT,
        paper_judge=PAPER_JUDGE,
        paper_repeats_environment=PAPER_REPEATS_ENVIRONMENT,
        paper_instances=sum(PAPER_SIZES.values()),
        caps=", ".join(f"{code} {env.max_turns}" for code, env in environments().items()),
        main=_paper_overall(main, agents),
        paper=_paper_table3(agents),
        components=components,
        turns=_wide(long, "table10", [(s, "turns") for s in SCOPES], agents, names, paper_table="table10"),
        failures=_failures(results, agents, names),
        counts=_counts(results, agents, names),
        judge_health=_judge_health(results, agents),
        diagnostics=_wide(long, "diagnostics", list(DIAGNOSTICS), agents, names),
        topics=_topics(results, agents),
        groups=groups(run),
        repeats=_repeats(results, run, repeat_intervals) if groups(run) else None,
        normalised=NORMALISED[str(run.options.get("penalty_normaliser"))],
        failed_calls=int(cells.n_failed.sum()),
        unparsable=int(cells.n_unparsable.sum()),
        content_filter_rule=CONTENT_FILTER_RULE,
        labels_rule=LABELS_RULE,
        truncated=truncated_note({name: a.truncated for name, a in agents.items()}),
    )
    return text.rstrip("\n") + "\n"


def _paper_table3(agents: dict[str, AgentInfo]) -> pd.DataFrame:
    paper = _lookup(paper_long().rename(columns={"model": "agent"}))
    columns = [*TABLE3, ("overall", "AVG_OO"), ("overall", "AVG_PO")]
    header = ["Model"] + [f"{s} {m}" if s != "overall" else m for s, m in columns]
    mine: dict[str, list[str]] = {}
    for info in agents.values():
        if info.paper_model:
            mine.setdefault(info.paper_model, []).append(info.name)
    rows = [
        [f"**{model}** ↳ {', '.join(mine[model])}" if model in mine else model]
        + [_paper_cell(paper, "table3", model, s, m) for s, m in columns]
        for model in models()
    ]
    return pd.DataFrame(rows, columns=header)


def _paper_overall(main: pd.DataFrame, agents: dict[str, AgentInfo]) -> pd.DataFrame:
    """The paper rows' Overall, from their printed AVG_OO and AVG_PO."""
    for i, row in main.iterrows():
        if str(row["Agent"]).startswith("↳ paper") and row["AVG_OO"] not in ("", "-") and row["AVG_PO"]:
            main.loc[i, "Overall"] = f"{(float(row['AVG_OO']) + float(row['AVG_PO'])) / 2:.1f}"
    return main


NORMALISED = {"ratio": "d/(1+d)", "clip": "min(d, 1)"}
