"""Opening the model door for a flow run and writing its accounting rows next to the flow's outputs."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from flows.config import Params
from flows.tables import write_table
from steps.llm import ModelConfig, ModelDoor
from steps.llm.secrets import check_api_keys
from steps.schemas import ModelUsage


def open_door(params: Params, run_id: str, models: Iterable[ModelConfig] = ()) -> ModelDoor:
    """The door for one flow run. Every model in `models` whose `api_key_env` variable is unset is named in
    one MissingApiKeyError before anything runs (the door itself also refuses, before any request, a model
    whose key it lacks)."""
    check_api_keys(models)
    return ModelDoor(params.llm, run_id=run_id, cache_dir=Path(params.llm.cache_dir))


def usage_frame(door: ModelDoor) -> pd.DataFrame:
    rows = door.usage_records()
    columns = list(ModelUsage.to_schema().columns)
    df = pd.DataFrame(rows, columns=columns) if rows else pd.DataFrame(columns=columns)
    df["metadata"] = [_json(m) for m in df["metadata"]]
    return df


def write_usage(door: ModelDoor, path: Path) -> pd.DataFrame:
    """Write one accounting row per call (hits and failures included) to `path`."""
    return write_table(usage_frame(door), path, ModelUsage, table="model_usage")


def _json(value: object) -> str:
    import json

    return json.dumps(value or {}, ensure_ascii=False, sort_keys=True)
