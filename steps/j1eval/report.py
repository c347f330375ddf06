"""reports/j1.md: J1-EVAL's tables in the paper's layout, our numbers with the paper's beside them.

Cells are ×100 with one decimal, as printed in the paper. † marks a cell the proxy judge (a scripted model)
scored at least in part; ‡ a cell that leaves out judge failures (counted in "Judge health"); `(n failed)` the
instances of a cell that model calls failing after retries left out or affected; "—" a cell with no value.
The paper's "-" (the model failed the task) is printed as "-".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

import pandas as pd

from steps.j1.environments import PAPER_SIZES
from steps.j1eval.paper import (
    PAPER_ENVIRONMENT,
    PAPER_JUDGE,
    PAPER_REPEATS_ENVIRONMENT,
    models,
    paper_long,
)
from steps.j1eval.tables import Results
from steps.reports.labels import agent_label
from steps.reports.markdown import CONTENT_FILTER_RULE, markdown_table, with_failed

SCOPES = ("KQ", "LC", "CD", "DD", "CI", "CR")
TABLE3 = (
    ("KQ", "I-1"),
    ("KQ", "I-2"),
    ("LC", "I-1"),
    ("LC", "I-2"),
    ("CD", "II-1"),
    ("CD", "II-2"),
    ("DD", "II-1"),
    ("DD", "II-2"),
    ("CI", "III-1"),
    ("CI", "III-2"),
    ("CI", "III-5"),
    ("CI", "III-6"),
    ("CR", "III-1"),
    ("CR", "III-3"),
    ("CR", "III-4"),
    ("CR", "III-5"),
    ("CR", "III-6"),
)
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
DIAGNOSTICS = (
    ("CI", "III-6/precision"),
    ("CI", "III-6/f1"),
    ("CR", "III-6/precision"),
    ("CR", "III-6/f1"),
    ("CR", "III-3/partial"),
)


@dataclass(frozen=True)
class AgentInfo:
    name: str
    model: str
    scripted: bool
    paper: str | None  # the paper's model this agent corresponds to (agents.<name>.paper_model, or its name)
    limit: int | None = None  # instances its run was limited to (run.json `limit`): rows say `[limit N]`
    instances: dict[str, int] = field(default_factory=dict)  # scenario -> instances its run holds (rows' `n`)


@dataclass(frozen=True)
class RunInfo:
    environment: str
    environment_scripted: bool
    judge: str
    judge_proxy: bool
    sizes: dict[str, int]  # instances per environment in the runs
    options: dict[str, object]
    groups: dict[str, list[str]] = field(default_factory=dict)
    group_papers: dict[str, str | None] = field(default_factory=dict)


def cell_key(metric: str, component: str) -> str:
    return f"{metric}/{component}" if component else metric


def ours_long(results: Results) -> pd.DataFrame:
    """Every number of ours in the long layout: table, agent, scope, metric, value, n, n_failed (instances that
    failed model calls left out or affected), judge, proxy, plus the judge-proxy flag and the judge-failure count
    that the Markdown marks."""
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
    failures = results.failures.assign(table="failures", judge_proxy=False, n_judge_failed=0, n_failed=0)
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
        names = [a.name for a in agents.values() if a.paper == model] or [model]
        repeat_names = [g for g, p in run.group_papers.items() if p == model] or [model]
        for name in names:
            out.append(rows[~rows["table"].str.startswith("repeats")].assign(agent=name))
        for name in repeat_names:
            out.append(rows[rows["table"].str.startswith("repeats")].assign(agent=name))
    frame = pd.concat(out, ignore_index=True)
    n = frame.scope.map(PAPER_SIZES).fillna(sum(PAPER_SIZES.values())).astype(int)
    return frame.assign(n=n, judge=PAPER_JUDGE, proxy=False, source="paper")


CSV_COLUMNS = ["benchmark", "table", "agent", "scope", "metric", "value", "n", "n_failed", "judge", "proxy", "source"]


def csv_frame(results: Results, agents: dict[str, AgentInfo], run: RunInfo) -> pd.DataFrame:
    """reports/j1.csv: ours and the paper's, long (values on the paper's 0-100 scale; turns as counted)."""
    ours = ours_long(results).assign(source="ours")
    out = pd.concat([ours, paper_rows(agents, run)], ignore_index=True).assign(benchmark="j1")
    out["value"] = out.value.astype(float).round(6)
    out["n"] = out.n.astype("Int64")
    out["n_failed"] = out.n_failed.astype("Int64")  # empty on the paper's rows
    return out[CSV_COLUMNS]


# ---------------------------------------------------------------- Markdown
def _fmt(value: float | None, *, proxy: bool = False, excluded: bool = False, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{float(value):.{digits}f}" + ("†" if proxy else "") + ("‡" if excluded else "")


def _label(agent: str, agents: dict[str, AgentInfo]) -> str:
    info = agents.get(agent)
    return agent_label(agent, info.scripted, info.limit) if info else agent


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
        n = sum(agents[name].instances.get(s, 0) for s in scopes) if name in agents else 0
        rows.append(
            [_label(name, agents), n or "—"]
            + [
                with_failed(
                    _fmt(c["value"], proxy=bool(c["judge_proxy"]), excluded=c["n_judge_failed"] > 0, digits=digits),
                    c["n_failed"],
                )
                if c
                else "—"
                for c in cells
            ]
        )
        model = agents[name].paper if name in agents else None
        if model and paper_table:
            rows.append(
                [f"↳ paper: {model}", sum(PAPER_SIZES[s] for s in scopes)]
                + [_paper_cell(paper, paper_table, model, s, m) for s, m in columns]
            )
    header = ["Agent", "n"] + [f"{s} {m}" if s != "overall" else m for s, m in columns]
    return pd.DataFrame(rows, columns=header)


def _header(agents: dict[str, AgentInfo], run: RunInfo) -> list[str]:
    env = f"`{run.environment}`" + (" (scripted)" if run.environment_scripted else "")
    judge = f"`{run.judge}`" + (" (proxy judge)" if run.judge_proxy else "")
    sizes = ", ".join(f"{s} {run.sizes.get(s, 0)} (paper {PAPER_SIZES[s]})" for s in SCOPES)
    differ = len({tuple(sorted(a.instances.items())) for a in agents.values()}) > 1
    if differ or any(a.limit is not None for a in agents.values()):
        sizes += (
            " at most; agents ran on different numbers of instances (each row's `n`; `[limit N]`: a run limited to N)"
        )
    listed = "; ".join(
        f"{a.name} = `{a.model}`"
        + (" [scripted]" if a.scripted else "")
        + (f" → paper row {a.paper}" if a.paper else "")
        for a in agents.values()
    )
    lines = [
        "# J1-EVAL: legal agents in the J1-ENVS environments",
        "",
        f"Ours: environment {env}; judge {judge}; instances {sizes}.",
        f"Agents: {listed}.",
        f"Paper rows (↳): environment {PAPER_ENVIRONMENT}, judge {PAPER_JUDGE} (Tables 3, 6-10); repeated runs "
        f"in an environment driven by {PAPER_REPEATS_ENVIRONMENT} (Tables 11-12).",
        "",
    ]
    if run.judge_proxy or run.environment_scripted or any(a.scripted for a in agents.values()):
        lines += [
            "> **Offline stand-ins.** Rows marked [scripted] come from deterministic scripted agents, and a scripted "
            "environment or the proxy judge makes every number of ours a bound check, not a measurement: the "
            "oracle reads the ground truth (near the maximum), the null agent says nothing (the minimum). † marks "
            "a cell scored at least in part by the proxy judge (character-bigram overlap, cue phrases), which "
            "orders an oracle above a null agent and does not measure legal quality.",
            "",
        ]
    return lines


def _section(title: str, note: str, table: pd.DataFrame) -> list[str]:
    return (
        [f"## {title}", "", note, "", markdown_table(table), ""]
        if note
        else [f"## {title}", "", markdown_table(table), ""]
    )


def _counts(results: Results, agents: dict[str, AgentInfo], names: list[str]) -> pd.DataFrame:
    """Per agent and Table 3 cell: instances averaged, of them failed tasks, and what was left out and why."""
    c = results.cells[results.cells.component == ""]
    rows = []
    for name in names:
        for scope, metric in TABLE3:
            hit = c[(c.agent == name) & (c.scope == scope) & (c.metric == metric)]
            if hit.empty:
                continue
            r = hit.iloc[0]
            rows.append(
                [
                    _label(name, agents),
                    scope,
                    metric,
                    int(r.n),
                    int(r.n_failed_task),
                    int(r.n_skipped),
                    int(r.n_judge_failed),
                    int(r.n_dialogue_failed),
                ]
            )
    return pd.DataFrame(
        rows,
        columns=[
            "Agent",
            "Env",
            "Metric",
            "n averaged",
            "of which failed tasks",
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
        for scope in ("CI", "CR"):
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
                [_label(name, agents), scope, trials, pick("broken"), f"{invalid} ({reasons})"]
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


def _repeats(results: Results, run: RunInfo) -> pd.DataFrame:
    r = results.repeats
    paper = _lookup(paper_long().rename(columns={"model": "agent"}))
    rows: list[Sequence[object]] = []
    for group in run.groups:
        mine = r[r.agent == group]
        cells = {(x["scope"], x["metric"]): x for x in mine.to_dict("records")}
        row: list[object] = [f"{group} ({len(run.groups[group])} runs)"]
        for scope, metric in TABLE3:
            x = cells.get((scope, metric))
            row.append(
                "—"
                if x is None or pd.isna(x["mean"])
                else with_failed(
                    f"{x['mean']:.1f} ± {0.0 if pd.isna(x['std']) else x['std']:.1f}"
                    + ("†" if x["proxy"] and x["judge"] != "rule" else ""),
                    x["n_failed"],
                )
            )
        rows.append(row)
        model = run.group_papers.get(group)
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


def render(results: Results, agents: dict[str, AgentInfo], run: RunInfo) -> str:
    """The whole report."""
    long = ours_long(results)
    names = list(agents)
    lines = _header(agents, run)
    main = _wide(long, "table3", [*TABLE3, *(("overall", a) for a in AVERAGES)], agents, names, paper_table="table3")
    lines += _section(
        "Table 3: main results (×100; III-4 lower is better)",
        (
            "AVG_OO averages the eight outcome cells (KQ/LC I-1 I-2, CD/DD II-2, CI III-2, CR III-3) and AVG_PO "
            "the eight process cells (CD/DD II-1, CI/CR III-1 III-5 III-6); III-4 is in neither; Overall = "
            "(AVG_OO + AVG_PO) / 2 (the paper's Fig. 3). The paper prints no Overall: its column is derived from "
            "the printed averages."
        ),
        _paper_overall(main, agents),
    )
    lines += _section(
        "The paper's Table 3, every model",
        (
            f'As published (environment and judge {PAPER_ENVIRONMENT}, {sum(PAPER_SIZES.values())} instances); "-" '
            "means the model failed the task and counts as 0 in the paper's averages. `n` in our rows: the instances "
            "an agent ran. Bold: the model an agent corresponds to (`agents.<name>.paper_model` in params.yaml, or a "
            "matching name)."
        ),
        _paper_table3(agents),
    )
    for name, (title, scope, metrics) in COMPONENT_TABLES.items():
        lines += _section(title, "", _wide(long, name, [(scope, m) for m in metrics], agents, names, paper_table=name))
    lines += _section(
        "Table 10: average turns per environment",
        (
            "A turn is one utterance of the party that drives the dialogue and the reply it triggers. Caps: KQ 15, "
            "LC 10, CD 20, DD 15, CI 50, CR 35."
        ),
        _wide(long, "table10", [(s, "turns") for s in SCOPES], agents, names, paper_table="table10"),
    )
    lines += _section(
        "Court failures",
        (
            "Per court: trials broken outside the agent's control (excluded), invalid trials (UNI = 0: no final "
            "judgment, a single-turn collapse, or fewer exchanges than the minimum; every metric of the case is then 0 "
            "and III-4 is 1), and the paper's four failure causes (App. F.4) as trials showing the cause / of them "
            "invalid."
        ),
        _failures(results, agents, names),
    )
    lines += _section(
        "What each cell averages",
        (
            "n averaged counts the instances in a Table 3 cell, failed tasks included at the paper's value (0; III-4: "
            "1). Left out and counted: skipped (nothing to compare: no topic of the kind raised, no provision cited by "
            "the court), judge failures (no valid judge answer after one repair round), broken dialogues (a failed "
            "model call or a silent environment role)."
        ),
        _counts(results, agents, names),
    )
    lines += _section(
        "Judge health",
        (
            "Judge questions per cell and how they failed; a failed question is excluded from its cell (‡), never "
            "scored 0. I-2 topic and II-2 component failures leave the topic or component out; a II-2 component "
            "failure leaves the document's II-2 unscored (the mean of a subset is another metric)."
        ),
        _judge_health(results, agents),
    )
    diag = _wide(long, "diagnostics", list(DIAGNOSTICS), agents, names)
    lines += _section(
        "Diagnostics",
        (
            "III-6 is recall over the court's (law, article) pairs, as the reference code computes it; precision "
            "and F1 beside it. III-3 requires every charge of the court; partial is the share found."
        ),
        diag,
    )
    lines += _section(
        "Topic coverage (KQ, LC)",
        (
            "Topics of each kind over all instances, how many were scored and how many were skipped because the client "
            "never raised them (j1.eval.strict_topics scores them 0)."
        ),
        _topics(results, agents),
    )
    if run.groups:
        lines += _section(
            "Tables 11-12: repeated runs (mean ± sample std over the runs)",
            (
                f"Groups from j1eval.repeats: {'; '.join(g + ' = ' + ', '.join(m) for g, m in run.groups.items())}. "
                f"The paper's repeats ran in an environment driven by {PAPER_REPEATS_ENVIRONMENT}."
            ),
            _repeats(results, run),
        )
    lines += _choices(run, failed_calls_note(long))
    return "\n".join(lines).rstrip("\n") + "\n"


def _paper_table3(agents: dict[str, AgentInfo]) -> pd.DataFrame:
    paper = _lookup(paper_long().rename(columns={"model": "agent"}))
    columns = [*TABLE3, ("overall", "AVG_OO"), ("overall", "AVG_PO")]
    header = ["Model"] + [f"{s} {m}" if s != "overall" else m for s, m in columns]
    mine: dict[str, list[str]] = {}
    for info in agents.values():
        if info.paper:
            mine.setdefault(info.paper, []).append(info.name)
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


def failed_calls_note(long: pd.DataFrame) -> list[str]:
    """How failed model calls count, with their total; nothing when no call failed."""
    cells = long[(long["table"] == "table3") & (long.scope != "overall")]
    total = int(cells.n_failed.sum())
    if not total:
        return []
    return [
        f"- Failed model calls (after retries, accepted under `llm.max_failed_fraction`): {total} instance-cells "
        "of Table 3 lost or were affected by one, shown as `(n failed)` beside each number they touch (the "
        "averages sum their cells'; Table 10 counts the dialogues a failed call ended early). A dialogue that "
        "broke on a failed call (j1_simulate, data/j1/runs/<agent>/usage.parquet) is left out of every metric of "
        "its instance (j1.eval.call_failed = exclude) and a failed judge call (judge_usage.parquet) leaves out what "
        f"it judged; neither is ever scored 0. As for refusals: {CONTENT_FILTER_RULE}."
    ]


def _choices(run: RunInfo, failed: list[str] | None = None) -> list[str]:
    o = run.options
    return [
        "## How the numbers are made",
        "",
        "- Scores are per instance, averaged over the instances of an environment, ×100 (spec j1-envs §5.2).",
        '- Failed tasks count as the paper counts its "-": an agent that produced no document (CD, DD), no final '
        "judgment, a single-turn collapse or too short a trial (CI, CR; UNI = 0) scores 0 on every metric of the "
        "case, and III-4 (SEN, FINE) scores 1; an agent that falls silent in KQ/LC scores 0 on the topics it left.",
        f"- Left out and counted: judge failures (never 0), instances with nothing to compare, and dialogues broken "
        f"outside the agent's control (j1.eval.call_failed = {o.get('call_failed')}).",
        f"- I-1/I-2: topics the client never raised are {'scored 0' if o.get('strict_topics') else 'skipped'} "
        "(j1.eval.strict_topics); a binary topic's first definitive 是/否 decides it, a conditional answer alone "
        "earns 0.5. I-2 scores a provision topic by rule (law and article cited) and a phrase topic with the "
        "pointwise judge (0-10, /10).",
        "- II-1 = Seq × Label over the template's labels (complaint 5, defence 3); II-2 is the mean of its "
        "components: party particulars by exact match, the rest with the pointwise judge.",
        f"- III-1 = UNI × (STA + ACT) / 2 from the two-pass procedure judge; UNI needs a final judgment, at least "
        f"{o.get('min_exchanges')} exchanges and no single-turn collapse.",
        f"- III-4 = mean of SEN and FINE, each d normalised as {NORMALISED[str(o.get('penalty_normaliser'))]} "
        "with d = |ln(1+ŷ) − ln(1+y)| (months, yuan). The paper gives no formula, so absolute "
        "III-4 values may not match its tables; a court sentence of life or death leaves SEN out.",
        "- III-6 is recall over the court's (law, article) pairs; III-3 needs every charge of the court.",
        "- reports/j1.csv holds every number here in long form (source ours | paper; a paper row carries the name "
        "of the agent named after its model, otherwise the paper's model name).",
        *(failed or []),
        "",
    ]
