"""Every interactive scenario by code, with its scripted policies registered on import, and instance rows
turned into what the engine runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import steps.scenarios.cd.scripted  # scripted policies register on import
import steps.scenarios.ci.scripted
import steps.scenarios.kq.scripted  # noqa: F401
from steps.scenarios.catalog import J1, SCENARIOS
from steps.schemas.instances import typed_profiles, typed_truth
from steps.simulate.instance import Instance

__all__ = ["J1", "SCENARIOS", "instance_from_row"]


def instance_from_row(row: Mapping[str, Any], max_turns: Mapping[str, int] | None = None) -> Instance:
    """An instances.parquet row as the engine's `Instance`: each role's profile exactly as its scenario's model
    has it (validated; the other scenarios' fields dropped), the ground truth likewise, and the turn cap (the
    instance's, unless `max_turns` overrides it for the scenario)."""
    code = row["scenario"]
    profiles = {role: p.model_dump() for role, p in typed_profiles(code, row["profiles"]).items()}
    truth = typed_truth(code, row["ground_truth"]).model_dump()
    cap = (max_turns or {}).get(code, int(row["max_turns"]))
    return Instance(row["instance_id"], code, profiles, truth, cap)
