"""What the report flows know about agents and runs, built once from params.yaml and each run's `run.json`.

`agent_infos` gives every report its `AgentInfo` per agent (model, scripted, the paper model it corresponds to,
run id, limit, the run.json as recorded), `run_info` the report's `RunInfo` (environment, judge, params section).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from flows.config import Params
from flows.paths import safe_child
from steps.llm import ModelConfig
from steps.reports.agents import AgentInfo, RunInfo
from steps.reports.paper_models import match_paper_model


def read_run_json(run_dir: Path, *, required: bool = True) -> dict[str, Any]:
    """A run's `run.json` (written last by the stage that made the run); {} when it has none and none is required."""
    path = run_dir / "run.json"
    if not path.is_file():
        if required:
            raise FileNotFoundError(f"{path}: no run.json (the run has not finished; rerun its stage)")
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def _limit(spec: Mapping[str, Any]) -> int | None:
    return int(spec["limit"]) if spec.get("limit") is not None else None


def model_info(
    name: str, model: ModelConfig, run_dirs: Sequence[Path], paper_model: str | None = None, *, required: bool = True
) -> AgentInfo:
    """A model that ran under `name` (an agent, or a benchmark's reference model), from the run.json of each of
    its runs (one, or LawBench's one per setting that has run)."""
    specs = [read_run_json(d, required=required) for d in run_dirs]
    limits = [limit for limit in map(_limit, specs) if limit is not None]
    return AgentInfo(
        name=name,
        model=model.model,
        scripted=model.is_scripted,
        paper_model=paper_model,
        run_id=specs[0].get("run_id") if len(specs) == 1 else None,
        limit=max(limits) if limits else None,
        run=specs[0] if len(specs) == 1 else {},
    )


def agent_info(
    params: Params,
    name: str,
    benchmark: str,
    run_dirs: Sequence[Path],
    *,
    names: Mapping[str, Iterable[str]],
    explicit: Mapping[str, str] | None = None,
    section: str | None = None,
    by_name: bool = True,
    required: bool = True,
) -> AgentInfo:
    """Agent `name` in `benchmark`. `names` are the paper's models and their other spellings:
    `agents.<name>.paper_model` picks one, else (`by_name`) `explicit` (the params map `section`, e.g.
    `j1eval.paper_names`) or the paper model of the same name (`match_paper_model`)."""
    model = params.agent(name)
    paper = params.paper_model(name, benchmark, {m: tuple(s) for m, s in names.items()})
    if paper is None and by_name:
        paper = match_paper_model(name, model.model, names, explicit, section or f"{benchmark}.paper_names")
    return model_info(name, model, run_dirs, paper, required=required)


def agent_infos(
    params: Params,
    benchmark: str,
    runs: Path,
    *,
    names: Mapping[str, Iterable[str]],
    explicit: Mapping[str, str] | None = None,
    section: str | None = None,
) -> dict[str, AgentInfo]:
    """Every agent taking part in `benchmark`, in params.yaml order, each with its run folder `runs/<agent>`."""
    return {
        name: agent_info(
            params, name, benchmark, [safe_child(runs, name)], names=names, explicit=explicit, section=section
        )
        for name in params.agents
    }


def run_info(params: Params, options: Mapping[str, Any] | None = None) -> RunInfo:
    """The report's setting: the environment and judge models of params.yaml, and the benchmark's `options`."""
    environment, judge = params.environment_model(), params.judge_model()
    return RunInfo(
        environment=environment.model,
        environment_scripted=environment.is_scripted,
        judge=judge.model,
        judge_scripted=judge.is_scripted,
        options=dict(options or {}),
    )
