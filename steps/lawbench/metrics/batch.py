"""Scoring a long prediction table: one row per (setting, model, task), groups scored in parallel."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from steps.lawbench.metrics.result import ScoringError, TaskScore
from steps.lawbench.metrics.scoring import score_task

REQUIRED_COLUMNS = ["setting", "model", "task", "idx", "prompt", "prediction", "reference"]
SCORE_COLUMNS = ["setting", "model", "task", "score", "abstention_rate", "n"]
# One row per scored item: the task rule's value of the item (null where the rule skips it, and for 2-1, whose
# corpus F0.5 is built from the items' edit counts tp/fp/fn, null on every other task).
ITEM_COLUMNS = ["setting", "model", "task", "idx", "score", "tp", "fp", "fn"]
# Scored first so that the slowest groups do not end up alone at the tail of the pool.
_SLOW_TASKS = ("2-1", "3-8", "1-1", "3-2", "2-7")


@dataclass(frozen=True)
class _Group:
    setting: str
    model: str
    task: str
    idx: list[int]
    predictions: list[str]
    references: list[str]
    prompts: list[str] | None
    cilin_path: Path | None
    confusion_path: Path | None


def _items_in_index_order(
    setting: str, model: str, task: str, group: pd.DataFrame, contiguous: bool = True
) -> pd.DataFrame:
    """The group's rows sorted by `idx`, which must be exactly 0..n-1 (LawBench iterates str(i) for i < n).

    `contiguous=False` accepts gaps: an agent's items whose call failed are left out and counted apart
    (no score depends on an item's index; it only names items in error messages).
    """
    group = group.sort_values("idx")
    idx = group["idx"].tolist()
    duplicated = group["idx"][group["idx"].duplicated()].tolist()
    if duplicated:
        raise ScoringError(f"setting {setting} model {model} task {task}: index {duplicated[0]} occurs twice")
    if not contiguous:
        return group
    missing = sorted(set(range(max(idx) + 1)) - set(idx))
    if missing or idx[0] != 0:
        first = missing[0] if missing else 0
        raise ScoringError(f"setting {setting} model {model} task {task}: index {first} is missing")
    return group


def _score_group(group: _Group) -> TaskScore:
    try:
        result = score_task(
            group.task,
            group.predictions,
            group.references,
            group.prompts,
            cilin_path=group.cilin_path,
            confusion_path=group.confusion_path,
        )
    except ScoringError as e:
        raise ScoringError(f"setting {group.setting} model {group.model}: {e}") from None
    return result


def _groups(df: pd.DataFrame, cilin_path: Path | None, confusion_path: Path | None, contiguous: bool) -> list[_Group]:
    out = []
    for (setting, model, task), group in df.groupby(["setting", "model", "task"], sort=True):
        group = _items_in_index_order(setting, model, task, group, contiguous)
        out.append(
            _Group(
                setting,
                model,
                task,
                [int(i) for i in group["idx"]],
                group["prediction"].tolist(),
                group["reference"].tolist(),
                group["prompt"].tolist() if task == "2-1" else None,
                cilin_path,
                confusion_path,
            )
        )
    return sorted(out, key=lambda g: _SLOW_TASKS.index(g.task) if g.task in _SLOW_TASKS else len(_SLOW_TASKS))


# Fewer items than this are scored in this process: starting a pool (a process per core, each importing the scorers)
# costs more than scoring a few hundred items, as in a limited run or an estimate (docs/performance.md).
IN_PROCESS_ROWS = 2_000


def score_predictions(
    df: pd.DataFrame,
    workers: int | None = None,
    *,
    cilin_path: Path | None = None,
    confusion_path: Path | None = None,
    contiguous: bool = True,
) -> pd.DataFrame:
    """Score every (setting, model, task) group of a long prediction table.

    `df` has one row per item (setting, model, task, idx, prompt, prediction, reference); items are matched
    by `idx`, which must run 0..n-1 in every group. Groups are scored in a process pool of `workers`
    processes (default: all cores; 1, or fewer than IN_PROCESS_ROWS items, scores in this process). Returns
    setting, model, task, score, abstention_rate, n, sorted by setting, model and task. `contiguous=False`
    scores a subset of items (an agent's successful calls) without requiring every index.
    """
    scores, _ = score_predictions_and_items(
        df, workers, cilin_path=cilin_path, confusion_path=confusion_path, contiguous=contiguous
    )
    return scores


def score_predictions_and_items(
    df: pd.DataFrame,
    workers: int | None = None,
    *,
    cilin_path: Path | None = None,
    confusion_path: Path | None = None,
    contiguous: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`score_predictions`'s table and the items' scores behind it (`ITEM_COLUMNS`, one row per item, sorted by
    setting, model, task and idx): the rule's value of each item, whose mean over the non-null values is the
    task's score, and for 2-1 each item's edit counts, from whose sums the corpus F0.5 is computed."""
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ScoringError(f"prediction table lacks column(s) {', '.join(missing)}")
    groups = _groups(df, cilin_path, confusion_path, contiguous)
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(groups) <= 1 or len(df) < IN_PROCESS_ROWS:
        scored = [_score_group(g) for g in groups]
    else:
        with ProcessPoolExecutor(max_workers=min(workers, len(groups))) as pool:
            scored = list(pool.map(_score_group, groups))
    results = list(zip(groups, scored, strict=True))
    rows = [
        {"setting": g.setting, "model": g.model, "task": g.task, "score": r.score,
         "abstention_rate": r.abstention_rate, "n": r.n}
        for g, r in results
    ]  # fmt: skip
    scores = pd.DataFrame(rows, columns=SCORE_COLUMNS).sort_values(["setting", "model", "task"], ignore_index=True)
    items = pd.concat([_item_rows(g, r) for g, r in results], ignore_index=True) if results else None
    if items is None:
        items = pd.DataFrame({c: pd.Series(dtype=object) for c in ITEM_COLUMNS})
    return scores, items.sort_values(["setting", "model", "task", "idx"], ignore_index=True)


def _item_rows(group: _Group, result: TaskScore) -> pd.DataFrame:
    """The group's items: the rule's value of each (null where skipped), or 2-1's edit counts."""
    n = len(group.idx)
    counts = result.detail.get("per_item") if group.task == "2-1" else None
    if counts is not None:
        tp, fp, fn = (pd.array([c[k] for c in counts], dtype="Int64") for k in range(3))
        score = pd.array([None] * n, dtype="Float64")
    else:
        if len(result.item_scores) != n:
            raise ScoringError(f"task {group.task}: {len(result.item_scores)} item scores for {n} items")
        score = pd.array(list(result.item_scores), dtype="Float64")
        tp = fp = fn = pd.array([None] * n, dtype="Int64")
    return pd.DataFrame(
        {"setting": group.setting, "model": group.model, "task": group.task, "idx": group.idx,
         "score": score, "tp": tp, "fp": fp, "fn": fn}
    )  # fmt: skip
