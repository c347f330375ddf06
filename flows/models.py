"""Opening the model door for a flow run and writing its accounting rows next to the flow's outputs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from flows.config import Params
from flows.tables import write_table
from steps.llm import ModelDoor
from steps.schemas import ModelUsage


def open_door(params: Params, run_id: str) -> ModelDoor:
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
