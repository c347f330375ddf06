"""Run identity: a content hash of what changes an agent's outputs, written to run.json and every row."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from flows.kit.tables import write_text_atomic
from steps.llm import ModelConfig


def run_spec(agent: ModelConfig, benchmark: str, **versions: Any) -> dict[str, Any]:
    """The output-affecting description of a run (no paths, no keys, no replica addresses)."""
    return {
        "benchmark": benchmark,
        "agent": agent.name,
        "model": agent.model,
        "endpoint": agent.api_base if isinstance(agent.api_base, str) else None,
        "decoding": agent.decoding.model_dump(),
        **versions,
    }


def run_id(spec: dict[str, Any]) -> str:
    canonical = json.dumps(spec, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def begin_run(directory: Path, spec: dict[str, Any]) -> str:
    """The run id of `spec`, before any work: a `run.json` of a different run is removed, so a folder whose new
    outputs are not all written yet never claims an identity (the stage writes run.json last, `write_run_json`)."""
    rid = run_id(spec)
    path = directory / "run.json"
    if path.is_file():
        try:
            recorded = json.loads(path.read_text(encoding="utf-8")).get("run_id")
        except (ValueError, AttributeError):
            recorded = None
        if recorded != rid:
            path.unlink()
    return rid


def write_run_json(directory: Path, spec: dict[str, Any]) -> str:
    """Write `run.json` (the spec and its id) atomically, after the run's outputs; returns the run id."""
    rid = run_id(spec)
    directory.mkdir(parents=True, exist_ok=True)
    write_text_atomic(
        directory / "run.json", json.dumps({"run_id": rid, **spec}, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    )
    return rid


def run_limit(directory: Path) -> int | None:
    """The item limit a run recorded in its `run.json` (`limit`; None when it ran on everything or records none),
    so reports mark its rows `[limit N]`."""
    path = directory / "run.json"
    if not path.is_file():
        return None
    limit = json.loads(path.read_text(encoding="utf-8")).get("limit")
    return int(limit) if limit is not None else None
