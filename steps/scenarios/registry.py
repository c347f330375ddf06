"""Every interactive scenario by code, with its scripted policies registered on import, and instance rows
turned into what the engine runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

import steps.scenarios.cd.scripted  # scripted policies register on import
import steps.scenarios.ci.scripted
import steps.scenarios.kq.scripted  # noqa: F401
from steps.j1.params import SimulateParams
from steps.scenarios.catalog import J1, SCENARIOS
from steps.schemas.instances import typed_profiles, typed_truth
from steps.simulate.instance import Instance

__all__ = ["J1", "SCENARIOS", "instance_from_row", "select_instances"]


def instance_from_row(row: Mapping[str, Any], max_turns: Mapping[str, int] | None = None) -> Instance:
    """An instances.parquet row as the engine's `Instance`: each role's profile exactly as its scenario's model
    has it (validated; the other scenarios' fields dropped), the ground truth likewise, and the turn cap (the
    instance's, unless `max_turns` overrides it for the scenario)."""
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
