"""PLawBench's item-level scores for the intervals of its report and `jurisflow compare` (steps/stats/cells.py).

The unit is the case: a case-analysis question's case is its context (questions on one case text share it), a
drafting case is the pair plaintiff/k and defendant/k (both sides draft on the same dispute), a consultation is
its own case. Rates are pooled by points (paper Eq. 1: Σ awarded / Σ maximum), so each response is an item with
score awarded / maximum and weight maximum; the `macro` table averages the responses' rates unweighted.

- table3 (overall): T1, T2 and its four dimensions, T3/Defendant, T3/Plaintiff; T3 = (Defendant + Plaintiff) / 2
  and Overall = 0.2·T1 + 0.5·T2 + 0.3·T3 are aggregates, bootstrapped over cases;
- scenarios, sequential: T2 and its dimensions per PCA label and sequence class; multiturn: T1 of the multi-turn
  consultation; macro: T1, T2, T3/* as unweighted means of the responses' rates.

Responses that failed (a model call, an unparsable judge answer) have no score: left out, as the report does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from steps.paths import Paths
from steps.stats.cells import ITEM_COLUMNS, WEIGHT, ItemScores, Key

MACRO = ("T1", "T2", "T3/Defendant", "T3/Plaintiff")


def _metric(category: pd.Series, scenario: pd.Series, dimension: pd.Series) -> pd.Series:
    """The SQL's metric label (plawbench_rates.sql): T1, T2[/Dimension], T3/Defendant, T3/Plaintiff."""
    base = np.where(
        category == "consultation",
        "T1",
        np.where(category == "case_analysis", "T2", "T3/" + scenario.str[:1].str.upper() + scenario.str[1:]),
    )
    dim = np.where(dimension == "total", "", "/" + dimension.str[:1].str.upper() + dimension.str[1:])
    return pd.Series(base, index=category.index) + dim


def case_of(tasks: pd.DataFrame) -> pd.Series:
    """item_id → the case it belongs to (see the module's docstring)."""
    digest = tasks.context.fillna("").map(lambda t: hashlib.sha1(t.encode("utf-8")).hexdigest()[:12])
    side = tasks.item_id.str.extract(r"^(?:plaintiff|defendant)/(.+)$")[0]
    case = np.where(
        tasks.category == "case_analysis",
        "case/" + digest,
        np.where(tasks.category == "drafting", "draft/" + side.fillna(tasks.item_id), tasks.item_id),
    )
    return pd.Series(case, index=tasks.item_id.to_numpy())


def _frame(rows: pd.DataFrame, table: str, scope: pd.Series | str, weight: pd.Series | float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "agent": rows.agent.to_numpy(),
            "table": table,
            "scope": scope if isinstance(scope, str) else scope.to_numpy(),
            "metric": rows.metric.to_numpy(),
            "item": rows.item_id.to_numpy(),
            "cluster": rows.case.to_numpy(),
            "score": rows.rate.to_numpy(dtype=float),
            "kind": "mean",
            WEIGHT: weight if isinstance(weight, float) else weight.to_numpy(dtype=float),
        }
    )


def item_scores_of(scores: pd.DataFrame, tasks: pd.DataFrame) -> ItemScores:
    """The item scores from every agent's scores rows (one per response and dimension) and the tasks table."""
    s = scores[scores.dimension != "paper_penalty"].merge(tasks[["item_id", "seq_class"]], on="item_id", how="inner")
    s = s.assign(
        metric=_metric(s.category, s.scenario, s.dimension),
        case=s.item_id.map(case_of(tasks)),
        rate=(s.awarded / s.max_points).where(s.failure.isna()),
    )
    single, multi = s[s.variant == "single"], s[s.variant != "single"]
    pca = single[single.category == "case_analysis"]
    frames = [
        _frame(single, "table3", "overall", single.max_points),
        _frame(pca, "scenarios", pca.scenario, pca.max_points),
        _frame(
            pca,
            "sequential",
            pd.Series(np.where(pca.seq_class == "nonsequential", "nonsequential", "sequential"), index=pca.index),
            pca.max_points,
        ),
        _frame(multi, "multiturn", "consultation_multiturn", multi.max_points),
    ]
    totals = single[single.metric.isin(MACRO)]
    frames.append(_frame(totals, "macro", "overall", 1.0))
    items = pd.concat(frames, ignore_index=True)[[*ITEM_COLUMNS, WEIGHT]]
    t3: dict[Key, float] = {("table3", "overall", "T3/Defendant"): 0.5, ("table3", "overall", "T3/Plaintiff"): 0.5}
    aggregates: dict[Key, dict[Key, float]] = {
        ("table3", "overall", "T3"): t3,
        ("table3", "overall", "Overall"): {
            ("table3", "overall", "T1"): 0.2,
            ("table3", "overall", "T2"): 0.5,
            ("table3", "overall", "T3"): 0.3,
        },
    }
    scenarios = sorted(pca.scenario.dropna().unique())
    power: tuple[Key, ...] = (
        ("table3", "overall", "Overall"),
        ("table3", "overall", "T1"),
        ("table3", "overall", "T2"),
        ("table3", "overall", "T3"),
        *(("scenarios", str(sc), "T2") for sc in scenarios),
    )
    return ItemScores(items, aggregates, power=power, scale=1.0)


def item_scores(paths: Paths, agents: Sequence[str]) -> ItemScores:
    """`item_scores_of` read from the agents' runs (data/plawbench/runs/<agent>/) and data/plawbench/tasks.parquet."""
    scores = pd.concat(
        [pd.read_parquet(paths.run("plawbench", a) / "scores.parquet") for a in agents], ignore_index=True
    )
    tasks = pd.read_parquet(paths.data / "plawbench" / "tasks.parquet")
    return item_scores_of(scores, tasks)
