"""Stage `plawbench_rubrics`: every public task and its rubric as data.

Three tables: `tasks` (one row per task: category, scenario, inputs, maximum points from the data),
`rubric_items` (one row per rubric item, see `items.py`) and `parse_issues` (what did not parse cleanly,
and how it is scored anyway). Scenarios are the 15 sub-tasks of spec §1.2: the PCA label, `consultation`,
`plaintiff` or `defendant`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from steps.plawbench.case_rubric import parse_case_analysis
from steps.plawbench.consultation_rubric import parse_consultation
from steps.plawbench.drafting_rubric import parse_drafting
from steps.plawbench.items import Parsed, issues_frame, rows_frame
from steps.plawbench.sequence import seq_class

CONSULTATION_LEVEL = "mid"  # all 18 public items are "mid" (index < 50 in the repo's generator, spec §5.1)


@dataclass(frozen=True)
class RubricTables:
    tasks: pd.DataFrame
    items: pd.DataFrame
    issues: pd.DataFrame


def _task(item_id: str, category: str, scenario: str, context: str, query: str, parsed: Parsed, **extra) -> dict:
    judged = [r for r in parsed.rows if r.judged and r.kind == "award"]
    return {
        "item_id": item_id,
        "category": category,
        "scenario": scenario,
        "context": context,
        "query": query,
        "max_points": parsed.max_points,
        "n_units": len(judged),
        "n_rows": len(parsed.rows),
        "seq_class": extra.get("seq_class", ""),
        "level": extra.get("level", ""),
        "document": extra.get("document", ""),
    }


def build_rubrics(case_analysis: pd.DataFrame, consultation: pd.DataFrame, drafting: pd.DataFrame) -> RubricTables:
    """Parse the three ingest tables (spec §2) into tasks, rubric items and parse issues."""
    tasks, rows, issues = [], [], []

    def keep(parsed: Parsed, task: dict) -> None:
        tasks.append(task)
        rows.extend(parsed.rows)
        issues.extend(parsed.issues)

    for r in consultation.sort_values("id").itertuples(index=False):
        parsed = parse_consultation(r.item_id, r.rubric)
        keep(
            parsed,
            _task(r.item_id, "consultation", "consultation", "", r.conversation, parsed, level=CONSULTATION_LEVEL),
        )
    for r in case_analysis.sort_values("line").itertuples(index=False):
        parsed = parse_case_analysis(r.item_id, list(r.rubrics))
        reasoning = "\n".join(b["criterion"] for b in r.rubrics if str(b["tag"]).startswith("分析"))
        keep(
            parsed,
            _task(r.item_id, "case_analysis", r.label, r.context, r.question, parsed, seq_class=seq_class(reasoning)),
        )
    for r in drafting.sort_values(["side", "id"], ascending=[False, True]).itertuples(index=False):
        parsed = parse_drafting(r.item_id, r.rubric, float(r.max_points))
        keep(
            parsed,
            _task(
                r.item_id,
                "drafting",
                r.side,
                "",
                r.conversation,
                parsed,
                document="民事起诉状" if r.side == "plaintiff" else "民事答辩状",
            ),
        )
    return RubricTables(pd.DataFrame(tasks), rows_frame(rows), issues_frame(issues))
