"""What the judges read about one item: the task line, the information, the need and the guidance.

Agent and reference dialogues are matched on the item id (a dialogue's `instance_id`; never by position). An
item whose dialogue is missing or ended in a failed call cannot be judged: it becomes an excluded row with its
reason, counted in the reports, never a loss.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from steps.ucl.hints import HintItem, hint_items, levels_of
from steps.ucl.tasks import task_of

AGENT_FAILED, REFERENCE_FAILED = "agent_failed", "reference_failed"
AGENT_MISSING, REFERENCE_MISSING = "agent_missing", "reference_missing"


@dataclass(frozen=True)
class Case:
    item_id: str
    task: str
    context: dict[str, Any]  # our judge templates' slots: task_label, want, information, needs, hints
    items: list[HintItem] = field(default_factory=list)
    # the released judge's: its task's evaluation template and the record's information, needs and
    # evaluation_hints as the data hold them (unstripped, as the original code filled them)
    released: dict[str, str] = field(default_factory=dict)

    @property
    def needs(self) -> str:
        return self.context["needs"]


def item_cases(items: pd.DataFrame) -> dict[str, Case]:
    """One judging case per item of the ucl table, by item id."""
    out = {}
    for row in items.to_dict("records"):
        task = task_of(row["task"])
        out[row["item_id"]] = Case(
            item_id=row["item_id"],
            task=row["task"],
            context={
                "task_label": task.label,
                "want": task.want,
                "information": (row["information"] or "").strip(),
                "needs": row["needs"].strip(),
                "hints": (row["evaluation_hints"] or "").strip(),
            },
            items=hint_items(levels_of(row)),
            released={
                "template": row["evaluation_template"],
                "information": row["information"] or "",
                "needs": row["needs"],
                "evaluation_hints": row["evaluation_hints"] or "",
            },
        )
    return out


def failed_dialogue(row: dict[str, Any]) -> bool:
    """Whether a dialogues-table row ended in a failed call (its `failure` is a reason, not null)."""
    return isinstance(row["failure"], str) and bool(row["failure"])


def _usable(dialogues: pd.DataFrame, failed: str) -> tuple[dict[str, str], dict[str, str]]:
    """Transcripts by item id, and the reason an item's dialogue cannot be judged."""
    ok, why = {}, {}
    for row in dialogues.to_dict("records"):
        if failed_dialogue(row):
            why[row["instance_id"]] = failed
        else:
            ok[row["instance_id"]] = row["transcript"]
    return ok, why


@dataclass(frozen=True)
class Pair:
    case: Case
    candidate: str
    reference: str


def pair_up(cases: dict[str, Case], agent: pd.DataFrame, reference: pd.DataFrame) -> tuple[list[Pair], dict[str, str]]:
    """Pairs to judge for every expected item (the keys of `cases`), and the excluded items with their reason."""
    unknown = sorted(set(agent.instance_id) - set(cases))
    if unknown:
        raise ValueError(f"{len(unknown)} dialogue(s) for items not in the ucl table, e.g. {unknown[0]!r}")
    mine, mine_why = _usable(agent, AGENT_FAILED)
    theirs, theirs_why = _usable(reference, REFERENCE_FAILED)
    pairs, excluded = [], {}
    for item_id, case in cases.items():
        if item_id not in mine:
            excluded[item_id] = mine_why.get(item_id, AGENT_MISSING)
        elif item_id not in theirs:
            excluded[item_id] = theirs_why.get(item_id, REFERENCE_MISSING)
        else:
            pairs.append(Pair(case, mine[item_id], theirs[item_id]))
    return pairs, excluded
