"""Every J1 environment (`catalog`) with its scripted policies registered (each folder's optional `scripted.py`,
imported here), and instance rows turned into what the engine runs."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from functools import cache
from typing import Any

from steps.scenarios.catalog import (
    SCENARIOS,
    codes,
    environment,
    environment_folders,
    environments,
    paper_sizes,
    register_environments,
)
from steps.schemas.instances import typed_profiles, typed_truth
from steps.simulate.instance import Instance

__all__ = [
    "SCENARIOS",
    "codes",
    "environment",
    "environments",
    "instance_from_row",
    "instance_sizes",
    "paper_sizes",
    "register_environments",
    "with_policies",
]


@cache
def _register_policies(folders: tuple[str, ...]) -> None:
    for folder in folders:
        name = f"steps.scenarios.{folder}.scripted"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)  # scripted policies register on import


def with_policies() -> None:
    """Register every environment folder's scripted policies (idempotent)."""
    _register_policies(tuple(environment_folders()))


with_policies()


def instance_sizes(sizes: str | Mapping[str, int | None]) -> dict[str, int | None]:
    """Scenario → instances wanted (`j1.instances.sizes`: "paper" for J1's Table 5), in the paper's order."""
    wanted: Mapping[str, int | None] = paper_sizes() if sizes == "paper" else sizes  # type: ignore[assignment]
    return {s: wanted[s] for s in codes() if s in wanted}


def instance_from_row(row: Mapping[str, Any], max_turns: Mapping[str, int] | None = None) -> Instance:
    """An instances.parquet row as the engine's `Instance`: each role's profile exactly as its environment's
    model has it (validated; the other environments' fields dropped), the ground truth likewise, and the turn cap
    (the instance's, unless `max_turns` overrides it for the scenario)."""
    code = row["scenario"]
    profiles = {role: p.model_dump() for role, p in typed_profiles(code, row["profiles"]).items()}
    truth = typed_truth(code, row["ground_truth"]).model_dump()
    cap = (max_turns or {}).get(code, int(row["max_turns"]))
    return Instance(row["instance_id"], code, profiles, truth, cap)
