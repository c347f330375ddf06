"""Opening the model door for a flow run, writing its accounting rows next to the flow's outputs, and ending a
stage whose calls failed (`check_calls`: the one place that decides it)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from flows.config import Params
from flows.stage import CallsFailed, console
from flows.tables import write_table
from steps.llm import ModelConfig
from steps.llm.secrets import check_api_keys
from steps.schemas import ModelUsage

if TYPE_CHECKING:
    from steps.llm.door import ModelDoor


def open_door(params: Params, run_id: str, models: Iterable[ModelConfig] = ()) -> ModelDoor:
    """The door for one flow run. Every model in `models` whose `api_key_env` variable is unset is named in
    one MissingApiKeyError before anything runs (the door itself also refuses, before any request, a model
    whose key it lacks)."""
    check_api_keys(models)
    from steps.llm.door import ModelDoor  # litellm (3 s of CPU to import) loads only in stages that call models

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


def check_calls(params: Params, *usage: Path | pd.DataFrame) -> None:
    """End a stage whose model calls still failed after retries; call it once every output is written.

    `usage` are the stage's usage tables (paths, or frames when nothing was written): their rows with a
    `failure_kind` are the stage's failure table. The failed fraction is over those rows, i.e. over the calls
    the stage made (cache hits included). Above `llm.max_failed_fraction`, or when every call failed, this
    raises `CallsFailed` (exit 1, DVC does not lock the stage); at or below it, the accepted counts are printed.
    """
    columns = ["failure_kind", "failure_message"]
    frames = [pd.read_parquet(u, columns=columns) if isinstance(u, Path) else u[columns] for u in usage]
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    if rows.failure_kind.isna().all():
        return
    failed = rows[rows.failure_kind.notna()]
    by_kind = {str(k): int(n) for k, n in failed.failure_kind.value_counts().sort_index().items()}
    n_failed, n_calls = len(failed), len(rows)
    fraction, tolerance = n_failed / n_calls, params.llm.max_failed_fraction
    kinds = ", ".join(f"{k} {n}" for k, n in by_kind.items())
    head = f"{n_failed} of {n_calls} model calls failed after retries ({kinds}; {fraction:.1%})"
    if n_failed < n_calls and fraction <= tolerance:
        console.print(f"[yellow]accepted[/]: {head} ≤ llm.max_failed_fraction {tolerance}", soft_wrap=True)
        return
    where = ", ".join(str(u) for u in usage if isinstance(u, Path)) or "the usage records"
    if "budget" in by_kind:  # the cap stopped the stage: the work not started is the `budget` rows
        raise CallsFailed(
            f"llm.budget_usd {params.llm.budget_usd:g} reached: {by_kind['budget']} of {n_calls} model calls not "
            f"sent ({kinds}); outputs written with those rows marked (rows of {where} with failure_kind budget); "
            f"finished calls are cached, so a rerun with a higher llm.budget_usd sends only the rest",
            by_kind,
            n_calls,
        )
    rule = "every call failed" if n_failed == n_calls else f"> llm.max_failed_fraction {tolerance}"
    first = str(failed.failure_message.iloc[0] or "")[:160]
    raise CallsFailed(
        f"{head}, {rule}; outputs written, the failed calls are the rows of {where} with a failure_kind "
        f"(first: {first}); a rerun retries only them",
        by_kind,
        n_calls,
    )


def _json(value: object) -> str:
    import json

    return json.dumps(value or {}, ensure_ascii=False, sort_keys=True)
