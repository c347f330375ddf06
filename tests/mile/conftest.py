"""Fixtures for MILE tests: the real 693 instances (from the pinned mirror), engines through the model door."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest

import steps.mile.oracle  # registers the scripted lawyer oracle
import steps.mile.proxy  # registers the proxy judge for MILE
import steps.mile.scripted  # noqa: F401  (registers the scripted client and supervisor)
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.mile.instances import build_instance
from steps.mile.opening import FixedOpening
from steps.mile.params import MileParams
from steps.mile.scenario import mile_scenario
from steps.mile.sources import Mile, load_mile
from steps.schemas import validate
from steps.simulate.engine import run_dialogue
from steps.simulate.runner import DoorSpeaker
from steps.sources import Fetched
from steps.tables import write_table

ORACLE = ModelConfig(name="oracle", model="scripted/oracle")
NULL = ModelConfig(name="null", model="scripted/null")
PERSONA = ModelConfig(name="environment", model="scripted/persona")
JUDGE = ModelConfig(name="judge", model="scripted/judge")


@pytest.fixture(scope="session")
def mile(manifest, mirror) -> pd.DataFrame:
    """The `mile` table exactly as stage ingest builds it."""
    files = [Fetched(f, mirror / f.path) for f in manifest.for_dataset("mile")]
    return validate(load_mile(files), Mile, table="mile")


@pytest.fixture(scope="session")
def interim(tmp_path_factory, mile) -> Path:
    """A folder holding mile.parquet, for the flows."""
    folder = tmp_path_factory.mktemp("interim")
    write_table(mile, folder / "mile.parquet", Mile, table="mile")
    return folder


@pytest.fixture
def door(tmp_path) -> ModelDoor:
    return ModelDoor(LLMSettings(cache_dir=str(tmp_path / "llm"), max_attempts=1), run_id="test")


def row_of(mile: pd.DataFrame, number: int):
    return next(mile[mile.id == number].itertuples())


def simulate_one(door: ModelDoor, row, agent: ModelConfig = ORACLE, speak=None, options: MileParams | None = None):
    """One dialogue of `row` through the door (scripted environment unless `speak` wraps it)."""
    options = options or MileParams()
    instance = build_instance(row, supervise_lawyer=options.supervise == "both")
    base = FixedOpening(DoorSpeaker(door, agent, PERSONA))
    return asyncio.run(run_dialogue(mile_scenario(options), instance, speak(base) if speak else base))
