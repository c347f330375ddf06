"""An environment instance as the engine sees it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Instance:
    """One instance of a scenario.

    `profiles` holds, per role, exactly what that role is given (its template context). `ground_truth` is
    never rendered into any role's prompt: metrics read it, and only the scripted oracle receives it (in
    call metadata, which real models never see).
    """

    instance_id: str
    scenario: str
    profiles: dict[str, dict[str, Any]]
    ground_truth: dict[str, Any] = field(default_factory=dict)
    max_turns: int | None = None
