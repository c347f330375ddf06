"""Long result tables (the report CSVs: benchmark, table, agent, scope, metric, value, n, …, source) as HTML
tables: our rows first, the paper's rows under them, cells optionally linking to the dialogues behind them. Our
rows are named by their labels (`steps.reports.labels.twin_labels`: `[scripted]`, `[limit N]`, the protocol), as
every other output names them."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from html import escape

import pandas as pd

Link = Callable[[str, str, str], str | None]  # (agent, scope, metric) -> an href for our cells, or None


def fmt(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, int | float):
        v = float(value)
        if v.is_integer() and abs(v) >= 1000:
            return str(int(v))
        return f"{v:.3f}" if abs(v) < 1.5 and not v.is_integer() else f"{v:.1f}"  # rates keep 3 decimals
    return escape(str(value))


def _present(value: object) -> bool:
    """A number, not a missing cell."""
    return isinstance(value, int | float) and not (isinstance(value, float) and math.isnan(value))


def intervals(
    rows: pd.DataFrame, categories: list[str], key: Callable[[object], str], *, labels: Mapping[str, str] | None = None
) -> dict[str, list[tuple[float, float] | None]]:
    """Per series of ours (named as `series` names it), each category's 95 % interval (ci_low, ci_high) where the
    rows have one."""
    if "ci_low" not in rows or "ci_high" not in rows:
        return {}
    out: dict[str, list[tuple[float, float] | None]] = {}
    ours = rows[rows.source == "ours"]
    for agent in dict.fromkeys(ours.agent.fillna("")):
        found: dict[str, tuple[float, float]] = {
            key(r): (float(r.ci_low), float(r.ci_high))
            for r in ours[ours.agent == agent].itertuples(index=False)
            if _present(r.ci_low) and _present(r.ci_high)
        }
        if found:
            out[(labels or {}).get(agent, agent)] = [found.get(c) for c in categories]
    return out


def _n(value: float | None) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(int(value))


def _columns(rows: pd.DataFrame) -> list[tuple[str, str]]:
    return list(dict.fromkeys(zip(rows.scope.fillna(""), rows.metric.fillna(""), strict=True)))


def html_table(
    rows: pd.DataFrame,
    *,
    link: Link | None = None,
    columns: list[tuple[str, str]] | None = None,
    caption: str = "",
    labels: Mapping[str, str] | None = None,
) -> str:
    """One result table: a row per (source, agent), ours first, a column per (scope, metric) in CSV order; our
    rows named by `labels` (agent -> its label in this table; else the name).

    A cell of ours scored (partly) by a scripted model or the proxy judge carries †; its tooltip gives `n` and its
    95 % interval where it has one.
    """
    if rows.empty:
        return ""
    columns = columns or _columns(rows)
    scopes = {s for s, _ in columns}
    label = (lambda s, m: m) if len(scopes) == 1 else (lambda s, m: f"{s} {m}".strip())
    rows = rows.assign(agent=rows.agent.fillna(""), scope=rows.scope.fillna(""), metric=rows.metric.fillna(""))
    cells = {(r.source, r.agent, r.scope, r.metric): r for r in rows.itertuples(index=False)}
    order = [("ours", a) for a in dict.fromkeys(rows[rows.source == "ours"].agent)]
    order += [("paper", a) for a in dict.fromkeys(rows[rows.source == "paper"].agent)]
    head = "".join(f"<th>{escape(label(s, m))}</th>" for s, m in columns)
    out = [
        f'<table class="results"><caption>{escape(caption)}</caption>' if caption else '<table class="results">',
        f"<thead><tr><th>agent</th>{head}</tr></thead><tbody>",
    ]
    for source, agent in order:
        name = escape((labels or {}).get(agent, agent) if source == "ours" else agent) if agent else "(data)"
        th = f'<th class="paper">↳ {name} (paper)</th>' if source == "paper" else f"<th>{name}</th>"
        tds = []
        for scope, metric in columns:
            r = cells.get((source, agent, scope, metric))
            if r is None:
                tds.append("<td></td>")
                continue
            text = fmt(r.value) + ("†" if source == "ours" and bool(r.proxy) else "")
            n = _n(r.n)
            low, high = getattr(r, "ci_low", None), getattr(r, "ci_high", None)
            ci = f"95 % CI {fmt(low)}–{fmt(high)}" if _present(low) and _present(high) else ""
            notes = "; ".join(x for x in (f"n = {n}" if n else "", ci) if x)
            tip = f' title="{notes}"' if notes else ""
            href = link(agent, scope, metric) if link and source == "ours" else None
            inner = f'<a href="{escape(href)}">{text}</a>' if href else text
            tds.append(f"<td{tip}>{inner}</td>")
        cls = ' class="paper"' if source == "paper" else ""
        out.append(f"<tr{cls}>{th}{''.join(tds)}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def series(
    rows: pd.DataFrame,
    categories: list[str],
    key: Callable[[object], str],
    *,
    paper_agents: list[str] | None = None,
    labels: Mapping[str, str] | None = None,
) -> list[tuple[str, list[float | None]]]:
    """Chart series from long rows: one per agent of ours, named by `labels` (agent -> its label), then the named
    paper agents, valued per category."""
    out = []
    for source, agents in (
        ("ours", list(dict.fromkeys(rows[rows.source == "ours"].agent.fillna("")))),
        ("paper", paper_agents or []),
    ):
        for agent in agents:
            mine = rows[(rows.source == source) & (rows.agent == agent)]
            if mine.empty:
                continue
            values = {key(r): float(r.value) for r in mine.itertuples(index=False) if pd.notna(r.value)}
            name = (labels or {}).get(agent, agent) if source == "ours" else f"{agent} (paper)"
            out.append((name, [values.get(c) for c in categories]))
    return out
