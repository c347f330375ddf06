"""UCL-Bench's item-level scores for the intervals of its report and `jurisflow compare` (steps/stats/cells.py).
The unit is the item: its two verdicts (candidate first, reference first) are one cluster.

- win_rate: each verdict's points × 100 per task (both orders, clustered on the item); by order; balanced (one
  value per item from its two outcomes, as ucl_long.sql): `rate` cells, a Wilson interval at the effective sample
  size (steps/stats/intervals.py `wilson_effective`), not degenerate at 0 % or 100 %; order_disagreement: 0/100
  per item, pooled over the items of each scope (a share: Wilson);
- hint_score: each hint score × 100, clustered on the item;
- turns: each dialogue's rounds (mean_rounds) and whether it ended at the cap (cap_rate, 0/100);
- the Bloom-level, scenario and overall cells of the task metrics are the unweighted mean of their (non-extra)
  tasks' cells: aggregates, bootstrapped over items.

Unscored verdicts and hint scores (failed calls, unparsable answers) have no score: left out, as the report does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from steps.paths import Paths
from steps.stats.cells import ITEM_COLUMNS, ItemScores, Key
from steps.ucl.tasks import tasks_frame

TASK_METRICS = ("win_rate", "win_rate_candidate_first", "win_rate_reference_first", "win_rate_balanced")


def _frame(rows: pd.DataFrame, table: str, metric: str | pd.Series, scope: pd.Series, score: pd.Series, kind: str,
           item: pd.Series, cluster: pd.Series) -> pd.DataFrame:  # fmt: skip
    return pd.DataFrame(
        {
            "agent": rows.agent.to_numpy(),
            "table": table,
            "scope": scope.to_numpy(),
            "metric": metric if isinstance(metric, str) else metric.to_numpy(),
            "item": item.to_numpy(),
            "cluster": cluster.to_numpy(),
            "score": score.to_numpy(dtype=float),
            "kind": kind,
        }
    )


def _scopes(rows: pd.DataFrame) -> list[tuple[pd.DataFrame, pd.Series]]:
    """`rows` (with task_id) once per scope it is pooled into: its task; its Bloom level, scenario and `overall`
    unless its task is an extra one."""
    main = rows[~rows.extra]
    overall = pd.Series("overall", index=main.index)
    return [(rows, rows.task_id), (main, main.bloom), (main, main.scenario), (main, overall)]


def item_scores_of(verdicts: pd.DataFrame, hints: pd.DataFrame, dialogues: pd.DataFrame) -> ItemScores:
    """The item scores from every agent's verdicts and hint scores, and every run's dialogues (the reference's
    included)."""
    tasks = tasks_frame()
    v = verdicts.merge(tasks, on="task", how="inner")
    points = (v.value * 100).where(v.failure.isna())
    frames = [_frame(v, "win_rate", "win_rate", v.task_id, points, "rate", v.item_id + "#" + v.order, v.item_id)]
    frames.append(_frame(v, "win_rate", "win_rate_" + v.order, v.task_id, points, "rate", v.item_id, v.item_id))
    per_item = v.pivot_table(index=["agent", "task_id", "item_id"], columns="order", values="outcome", aggfunc="first")
    per_item = per_item.reindex(columns=["candidate_first", "reference_first"]).reset_index()
    per_item = per_item.merge(tasks, on="task_id", how="inner")
    first, second = per_item.candidate_first, per_item.reference_first
    both = first.notna() & second.notna()
    balanced = np.where(first != second, 50.0, np.where(first == "win", 100.0, np.where(first == "tie", 50.0, 0.0)))
    frames.append(
        _frame(per_item, "win_rate", "win_rate_balanced", per_item.task_id, pd.Series(balanced).where(both.to_numpy()),
               "rate", per_item.item_id, per_item.item_id)
    )  # fmt: skip
    disagree = pd.Series(np.where(first != second, 100.0, 0.0), index=per_item.index).where(both)
    scored = per_item.assign(score=disagree)
    for rows, scope in _scopes(scored):
        frames.append(
            _frame(rows, "win_rate", "order_disagreement", scope, rows.score, "percent", rows.item_id, rows.item_id)
        )
    h = hints.merge(tasks, on="task", how="inner")
    frames.append(
        _frame(h, "hint_score", "hint_score", h.task_id, (h.value * 100).where(h.failure.isna()), "mean", h.item_id,
               h.item_id)
    )  # fmt: skip
    d = dialogues.drop(columns=[c for c in ("scenario", "bloom", "extra") if c in dialogues]).merge(
        tasks, on="task", how="inner"
    )
    ok = d.failure.isna()
    d = d.assign(rounds_ok=d.rounds.astype(float).where(ok), cap=np.where(d.ended_by == "max_turns", 100.0, 0.0))
    d["cap"] = d.cap.where(ok)
    for rows, scope in _scopes(d):
        frames.append(_frame(rows, "turns", "mean_rounds", scope, rows.rounds_ok, "mean", rows.instance_id,
                             rows.instance_id))  # fmt: skip
        frames.append(_frame(rows, "turns", "cap_rate", scope, rows.cap, "percent", rows.instance_id,
                             rows.instance_id))  # fmt: skip
    items = pd.concat(frames, ignore_index=True)[ITEM_COLUMNS]
    aggregates: dict[Key, dict[Key, float]] = {}
    main = tasks[~tasks.extra]
    groups = [*main.groupby("bloom").task_id, *main.groupby("scenario").task_id, ("overall", main.task_id)]
    for scope, ids in groups:
        ids = list(ids)
        for table, metric in [*(("win_rate", m) for m in TASK_METRICS), ("hint_score", "hint_score")]:
            aggregates[(table, str(scope), metric)] = {(table, t, metric): 1 / len(ids) for t in ids}
    power: tuple[Key, ...] = (
        ("win_rate", "overall", "win_rate"),
        *((("win_rate", str(scope), "win_rate") for scope, _ in groups if scope != "overall")),
        *(("win_rate", t, "win_rate") for t in tasks.task_id),
    )
    return ItemScores(items, aggregates, power=power, scale=100.0)


def item_scores(paths: Paths, agents: Sequence[str]) -> ItemScores:
    """`item_scores_of` read from the agents' runs (data/ucl/runs/<agent>/) and the reference's dialogues."""
    runs = [paths.run("ucl", a) for a in agents]
    verdicts = pd.concat([pd.read_parquet(r / "verdicts.parquet") for r in runs], ignore_index=True)
    hints = pd.concat([pd.read_parquet(r / "hint_scores.parquet") for r in runs], ignore_index=True)
    reference = paths.reference("ucl") / "dialogues.parquet"
    extra = [reference] if reference.is_file() else []
    files = [r / "dialogues.parquet" for r in runs] + extra
    dialogues = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    return item_scores_of(verdicts, hints, dialogues)
