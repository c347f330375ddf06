"""A 95 % bootstrap interval for each agent's overall win rate (spec ucl-bench §6.11).

With 10 public items per task one task's win rate has a standard error of up to ~16 points, the 22-task
average about 3.4. The interval resamples items with replacement within each task (both orders of an item
stay together), recomputes every task's pooled win rate and their unweighted mean, and takes the 2.5th and
97.5th percentiles. A fixed seed makes it reproducible.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from steps.ucl.tasks import PAPER_TASK_IDS, TASKS

REPS, SEED = 2000, 20241127
_PAPER_KEYS = {t.key for t in TASKS if not t.extra}


def overall_interval(verdicts: pd.DataFrame, *, reps: int = REPS, seed: int = SEED) -> pd.DataFrame:
    """Rows (agent, low, high, reps) for every agent with a valid verdict in each of the 22 tasks."""
    valid = verdicts[verdicts.failure.isna() & verdicts.task.isin(_PAPER_KEYS)]
    rows = []
    for agent, mine in valid.groupby("agent", sort=True):
        per_item = mine.groupby(["task", "item_id"]).value.agg(["sum", "count"])
        if per_item.index.get_level_values("task").nunique() < len(PAPER_TASK_IDS):
            continue
        rng = np.random.default_rng(seed)
        rates = []
        for _, items in per_item.groupby(level="task", sort=True):
            sums, counts = items["sum"].to_numpy(), items["count"].to_numpy()
            draw = rng.integers(0, len(items), size=(reps, len(items)))
            rates.append(100 * sums[draw].sum(axis=1) / counts[draw].sum(axis=1))
        overall = np.mean(rates, axis=0)
        low, high = np.percentile(overall, [2.5, 97.5])
        rows.append({"agent": agent, "low": float(low), "high": float(high), "reps": reps})
    return pd.DataFrame(rows, columns=["agent", "low", "high", "reps"])
