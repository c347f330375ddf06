"""An environment instance as the engine sees it."""

from __future__ import annotations

import hashlib
import json
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

    def digest(self) -> str:
        """A content hash of the instance: a journal entry of another content is never replayed for it."""
        body = {
            "scenario": self.scenario,
            "profiles": self.profiles,
            "ground_truth": self.ground_truth,
            "max_turns": self.max_turns,
        }
        canonical = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
