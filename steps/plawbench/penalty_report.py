"""The report section of the opt-in paper-penalty mode (`plawbench.t1_penalties: paper`): T1 and Overall with
the paper's Table 8 penalties beside the default ones, what the penalties did, and the findings by type."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from steps.plawbench.penalties import PENALTY_TYPES, ZERO_TYPES
from steps.reports.markdown import with_failed
from steps.reports.prose import render_template

TEMPLATES = Path(__file__).parent / "templates"


def _pct(value: object) -> float | None:
    return None if value is None or pd.isna(value) else round(float(value) * 100, 2)


def scores_table(long: pd.DataFrame) -> pd.DataFrame:
    """Per agent: default T1 and Overall beside the paper-penalty ones (single-turn), and the multi-turn T1."""
    ours = long[long.source == "ours"]

    def get(table: str, scope: str, metric: str, agent: str, column: str = "value") -> object:
        hit = ours[(ours["table"] == table) & (ours.scope == scope) & (ours.metric == metric) & (ours.agent == agent)]
        return hit[column].iloc[0] if len(hit) and column in hit else None

    def cell(table: str, scope: str, metric: str, agent: str) -> object:
        """The rate ×100, with `(n failed)` where failed model calls left answers out."""
        return with_failed(_pct(get(table, scope, metric, agent)), get(table, scope, metric, agent, "n_failed"))

    rows = []
    for agent in ours[ours["table"] == "paper_penalty_optin"].agent.unique():
        n = get("paper_penalty_optin", "overall", "T1", agent, "n")
        rows.append(
            {
                "agent": agent,
                "T1 (default)": cell("table3", "overall", "T1", agent),
                "T1 paper-penalty (ours, opt-in)": cell("paper_penalty_optin", "overall", "T1", agent),
                "Overall (default)": cell("table3", "overall", "Overall", agent),
                "Overall paper-penalty (ours, opt-in)": cell("paper_penalty_optin", "overall", "Overall", agent),
                "T1 multi-turn (default)": cell("multiturn", "consultation_multiturn", "T1", agent),
                "T1 multi-turn paper-penalty (ours, opt-in)": cell(
                    "paper_penalty_optin", "consultation_multiturn", "T1", agent
                ),
                "n": None if n is None or pd.isna(n) else int(n),
            }
        )
    return pd.DataFrame(rows).astype(object)


def render_penalties(long: pd.DataFrame, answers: pd.DataFrame, findings: pd.DataFrame, *, proxy: bool = False) -> str:
    """The section (templates/penalties.md.j2), ending with a blank line."""
    labels = {**{c: t.label for c, t in PENALTY_TYPES.items()}, **{c: v[1] for c, v in ZERO_TYPES.items()}}
    shown = findings.assign(label=findings.code.map(labels)) if not findings.empty else findings
    return render_template(
        TEMPLATES, "penalties.md.j2", scores=scores_table(long), answers=answers, findings=shown, proxy=proxy
    )
