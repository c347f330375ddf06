"""Intervals, paired comparisons and power for benchmark numbers (docs/statistics.md).

The estimators come from SciPy and statsmodels; this package is the glue that applies them to clustered item
scores: `intervals` (one agent, one number), `paired` (two agents on the same items), `power` (the smallest
difference a benchmark can resolve). It imports no benchmark.
"""

from steps.stats.intervals import (
    ClusterSums,
    Interval,
    cluster_bootstrap,
    cluster_mean,
    wilson,
    wilson_effective,
)
from steps.stats.paired import PairedResult, bh_adjust, correlation, mcnemar_exact, paired_difference
from steps.stats.power import minimum_detectable_difference

__all__ = [
    "ClusterSums",
    "Interval",
    "PairedResult",
    "bh_adjust",
    "cluster_bootstrap",
    "cluster_mean",
    "correlation",
    "mcnemar_exact",
    "minimum_detectable_difference",
    "paired_difference",
    "wilson",
    "wilson_effective",
]
