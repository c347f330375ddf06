"""Every J1 environment (`catalog`) with its scripted policies registered (each folder's optional `scripted.py`,
imported here), and instance rows turned into what the engine runs."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from functools import cache
from typing import Any

import pandas as pd

from steps.j1.envs.catalog import (
    SCENARIOS,
    codes,
    environment,
    environment_folders,
    environments,
    instance_sizes,
    paper_sizes,
    register_environments,
)
from steps.j1.envs.schemas import typed_profiles, typed_truth
from steps.j1.params import SimulateParams
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
    "select_instances",
    "with_policies",
]


@cache
def _register_policies(folders: tuple[str, ...]) -> None:
    for folder in folders:
        name = f"steps.j1.envs.{folder}.scripted"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)  # scripted policies register on import


def with_policies() -> None:
    """Register every environment folder's scripted policies (idempotent)."""
    _register_policies(tuple(environment_folders()))


with_policies()


def instance_from_row(row: Mapping[str, Any], max_turns: Mapping[str, int] | None = None) -> Instance:
    """An instances.parquet row as the engine's `Instance`: each role's profile exactly as its environment's
    model has it (validated; the other environments' fields dropped), the ground truth likewise, and the turn cap
    (the instance's, unless `max_turns` overrides it for the scenario)."""
    code = row["scenario"]
    profiles = {role: p.model_dump() for role, p in typed_profiles(code, row["profiles"]).items()}
    truth = typed_truth(code, row["ground_truth"]).model_dump()
    cap = (max_turns or {}).get(code, int(row["max_turns"]))
    return Instance(row["instance_id"], code, profiles, truth, cap)


def select_instances(instances: pd.DataFrame, simulate: SimulateParams, limit: int | None = None) -> list[Instance]:
    """What stage `j1_simulate` runs of an instances table: the scenarios of `j1.simulate`, in instance id order,
    with its turn caps; with `limit`, the first N of each scenario."""
    frame = instances[instances.scenario.isin(simulate.scenarios)].sort_values("instance_id", kind="stable")
    if limit is not None:
        frame = frame.groupby("scenario", sort=False).head(limit)
    return [instance_from_row(r, simulate.max_turns) for r in frame.to_dict("records")]
