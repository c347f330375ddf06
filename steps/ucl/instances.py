"""Engine instances from the `ucl` table: one per public item (spec ucl-bench §2, §3).

The user's profile holds what the user prompt renders (the task's `want`, the information, the need, and
whether the assistant's own prompt already holds the information: the released model prompts embed it for
19 of the 23 tasks, so there the user only voices the need) plus `expects`, the key items that the scripted
user waits for (never rendered into any prompt). With `prompts="released"` the user's profile also holds its
task's released role prompt filled with the item's information and need (`role_prompt`, what templates/released_user.j2
renders; the other fields stay for the scripted user, which reads them instead of parsing a prompt). The
assistant's profile is the task's model prompt. The ground truth (every hint item) reaches only the scripted oracle.
"""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from steps.simulate.instance import Instance
from steps.ucl.hints import hint_items, key_items, levels_of
from steps.ucl.prompts import RELEASED, PromptSource, fill
from steps.ucl.scenario import END
from steps.ucl.tasks import task_of


def build_instances(items: pd.DataFrame, *, max_exchanges: int, prompts: PromptSource = RELEASED) -> list[Instance]:
    """One instance per row of the ucl table, in the table's order, capped at `max_exchanges` exchanges; the user
    reads the `prompts` source's prompt (steps/ucl/prompts.py)."""
    out = []
    for row in items.to_dict("records"):
        task = task_of(row["task"])
        hints = hint_items(levels_of(row))
        user = {
            "want": task.want,
            "information": (row["information"] or "").strip(),
            "needs": row["needs"].strip(),
            "assistant_has_information": "{information}" in (row["model_template"] or ""),
            "end": END,
            "expects": [i.text for i in key_items(hints)],
        }
        if prompts == RELEASED:  # as the original code: the record's own information and need, unstripped
            user["role_prompt"] = fill(row["role_template"], information=row["information"], needs=row["needs"])
        out.append(
            Instance(
                instance_id=row["item_id"],
                scenario="UCL",
                profiles={"user": user, "assistant": {"model_prompt": row["model_prompt"].strip()}},
                ground_truth={"task": task.id, "needs": user["needs"], "items": [asdict(i) for i in hints]},
                max_turns=max_exchanges,
            )
        )
    return out


def limit_items(items: pd.DataFrame, limit: int | None, tasks: list[str] | None = None) -> pd.DataFrame:
    """The first `limit` items of every task (by upstream id), or all, of the given tasks (None: every task); in a
    stable (task, id) order."""
    ordered = items.sort_values(["task", "id"], kind="stable")
    if tasks is not None:
        unknown = sorted(set(tasks) - set(items.task))
        if unknown:
            known = ", ".join(sorted(set(items.task)))
            raise ValueError(f"ucl.tasks: unknown {', '.join(unknown)}; the tasks are {known}")
        ordered = ordered[ordered.task.isin(tasks)]
    if limit is not None:
        ordered = ordered.groupby("task", sort=False).head(limit)
    return ordered.reset_index(drop=True)
