"""LawBench's samples for `make smoke-real` (profile `small`) and the real-model slice test (profile `slice`)."""

from __future__ import annotations

from typing import Any


def profiles() -> dict[str, dict[str, Any]]:
    """Profile → this benchmark's params.yaml section overrides."""
    return {
        "small": {"limit": 1},  # 1 item per task, 20 tasks, both settings
        "slice": {"limit": 1, "tasks": ["1-1"]},  # task 1-1 in both settings
    }
