"""The six J1 environments by scenario code, in the paper's order, and their sizes in the paper (J1 Table 5)."""

from __future__ import annotations

SCENARIOS = ("KQ", "LC", "CD", "DD", "CI", "CR")
PAPER_SIZES = {"KQ": 98, "LC": 62, "CD": 93, "DD": 93, "CI": 93, "CR": 69}  # J1 Table 5
