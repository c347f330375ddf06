"""The p-value of a Pearson correlation (two-sided t test), for the dialogue-turn analysis (paper §4.2).

No scipy in the project: the Student t tail comes from the regularised incomplete beta function, evaluated
by its continued fraction (modified Lentz), which converges fast for the symmetric-swapped argument.
"""

from __future__ import annotations

import math

_EPS, _TINY, _MAX_TERMS = 1e-15, 1e-300, 500


def _continued_fraction(a: float, b: float, x: float) -> float:
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1."""
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"x must lie in [0, 1], got {x}")
    if x in (0.0, 1.0):
        return x
    if x > (a + 1) / (a + b + 2):
        return 1.0 - incomplete_beta(b, a, 1.0 - x)
    log_front = a * math.log(x) + b * math.log1p(-x) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    return math.exp(log_front) * _continued_fraction(a, b, x) / a


def pearson_p(r: float, n: int) -> float | None:
    """Two-sided p of H0: ρ = 0 for a sample correlation r over n pairs (None when n < 3 or r is undefined)."""
    if n < 3 or r is None or math.isnan(r):
        return None
    if abs(r) >= 1.0:
        return 0.0
    df = n - 2
    t2 = r * r * df / (1.0 - r * r)
    return incomplete_beta(df / 2, 0.5, df / (df + t2))
