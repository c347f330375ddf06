"""Run identity: a content hash of what changes an agent's outputs, written to run.json and every row."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

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


def write_run_json(directory: Path, spec: dict[str, Any]) -> str:
    """Write `run.json` (the spec and its id) atomically; returns the run id."""
    rid = run_id(spec)
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / ".run.json.tmp"
    tmp.write_text(json.dumps({"run_id": rid, **spec}, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                   encoding="utf-8")
    os.replace(tmp, directory / "run.json")
    return rid
