from __future__ import annotations

import asyncio

import pandas as pd
import pytest

import steps.ucl.scripted  # noqa: F401  (registers the scripted UCL user, oracle and proxy judge)
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.sources import Fetched
from steps.ucl.sources import load_ucl

USER = ModelConfig(name="environment", model="scripted/persona")
ORACLE = ModelConfig(name="oracle", model="scripted/oracle")
NULL = ModelConfig(name="null", model="scripted/null")
PROXY = ModelConfig(name="judge", model="scripted/judge")


@pytest.fixture(scope="session")
def ucl_items(manifest, mirror) -> pd.DataFrame:
    """The ucl table as stage `ingest` writes it, loaded from the pinned mirror."""
    return load_ucl([Fetched(f, mirror / f.path) for f in manifest.for_dataset("ucl")])


@pytest.fixture
def door(tmp_path) -> ModelDoor:
    settings = LLMSettings(
        backoff_base_s=0.01, backoff_max_s=0.05, timeout_s=5.0, max_attempts=2, cache_dir=str(tmp_path / "cache")
    )
    d = ModelDoor(settings, run_id="ucl-tests")
    yield d
    d.close()


def run(coro):
    return asyncio.run(coro)
