"""LawBench's paper protocol (spec lawbench): no model roles (every task is rule-scored); 20 tasks of 500 items
per setting."""

from __future__ import annotations

from steps.protocol import PaperProtocol

PAPER = PaperProtocol(size=10_000, unit="items", templates=("lawbench/templates",))
