"""Repeated runs of one agent (`agents.<name>.repeats`): the mean over the runs, the between-run standard
deviation and an interval that includes the run-to-run variance (docs/statistics.md#repeated-runs).

Each run r of k gives its own estimate θ_r with its own standard error SE_r (Wilson, clustered or bootstrap, as a
single run's cell has). The report gives θ̄ = mean θ_r, the between-run SD s = SD(θ_r) (ddof 1, as J1's Tables
11–12 print), and

    SE² = mean_r SE_r²  +  s² / k,        interval θ̄ ± t_{ν, 1−α/2} · SE,

the within-run variance of one run plus the variance of the mean over the k runs, with ν from Welch–Satterthwaite
(ν = SE⁴ / (W² / (G − 1) + B² / (k − 1)), W and B the two parts, G the clusters of a run). The SE is never below
the runs' mean within-run SE: what varies from run to run is added to what one run already shows, never averaged
away (one particular run with a larger SE than the others', or ν above G − 1 at very few clusters, can still give
a wider interval of its own).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from steps.stats.intervals import Interval


@dataclass(frozen=True)
class Repeated:
    """A number over k runs: its interval (the estimate is the mean over runs) and the between-run SD."""

    interval: Interval
    sd: float
    runs: int


def repeated_interval(runs: Sequence[Interval], alpha: float = 0.05) -> Repeated:
    """The mean of the runs' estimates with SE² = mean SE_r² + SD²/k and a Welch–Satterthwaite t interval; without
    a standard error in some run (one cluster), the mean and SD only."""
    k = len(runs)
    if k < 2:
        raise ValueError("repeated runs need at least two runs")
    estimates = np.array([r.estimate for r in runs], dtype=float)
    mean, sd = float(estimates.mean()), float(estimates.std(ddof=1))
    n, clusters = runs[0].n, runs[0].clusters
    method = f"repeats(k={k})+{runs[0].method}"
    if any(r.se is None for r in runs):
        return Repeated(Interval(mean, None, None, None, method, n, clusters), sd, k)
    within = float(np.mean([float(r.se) ** 2 for r in runs]))  # type: ignore[arg-type]
    between = sd**2 / k
    se = math.sqrt(within + between)
    parts = within**2 / max(clusters - 1, 1) + between**2 / (k - 1)
    df = se**4 / parts if parts > 0 else math.inf
    t = float(sps.t.ppf(1 - alpha / 2, df)) if math.isfinite(df) else float(sps.norm.ppf(1 - alpha / 2))
    return Repeated(Interval(mean, se, mean - t * se, mean + t * se, method, n, clusters), sd, k)


CELL_KEYS = ["agent", "table", "scope", "metric"]


def combine_cells(per_run: Sequence[pd.DataFrame], alpha: float = 0.05) -> pd.DataFrame:
    """`cell_intervals` of each run of one or more agents (the same agents in each) as one row per agent × cell:
    the mean over the runs with `repeated_interval`'s SE and interval, and `sd_runs`, `runs`. A cell some run lacks
    is left out (its mean would not be over every run)."""
    k = len(per_run)
    stacked = pd.concat([c.assign(_run=i) for i, c in enumerate(per_run)], ignore_index=True)
    out = []
    for key, part in stacked.groupby(CELL_KEYS, sort=True):
        if part._run.nunique() != k:
            continue
        part = part.sort_values("_run")
        runs = [
            Interval(
                float(r.estimate),
                None if pd.isna(r.se) else float(r.se),
                None if pd.isna(r.ci_low) else float(r.ci_low),
                None if pd.isna(r.ci_high) else float(r.ci_high),
                str(r.ci_method),
                int(r.n),
                int(r.clusters),
            )
            for r in part.itertuples(index=False)
        ]
        rep = repeated_interval(runs, alpha)
        iv = rep.interval
        out.append(dict(zip(CELL_KEYS, key, strict=True)) | iv.columns() | {"sd_runs": rep.sd, "runs": rep.runs})
    columns = [*CELL_KEYS, "estimate", "n", "clusters", "se", "ci_low", "ci_high", "ci_method", "sd_runs", "runs"]
    return pd.DataFrame(out, columns=columns)
