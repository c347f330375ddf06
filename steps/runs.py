"""Run identity: a content hash of what changes an agent's outputs, written to run.json (last, after the run's
outputs) and to every row; and run.json read back, in one place, as a `RunRecord`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steps.llm import ModelConfig
from steps.paths import RUN_JSON
from steps.tables import write_text_atomic


def run_spec(agent: ModelConfig, benchmark: str, **versions: Any) -> dict[str, Any]:
    """The output-affecting description of a run (no paths, no keys, no replica addresses)."""
    return {
        "benchmark": benchmark,
        "agent": agent.name,
        "model": agent.model,
        "endpoint": agent.api_base if isinstance(agent.api_base, str) else None,
        "decoding": agent.decoding.model_dump(),
        **({"repeat": agent.repeat} if agent.repeat else {}),  # a later repeat (the first's spec is unchanged)
        **versions,
    }


def run_id(spec: dict[str, Any]) -> str:
    canonical = json.dumps(spec, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class RunRecord:
    """A run as its run.json records it: the id, the item limit it ran with (None: every item; reports mark its
    rows `[limit N]`), and the whole spec (model, decoding, versions, options …)."""

    directory: Path
    run_id: str
    limit: int | None
    spec: Mapping[str, Any]

    @property
    def model(self) -> str:
        return str(self.spec.get("model", ""))


def read_run(directory: Path) -> RunRecord:
    """The run recorded in `directory/run.json`; a missing or unreadable one is a one-line error naming it."""
    path = directory / RUN_JSON
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no run there; run the stage that makes it first (see dvc.yaml)")
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
        rid = spec["run_id"]
    except (ValueError, KeyError, TypeError):
        raise ValueError(
            f"{path}: not a run record (a JSON object with a run_id); rerun the stage that writes it"
        ) from None
    limit = spec.get("limit")
    return RunRecord(directory, str(rid), int(limit) if limit is not None else None, spec)


def read_run_if_any(directory: Path) -> RunRecord | None:
    """`read_run`, or None when there is no run.json (a run not made yet, or interrupted before its end)."""
    return read_run(directory) if (directory / RUN_JSON).is_file() else None


def begin_run(directory: Path, spec: dict[str, Any]) -> str:
    """The run id of `spec`, before any work: a `run.json` of a different run is removed, so a folder whose new
    outputs are not all written yet never claims an identity (the stage writes run.json last, `write_run_json`)."""
    rid = run_id(spec)
    try:
        recorded = read_run_if_any(directory)
    except ValueError:  # unreadable: not this run either
        recorded = None
    if (directory / RUN_JSON).is_file() and (recorded is None or recorded.run_id != rid):
        (directory / RUN_JSON).unlink()
    return rid


def write_run_json(directory: Path, spec: dict[str, Any], warnings: Sequence[str] = ()) -> str:
    """Write `run.json` (the spec and its id) atomically, after the run's outputs; returns the run id. `warnings`
    (e.g. repeats that cannot vary, `Params.repeats_warning`) are recorded beside the spec, not part of the id."""
    rid = run_id(spec)
    directory.mkdir(parents=True, exist_ok=True)
    record = {"run_id": rid, **spec, **({"warnings": list(warnings)} if warnings else {})}
    write_text_atomic(directory / RUN_JSON, json.dumps(record, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    return rid
