"""The report section of the opt-in paper-penalty mode (`plawbench.t1_penalties: paper`): T1 and Overall with
the paper's Table 8 penalties beside the default ones, what the penalties did, and the findings by type."""

from __future__ import annotations

import pandas as pd

from steps.plawbench.penalties import PENALTY_TYPES, ZERO_TYPES
from steps.reports.markdown import markdown_table, with_failed

RULES = (
    "A second judge call per consultation answer (our template `steps/judges/templates/plawbench_penalties.j2`) "
    "lists the passages that Table 8 penalises, each with its type, points and the quoted text; the code adds "
    "up: every finding costs its points within its type's range (low risk, mild bias, typos or a missing year "
    '1–2; moderate harm, discrimination 3–6), vague "are you hiding something" questions cost 3 each and 6 at '
    "most, the same quote counts once per type, the deductions come off the rubric score and the task is "
    "floored at 0; a red flag (illegal or harmful guidance, hate, inducing fraud or speculation stated as fact) "
    "sets the task to 0. An answer whose penalty judgement failed is excluded and counted, never scored 0. "
    "The caps beyond the vague-question one and the flooring are ours (the paper is silent)."
)


def _pct(value: float | None) -> float | None:
    return None if value is None or pd.isna(value) else round(float(value) * 100, 2)


def scores_table(long: pd.DataFrame) -> pd.DataFrame:
    """Per agent: default T1 and Overall beside the paper-penalty ones (single-turn), and the multi-turn T1."""
    ours = long[long.source == "ours"]

    def get(table: str, scope: str, metric: str, agent: str, column: str = "value") -> float | None:
        """A number of `ours` (a rate, a count of failed calls or of items), or None when it has none."""
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


def render_penalties(
    long: pd.DataFrame, answers: pd.DataFrame, findings: pd.DataFrame, *, proxy: bool = False
) -> list[str]:
    """The section's lines."""
    lines = [
        "## Ours, opt-in: T1 with the paper's Table 8 penalties (`plawbench.t1_penalties: paper`)",
        "",
        "Not the paper's protocol as released: the paper's Table 8 defines these penalties, but neither its "
        "released rubrics nor its repository's judge apply them, and the default columns above do not. "
        + RULES
        + (
            " The proxy judge flags only vague probes (questions with cue phrases such as 隐瞒 or 没告诉我); "
            "it cannot judge harm, bias or truthfulness."
            if proxy
            else ""
        ),
        "",
        markdown_table(scores_table(long)),
        "",
        "`n` = single-turn consultation answers with a penalised score. What the penalties did (per agent and "
        "variant; `penalty_judge_failed` are excluded, `other_failed` are the rubric judge's or the agent's):",
        "",
        markdown_table(answers),
        "",
    ]
    if findings.empty:
        lines += ["The judge flagged nothing.", ""]
    else:
        labels = {**{c: t.label for c, t in PENALTY_TYPES.items()}, **{c: v[1] for c, v in ZERO_TYPES.items()}}
        shown = findings.assign(label=findings.code.map(labels))
        lines += [
            "Findings by type (`points_counted` after the cap and duplicate quotes; each finding's quote is "
            "in `judgements.parquet`, evidence key `paper_penalties`):",
            "",
            markdown_table(shown),
            "",
        ]
    return lines
