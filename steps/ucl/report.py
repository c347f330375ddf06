"""reports/ucl.md: the paper-style UCL-Bench tables, rendered from the long table of steps/ucl/sql/ucl_long.sql."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from steps.reports.agents import AgentInfo, RunInfo
from steps.reports.labels import size_phrase
from steps.reports.markdown import CONTENT_FILTER_RULE, LABELS_RULE, truncated_note, with_failed, with_interval
from steps.reports.prose import render_template
from steps.stats.cells import half_width
from steps.ucl.paper import paper_models
from steps.ucl.tasks import BLOOM_LEVELS, PAPER_TASK_IDS, SCENARIOS, TASKS

TEMPLATES = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class Notes:
    """The figures of the report's notes: items without answer guidance (and their tasks), each agent's excluded
    verdicts and why, closing user messages with words besides 咨询结束."""

    hint_free: int = 0
    hint_free_tasks: tuple[str, ...] = ()
    excluded: dict[str, dict[str, int]] = field(default_factory=dict)  # agent -> failure kind -> verdicts
    closing_extra: int = 0


def note_figures(items: pd.DataFrame, verdicts: pd.DataFrame, dialogues: pd.DataFrame) -> Notes:
    """The notes' figures from the items judged, every agent's verdicts and every dialogue."""
    no_hints = items[items.evaluation_hints.str.strip() == ""]
    excluded = {
        str(agent): {str(k): int(v) for k, v in rows.failure.value_counts().sort_index().items()}
        for agent, rows in verdicts[verdicts.failure.notna()].groupby("agent")
    }
    return Notes(
        hint_free=len(no_hints),
        hint_free_tasks=tuple(sorted(set(no_hints.task))),
        excluded=excluded,
        closing_extra=int(dialogues.closing_extra.notna().sum()),
    )


@dataclass(frozen=True)
class ReportInfo:
    """What the report states besides its numbers: the agents (`sizes`: items per task each answered), the
    reference, the setting (`run.environment` is the simulated user; `run.options` is params.ucl with its
    `exchanges`), the public items per task in the data, the data's repository and commit, the notes' figures, the
    prompts the runs recorded."""

    agents: list[AgentInfo]
    reference: AgentInfo
    run: RunInfo
    items_per_task: int
    data: str
    notes: Notes = field(default_factory=Notes)
    prompts: str = ""  # which prompts the runs read (steps/ucl/prompts.py `runs_label`)


def items_per_task(agent: AgentInfo) -> int:
    """The most items of one task the agent's run answered: the `n` of its rows."""
    return max(agent.sizes.values(), default=0)


def _fmt(value: float | None, digits: int = 1) -> float | None:
    return None if value is None or pd.isna(value) else round(float(value), digits)


def _cell(long: pd.DataFrame, agent: str, scope: str, metric: str, source: str = "ours") -> float | None:
    hit = long[(long.agent == agent) & (long.scope == scope) & (long.metric == metric) & (long.source == source)]
    return hit.value.iloc[0] if len(hit) else None


def _failed(long: pd.DataFrame, agent: str, scope: str, metric: str) -> int:
    """The verdicts (or hint scores) of a number that model calls failing after retries left out."""
    hit = long[(long.agent == agent) & (long.scope == scope) & (long.metric == metric) & (long.source == "ours")]
    return int(hit.n_failed.fillna(0).iloc[0]) if len(hit) else 0


def _unparsable(long: pd.DataFrame, agent: str, scope: str, metric: str) -> int:
    """The verdicts (or hint scores) of a number left out because the judge's answer did not parse."""
    hit = long[(long.agent == agent) & (long.scope == scope) & (long.metric == metric) & (long.source == "ours")]
    return int(hit.n_unparsable.fillna(0).iloc[0]) if len(hit) else 0


def _ours(long: pd.DataFrame, agent: str, scope: str, metric: str, digits: int = 1) -> object:
    """Our number, rounded, `± half its 95 % interval` where it has one, with `(n failed)` beside it when failed
    calls left some of its verdicts out, and `(n unparsable)` when judge answers that did not parse did."""
    value = _fmt(_cell(long, agent, scope, metric), digits)
    shown = with_interval(value, _half(long, agent, scope, metric), digits)
    return with_failed(shown, _failed(long, agent, scope, metric), unparsable=_unparsable(long, agent, scope, metric))


def _half(long: pd.DataFrame, agent: str, scope: str, metric: str) -> float | None:
    """Half our number's 95 % interval (`ci_low`, `ci_high`), None where it has none."""
    if "ci_low" not in long:
        return None
    hit = long[(long.agent == agent) & (long.scope == scope) & (long.metric == metric) & (long.source == "ours")]
    return half_width(hit.ci_low.iloc[0], hit.ci_high.iloc[0]) if len(hit) else None


def failed_verdicts(long: pd.DataFrame, info: ReportInfo) -> dict[str, int]:
    """The verdicts failed model calls cost each agent (the 22 tasks of the paper, and CC apart); only agents
    that lost some."""
    lost = {
        a.name: sum(_failed(long, a.name, scope, "verdicts_excluded") for scope in ("overall", "CC"))
        for a in info.agents
    }
    return {name: n for name, n in lost.items() if n}


def unparsable_verdicts(long: pd.DataFrame, info: ReportInfo) -> dict[str, int]:
    """The verdicts each agent lost to judge answers that did not parse (as `failed_verdicts`); only agents that
    lost some."""
    lost = {
        a.name: sum(_unparsable(long, a.name, scope, "verdicts_excluded") for scope in ("overall", "CC"))
        for a in info.agents
    }
    return {name: n for name, n in lost.items() if n}


def _known(value: object) -> bool:
    return value is not None and not pd.isna(value)


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
    table = "hint_score" if metric == "hint_score" else "win_rate"  # the table of reports/ucl.csv
    rows = [
        [a.label_in(table), items_per_task(a), *(_ours(long, a.name, s, metric) for s in scopes)] for a in info.agents
    ]
    df = pd.DataFrame(rows, columns=["model", "n", *headers])
    return df.astype({h: object for h in headers}).where(df.notna(), None)


def paper_table(info: ReportInfo) -> pd.DataFrame:
    """The paper's Table 3, every model (about 40 private items per task, ChatGPT reference, GPT-4 judge); the
    model an agent corresponds to (`agents.<name>.paper_model`, or a matching name) is bold, named `↳ agent`."""
    mine: dict[str, list[str]] = {}
    for a in info.agents:
        if a.paper_model:
            mine.setdefault(a.paper_model, []).append(a.name)
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
    for a in info.agents:
        excluded = _cell(long, a.name, "overall", "verdicts_excluded")
        total = long[(long.agent == a.name) & (long.scope == "overall") & (long.metric == "verdicts_excluded")]
        rows.append(
            [
                a.label_in("win_rate"),
                items_per_task(a),
                *(_ours(long, a.name, "overall", m) for m in metrics.values()),
                f"{int(excluded or 0)} of {int(total.n.iloc[0]) if len(total) else 0}",
            ]
        )
    return pd.DataFrame(rows, columns=["model", "n", *metrics, "verdicts excluded"]).astype(object)


def _turns(long: pd.DataFrame, info: ReportInfo) -> pd.DataFrame:
    # dialogues that ended where the assistant's request outgrew its context: a column only where one did
    limit = bool((long.metric == "dialogues_at_context_limit").any())
    rows = []
    for a in [*info.agents, info.reference]:
        label = a.label_in("turns") + (" (reference)" if a is info.reference else "")
        at_limit = [_fmt(_cell(long, a.name, "overall", "dialogues_at_context_limit") or 0, 0)] if limit else []
        rows.append(
            [
                label,
                items_per_task(a),
                _fmt(_cell(long, a.name, "overall", "mean_rounds"), 2),
                _fmt(_cell(long, a.name, "overall", "cap_rate")),
                *at_limit,
                _fmt(_cell(long, a.name, "overall", "dialogues_failed"), 0),
                _fmt(_cell(long, a.name, "overall", "r_rounds_points"), 2),
                _fmt(_cell(long, a.name, "overall", "p_rounds_points"), 4),
            ]
        )
    columns = ["model", "n", "mean rounds", "at the cap (%)", *(["at the context limit"] if limit else [])]
    columns += ["failed dialogues", "r(rounds, item points)", "p"]
    return pd.DataFrame(rows, columns=columns).astype(object)


def render(long: pd.DataFrame, info: ReportInfo) -> str:
    """reports/ucl.md: the tables built here, the prose in templates/report.md.j2."""
    tasks = [*PAPER_TASK_IDS, "overall", "CC"]
    task_headers = [*PAPER_TASK_IDS, "AVG", "CC"]
    groups = [*BLOOM_LEVELS, *SCENARIOS]
    across = long[(long.agent == "all agents") & (long.metric == "r_rounds_win_rate")]
    r, p = (_cell(long, "all agents", "overall", m) for m in ("r_rounds_win_rate", "p_rounds_win_rate"))
    return render_template(
        TEMPLATES,
        "report.md.j2",
        info=info,
        options=info.run.options,
        sizes=size_phrase([items_per_task(a) for a in info.agents] or [info.items_per_task], "public items per task"),
        win_rates=_wide(long, info, "win_rate", tasks, task_headers),
        paper=paper_table(info),
        tasks=TASKS,
        groups=_wide(long, info, "win_rate", groups, groups),
        orders=_orders(long, info),
        hint_scores=_wide(long, info, "hint_score", tasks, task_headers),
        turns=_turns(long, info),
        r=r if _known(r) else None,
        p=p if _known(p) else None,
        correlated=int(across.n.iloc[0]) if len(across) else 0,
        failed=failed_verdicts(long, info),
        unparsable=unparsable_verdicts(long, info),
        content_filter_rule=CONTENT_FILTER_RULE,
        labels_rule=LABELS_RULE,
        truncated=truncated_note({a.name: a.truncated for a in [*info.agents, info.reference]}),
    )
