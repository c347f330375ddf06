"""The smallest difference a benchmark can resolve (docs/statistics.md §3)."""

from __future__ import annotations

import math

from scipy.stats import norm


def minimum_detectable_difference(
    n: float,
    sd_a: float,
    sd_b: float | None = None,
    rho: float = 0.5,
    alpha: float = 0.05,
    power: float = 0.8,
    design_effect: float = 1.0,
) -> float:
    """MDE of a paired comparison, two-sided α, power 1 − β:

        (z_{1−α/2} + z_{1−β}) · √((σ_A² + σ_B² − 2ρσ_Aσ_B) / n_eff),   n_eff = n / design_effect

    σ_B defaults to σ_A; for 0/1 items σ² = p(1 − p); `design_effect` is Kish's 1 + (m̄ − 1)·ICC for clusters of
    mean size m̄."""
    if n <= 0:
        raise ValueError("n must be positive")
    sb = sd_a if sd_b is None else sd_b
    var = sd_a**2 + sb**2 - 2 * rho * sd_a * sb
    z = float(norm.ppf(1 - alpha / 2) + norm.ppf(power))
    return z * math.sqrt(max(var, 0.0) * design_effect / n)
