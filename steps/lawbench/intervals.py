"""LawBench's item-level scores for the intervals of its report and `jurisflow compare` (steps/stats/cells.py).

The unit is the item: every LawBench item is its own cluster, and the bootstrap resamples items within their task
(`stratum`), so every replicate has each task's number of items, as the benchmark has.

- a task's score (table = setting, scope = task, metric `score`): the mean of its items' values under the task's
  rule, on the CSV's 0–1 scale; accuracy items (0/1) are a share (Wilson), the other rules (ROUGE-L, F1, soft-F1,
  the prison terms' log distance) a mean (clustered SE, here s/√n with a t quantile);
- task 2-1's corpus F0.5 = (1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP) over the summed edit counts (equal to ERRANT's
  precision/recall form whenever the corpus has an edit): each item is score num/den with weight den, a `corpus`
  cell that gets the cluster bootstrap (its estimate is the unrounded F0.5; the report prints it to 4 decimals);
- the levels and `overall` are unweighted means of their tasks' scores (paper §7; lawbench_long.sql): aggregates,
  bootstrapped over the items of all their tasks at once.

Items the task's rule skips (zero-shot 2-2 `赔偿` rows, 3-4/3-5 death or life sentences) have no score and are left
out, as the score leaves them out; an agent's failed calls have no item row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from steps.lawbench.metrics.proofread.fscore import BETA
from steps.lawbench.metrics.tasks import SETTINGS, TASKS
from steps.lawbench.report import tasks_frame
from steps.paths import Paths
from steps.stats.cells import ITEM_COLUMNS, STRATUM, WEIGHT, ItemScores, Key

ITEM_SCORES = "item_scores.parquet"  # in a run's directory (steps/lawbench/stages.py)
PUBLISHED_ITEMS = "published_item_scores.parquet"  # in data/lawbench/: the rescored published predictions' items
ACCURACY = frozenset(t.task_id for t in TASKS if t.metric == "Accuracy")
PROOFREADING = "2-1"


def proofreading_terms(tp: pd.Series, fp: pd.Series, fn: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Each item's numerator and denominator of the corpus F_β = Σ num / Σ den."""
    b2 = BETA**2
    num = (1 + b2) * tp.astype(float)
    return num, num + b2 * fn.astype(float) + fp.astype(float)


def item_scores_of(items: pd.DataFrame) -> ItemScores:
    """The item scores from LawBench item rows (steps/lawbench/schemas.py LawBenchItemScores) of any agents and
    settings."""
    proof = items.task == PROOFREADING
    num, den = proofreading_terms(items.tp, items.fp, items.fn)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(den > 0, num / den.where(den > 0, 1.0), 0.0)
    score = np.where(proof, ratio, items.score.astype(float).to_numpy(dtype=float, na_value=np.nan))
    item = items.task + "/" + items.idx.astype(str)
    frame = pd.DataFrame(
        {
            "agent": items.agent.to_numpy(),
            "table": items.setting.to_numpy(),
            "scope": items.task.to_numpy(),
            "metric": "score",
            "item": item.to_numpy(),
            "cluster": item.to_numpy(),
            "score": score,
            "kind": np.where(items.task.isin(ACCURACY), "proportion", "mean"),
            WEIGHT: np.where(proof, den.to_numpy(dtype=float, na_value=0.0), 1.0),
            STRATUM: items.task.to_numpy(),
        }
    )[[*ITEM_COLUMNS, WEIGHT, STRATUM]]
    levels = tasks_frame()
    aggregates: dict[Key, dict[Key, float]] = {}
    power: list[Key] = []
    for setting in SETTINGS:
        groups = [*levels.groupby("level", sort=False).task, ("overall", levels.task)]
        for scope, tasks in groups:
            ids = list(tasks)
            aggregates[(setting, str(scope), "score")] = {(setting, t, "score"): 1 / len(ids) for t in ids}
            power.append((setting, str(scope), "score"))
    power += [("zero_shot", t.task_id, "score") for t in TASKS]
    corpus = frozenset((s, PROOFREADING, "score") for s in SETTINGS)
    return ItemScores(frame, aggregates, power=tuple(power), scale=1.0, corpus=corpus)


def read_items(paths: Paths, agents: Sequence[str]) -> pd.DataFrame:
    """The item rows of the agents' runs (data/lawbench/runs/<agent>/<setting>/item_scores.parquet; a setting not
    run is left out); an agent without a run: a paper model's rescored published predictions
    (data/lawbench/published_item_scores.parquet) if it has them, else an error."""
    frames = []
    published: pd.DataFrame | None = None
    for agent in agents:
        files = [f for s in SETTINGS if (f := paths.run("lawbench", agent, s) / ITEM_SCORES).is_file()]
        if files:
            frames += [pd.read_parquet(f) for f in files]
            continue
        where = paths.shared("lawbench") / PUBLISHED_ITEMS
        if published is None and where.is_file():
            published = pd.read_parquet(where)
        mine = published[published.agent == agent] if published is not None else None
        if mine is None or mine.empty:
            raise FileNotFoundError(f"{paths.run('lawbench', agent)}: no {ITEM_SCORES} in any setting")
        frames.append(mine)
    return pd.concat(frames, ignore_index=True)


def item_scores(paths: Paths, agents: Sequence[str]) -> ItemScores:
    """`item_scores_of` read from the agents' runs."""
    return item_scores_of(read_items(paths, agents))
