"""What an instance builder returns: a ready instance, or a skip with its reason (never a placeholder)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Built:
    instance_id: str
    scenario: str
    source_ids: tuple[str, ...]
    profiles: dict[str, dict[str, Any]]
    ground_truth: dict[str, Any]
    max_turns: int
    persona_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skipped:
    instance_id: str
    scenario: str
    source_ids: tuple[str, ...]
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)


def missing(case: dict[str, Any], needs: dict[str, Any]) -> list[str]:
    """Names of the needed values that are absent or empty."""
    return [name for name, value in needs.items() if value in (None, "", [], ())]
