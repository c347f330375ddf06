"""reports/ucl.md: the paper-style UCL-Bench tables, rendered from the long table of steps/sql/ucl_long.sql."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from steps.reports.labels import agent_label, size_phrase
from steps.reports.markdown import CONTENT_FILTER_RULE, markdown_table, with_failed
from steps.ucl.paper import paper_models
from steps.ucl.tasks import BLOOM_LEVELS, PAPER_TASK_IDS, SCENARIOS, TASKS


@dataclass(frozen=True)
class RunInfo:
    name: str
    model: str
    scripted: bool
    run_id: str
    paper_model: str | None = None
    items_per_task: int = 0  # the most items of one task this run answered (its `n` column)
    limit: int | None = None  # the items-per-task limit its run.json records (`[limit N]`)


@dataclass(frozen=True)
class ReportInfo:
    agents: list[RunInfo]
    reference: RunInfo
    user: str
    judge: str
    judge_scripted: bool
    exchanges: int
    single_round: bool
    items_per_task: int  # public items per task in the data (the agents' rows each give their own n)
    retries: int
    pointwise: bool
    data: str  # upstream repository and commit of the items
    notes: list[str] = field(default_factory=list)


def _fmt(value: float | None, digits: int = 1) -> float | None:
    return None if value is None or pd.isna(value) else round(float(value), digits)


def _cell(long: pd.DataFrame, agent: str, scope: str, metric: str, source: str = "ours") -> float | None:
    hit = long[(long.agent == agent) & (long.scope == scope) & (long.metric == metric) & (long.source == source)]
    return hit.value.iloc[0] if len(hit) else None


def _failed(long: pd.DataFrame, agent: str, scope: str, metric: str) -> int:
    """The verdicts (or hint scores) of a number that model calls failing after retries left out."""
    hit = long[(long.agent == agent) & (long.scope == scope) & (long.metric == metric) & (long.source == "ours")]
    return int(hit.n_failed.fillna(0).iloc[0]) if len(hit) else 0


def _ours(long: pd.DataFrame, agent: str, scope: str, metric: str, digits: int = 1) -> object:
    """Our number, rounded, with `(n failed)` beside it when failed calls left some of its verdicts out."""
    return with_failed(_fmt(_cell(long, agent, scope, metric), digits), _failed(long, agent, scope, metric))


def failed_calls_note(long: pd.DataFrame, info: ReportInfo) -> list[str]:
    """How failed model calls count in UCL-Bench, with the verdicts they cost each agent; nothing when none."""
    lost = {
        run.name: sum(_failed(long, run.name, scope, "verdicts_excluded") for scope in ("overall", "CC"))
        for run in info.agents
    }  # the 22 tasks of the paper, and CC apart
    lost = {name: n for name, n in lost.items() if n}
    if not lost:
        return []
    each = ", ".join(f"`{name}` {n}" for name, n in lost.items())
    return [
        f"Failed model calls (after retries, accepted under `llm.max_failed_fraction`) cost verdicts: {each}. "
        "A pair whose candidate or reference dialogue ended in a failed call (simulate) and a verdict whose "
        "judge call failed (judge_usage.parquet) are excluded, never a loss, and shown as `(n failed)` beside "
        "each win rate (and hint score) they leave out, counting verdicts (both orders of a pair); `n_failed` in "
        f"reports/ucl.csv. As for refusals: {CONTENT_FILTER_RULE}."
    ]


def _known(value: object) -> bool:
    return value is not None and not pd.isna(value)


def _p(value: object) -> str:
    return f"{value:.3g}" if _known(value) else "—"


def _label(run: RunInfo) -> str:
    return agent_label(run.name, run.scripted, run.limit)


def headline(long: pd.DataFrame, agent: str) -> dict[str, object]:
    """An agent's headline numbers exactly as the report's AVG columns show them (the unweighted mean of the 22
    task win rates, pooled over both orders, and of the 22 task hint scores; CC in neither), for the stage
    summaries of ucl_judge and ucl_report."""
    return {
        "win rate": _fmt(_cell(long, agent, "overall", "win_rate")),
        "hint score": _fmt(_cell(long, agent, "overall", "hint_score")),
    }


def headline_text(long: pd.DataFrame, agent: str) -> str:
    """`win rate AVG 56.8, hint score AVG 8.2` (`—` for a number the report leaves empty)."""
    return ", ".join(f"{k} AVG {'—' if v is None else v}" for k, v in headline(long, agent).items())


def _wide(long: pd.DataFrame, info: ReportInfo, metric: str, scopes: list[str], headers: list[str]) -> pd.DataFrame:
    rows = [
        [_label(run), run.items_per_task, *(_ours(long, run.name, s, metric) for s in scopes)] for run in info.agents
    ]
    df = pd.DataFrame(rows, columns=["model", "n", *headers])
    return df.astype({h: object for h in headers}).where(df.notna(), None)


def paper_table(info: ReportInfo) -> pd.DataFrame:
    """The paper's Table 3, every model (about 40 private items per task, ChatGPT reference, GPT-4 judge); the
    model an agent corresponds to (`agents.<name>.paper_model`, or a matching name) is bold, named `↳ agent`."""
    mine: dict[str, list[str]] = {}
    for run in info.agents:
        if run.paper_model:
            mine.setdefault(run.paper_model, []).append(run.name)
    rows = []
    for p in paper_models():
        who = mine.get(p.name)
        label = f"**{p.name}** ↳ {', '.join(who)}" if who else p.name
        rows.append([label, *(_fmt(p.cells.get(t)) for t in [*PAPER_TASK_IDS, "AVG"])])
    df = pd.DataFrame(rows, columns=["paper model", *PAPER_TASK_IDS, "AVG"])
    return df.astype(object).where(df.notna(), None)


def _orders(long: pd.DataFrame, info: ReportInfo) -> pd.DataFrame:
    metrics = {
        "pooled (Table 3)": "win_rate",
        "95% CI low": "win_rate_ci_low",
        "95% CI high": "win_rate_ci_high",
        "candidate first": "win_rate_candidate_first",
        "reference first": "win_rate_reference_first",
        "balanced (ours)": "win_rate_balanced",
        "order disagreement (%)": "order_disagreement",
    }
    rows = []
    for run in info.agents:
        excluded = _cell(long, run.name, "overall", "verdicts_excluded")
        total = long[(long.agent == run.name) & (long.scope == "overall") & (long.metric == "verdicts_excluded")]
        rows.append(
            [
                _label(run),
                run.items_per_task,
                *(_ours(long, run.name, "overall", m) for m in metrics.values()),
                f"{int(excluded or 0)} of {int(total.n.iloc[0]) if len(total) else 0}",
            ]
        )
    return pd.DataFrame(rows, columns=["model", "n", *metrics, "verdicts excluded"]).astype(object)


def _turns(long: pd.DataFrame, info: ReportInfo) -> pd.DataFrame:
    rows = []
    for run in [*info.agents, info.reference]:
        label = _label(run) + (" (reference)" if run is info.reference else "")
        rows.append(
            [
                label,
                run.items_per_task,
                _fmt(_cell(long, run.name, "overall", "mean_rounds"), 2),
                _fmt(_cell(long, run.name, "overall", "cap_rate")),
                _fmt(_cell(long, run.name, "overall", "dialogues_failed"), 0),
                _fmt(_cell(long, run.name, "overall", "r_rounds_points"), 2),
                _fmt(_cell(long, run.name, "overall", "p_rounds_points"), 4),
            ]
        )
    columns = ["model", "n", "mean rounds", "at the cap (%)", "failed dialogues", "r(rounds, item points)", "p"]
    return pd.DataFrame(rows, columns=columns).astype(object)


def _header(info: ReportInfo) -> list[str]:
    ref = info.reference
    mode = "single round" if info.single_round else f"multi-turn, at most {info.exchanges} exchanges"
    proxy = " (deterministic proxy judge)" if info.judge_scripted else ""
    return [
        "# UCL-Bench",
        "",
        f"Every win rate is against the reference model **{ref.name}** = `{ref.model}`"
        + (" [scripted]" if ref.scripted else "")
        + f" (its dialogues: run {ref.run_id}). The paper's reference is "
        "ChatGPT (gpt-3.5-turbo-1106) with a GPT-4 judge; win rates are comparable only against the same "
        "reference and judge, so the paper's rows are context, not targets.",
        "",
        f"Simulated user: `{info.user}`. Judge: `{info.judge}`{proxy}. Protocol: {mode}; "
        f"{size_phrase([r.items_per_task for r in info.agents] or [info.items_per_task], 'public items per task')}"
        f" judged per agent, of {info.items_per_task} in the public data (the paper judged about 40 private ones "
        "per task); `n` = items per task a row averages, `[limit N]` marks a run limited to N items per task. "
        f"Data: {info.data}. `[scripted]` rows are deterministic offline stand-ins (oracle: answers with the "
        "guidance; null: answers nothing) that bound the metrics, not real models.",
        "",
        "Win rate = 100 × (wins + ½ ties) / valid verdicts; AVG = the unweighted mean of the 22 task win rates "
        "(shown only when all 22 have one). Every pair is judged in both orders; `pooled` counts both "
        "orders (the paper judges one random order per pair: this is its expectation), `balanced` (ours) "
        "needs both orders for a win or a loss and counts any disagreement as a tie.",
        "",
    ]


def render(long: pd.DataFrame, info: ReportInfo) -> str:
    tasks = [*PAPER_TASK_IDS, "overall", "CC"]
    task_headers = [*PAPER_TASK_IDS, "AVG", "CC"]
    groups = [*BLOOM_LEVELS, *SCENARIOS]
    lines = [
        *_header(info),
        "## Win rate against the reference (%), the paper's Table 3 layout",
        "",
        markdown_table(_wide(long, info, "win_rate", tasks, task_headers)),
        "",
        "The paper's Table 3, every model (win rates against ChatGPT, GPT-4 judge, about 40 private items per "
        "task; bold: the model an agent corresponds to, `agents.<name>.paper_model` in params.yaml):",
        "",
        markdown_table(paper_table(info)),
        "",
        "CC = Compensation Calculation, in the public sample but not one of the 22 tasks: reported apart, in no "
        "average. Task ids: " + "; ".join(f"{t.id} {t.name}" for t in TASKS) + ".",
        "",
        "## Bloom levels and scenarios (%, unweighted means of task win rates; derived, the paper reports neither)",
        "",
        markdown_table(_wide(long, info, "win_rate", groups, groups)),
        "",
        "## Both orders (overall, %)",
        "",
        markdown_table(_orders(long, info)),
        "",
        "95% CI: bootstrap over items within each task (both orders of an item together). Order disagreement: "
        "share of pairs whose two verdicts differ for the candidate (position bias). An "
        f"answer without a valid [[1]]/[[2]]/[[3]] is asked again up to {info.retries} time(s), then excluded "
        "(never a loss), as are pairs whose dialogue ended in a failed call.",
        "",
    ]
    if info.pointwise:
        lines += [
            "## Pointwise hint score (%, ours — not the paper's protocol)",
            "",
            markdown_table(_wide(long, info, "hint_score", tasks, task_headers)),
            "",
            "Each dialogue alone against its guidance: items met 1 / partial ½ / unmet 0, level weights answer 4, "
            "must 3, should 2, encouraged 1, −0.1 per forbidden mention; items without guidance (all public "
            "6-2 items) take the judge's holistic 1–10 score as (s − 1) / 9. Independent of the reference.",
            "",
        ]
    lines += ["## Dialogue turns", "", markdown_table(_turns(long, info)), ""]
    r = _cell(long, "all agents", "overall", "r_rounds_win_rate")
    p = _cell(long, "all agents", "overall", "p_rounds_win_rate")
    across = long[(long.agent == "all agents") & (long.metric == "r_rounds_win_rate")]
    n = int(across.n.iloc[0]) if len(across) else 0
    lines.append(
        (
            f"Across agents: r(mean rounds, win rate) = {r:.2f}, p = {_p(p)} over {n} agents. "
            if _known(r)
            else f"Across agents: not computed ({n} agent(s) with both numbers; needs at least 3). "
        )
        + "The paper: r = −0.68, p = 0.005 over 15 LLMs (stronger models need fewer turns). Rounds are "
        "assistant replies (1–3); the user's closing 咨询结束 message is not a turn."
    )
    lines += ["", "## Notes", "", *[f"- {n}" for n in [*info.notes, *failed_calls_note(long, info)]]]
    for run in info.agents:
        lines.append(
            f"- Agent `{run.name}`: `{run.model}`"
            + (" (scripted)" if run.scripted else "")
            + f", run {run.run_id}"
            + (f"; compared with the paper's {run.paper_model}" if run.paper_model else "")
            + "."
        )
    return "\n".join(lines) + "\n"
