"""Agreement between raters (judges of a panel, a judge and human raters): Cohen's κ, Krippendorff's α, Spearman's
ρ, and the scale a set of values is measured on.

- `level_of`: a judged value in [0, 1] is `nominal` when it takes at most two values (pass/fail, a binary
  checklist item), `ordinal` when it takes a few (at most `ORDINAL_MAX` values: a 0–10 score, loss/tie/win), else
  `interval` (a rubric's share of points, a mean);
- `cohen_kappa`: κ = 1 − Σ w·O / Σ w·E over the categories either rater used (sorted), O the observed and E the
  chance proportions (the product of the marginals), w = 0 on the diagonal and 1 off it, or |i − j| / (k − 1)
  (linear weights, for an ordinal scale); None when chance agreement leaves nothing to measure (Σ w·E = 0);
- `krippendorff_alpha`: the `krippendorff` package's α at the level, raters × units with missing values allowed;
  None with fewer than two distinct values (α is undefined);
- `spearman`: ρ of two paired series; None when either is constant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

Level = Literal["nominal", "ordinal", "interval"]
ORDINAL_MAX = 11  # a 0–10 score is the finest scale still read as categories


def level_of(values: Sequence[float]) -> Level:
    """The scale `values` are measured on (see the module docstring)."""
    distinct = len(set(values))
    return "nominal" if distinct <= 2 else "ordinal" if distinct <= ORDINAL_MAX else "interval"


def cohen_kappa(a: Sequence[float], b: Sequence[float], weighted: bool = False) -> float | None:
    """Cohen's κ of two raters' paired ratings (linear weights when `weighted`)."""
    if len(a) != len(b):
        raise ValueError("two raters' ratings are paired: as many of one as of the other")
    if not len(a):
        return None
    categories = sorted(set(a) | set(b))
    k = len(categories)
    index = {c: i for i, c in enumerate(categories)}
    observed = np.zeros((k, k))
    for x, y in zip(a, b, strict=True):
        observed[index[x], index[y]] += 1
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    i, j = np.indices((k, k))
    weights = np.abs(i - j) / (k - 1) if weighted and k > 1 else (i != j).astype(float)
    chance = float((weights * expected).sum())
    if chance == 0:
        return None
    return 1 - float((weights * observed).sum()) / chance


def krippendorff_alpha(ratings: np.ndarray, level: Level) -> float | None:
    """Krippendorff's α of `ratings` (raters × units, NaN where a rater gave none) at `level`."""
    import krippendorff

    present = ratings[~np.isnan(ratings)]
    if len(set(present.tolist())) < 2:
        return None
    return float(krippendorff.alpha(reliability_data=ratings, level_of_measurement=level))


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's ρ of two paired series (None: fewer than two pairs, or a constant series)."""
    from scipy.stats import spearmanr

    if len(a) < 2 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    return float(spearmanr(a, b).statistic)


def pearson(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Pearson's r of two paired series (None: fewer than two pairs, or a constant series)."""
    from scipy.stats import pearsonr

    if len(a) < 2 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    return float(pearsonr(a, b).statistic)
