"""What the report flows know about agents and runs, built once from params.yaml and each run's `run.json`.

`agent_infos` gives every report its `AgentInfo` per agent (model, scripted, the paper model it corresponds to,
run id, limit, the run.json as recorded, read by `read_run`, the replies cut at max_tokens in its usage tables),
`run_info` the report's `RunInfo` (environment, judge, params section).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from steps.llm import ModelConfig
from steps.params import Params
from steps.paths import Paths
from steps.reports.agents import AgentInfo, RunInfo
from steps.reports.labels import agent_paper_model
from steps.reports.paper_models import match_paper_model
from steps.runs import RunRecord, read_run, read_run_if_any


def protocol_label(params: Params, benchmark: str, records: Sequence[RunRecord | None]) -> str:
    """The protocol label of an agent's numbers in `benchmark` (steps/protocol.py): the roles its runs recorded
    (their run.json `protocol_record`), the others as params.yaml names them (its judge, where no run records it),
    the agent as its runs sent it (where the paper decodes agents its own way) and the smallest data size its runs
    recorded."""
    record = params.protocol_record(benchmark)
    ran: dict[str, ModelConfig] = {}
    sizes: list[int] = []
    agent: ModelConfig | None = None
    for r in records:
        entry = (r.spec.get("protocol_record") or {}) if r is not None else {}
        for role, used in (entry.get("roles") or {}).items():
            ran[role] = ModelConfig(name=role, model=used["model"], decoding=used["decoding"])
        sent = entry.get("agent")
        if sent and agent is None:
            agent = ModelConfig(name="agent", model=sent["model"], decoding=sent["decoding"])
        size = (entry.get("data") or {}).get("size")
        if size is not None:
            sizes.append(int(size))
    size = min(sizes) if sizes else None
    return replace(record, roles={**record.roles, **ran}, size=size, agent=agent).label


def model_info(
    name: str,
    model: ModelConfig,
    run_dirs: Sequence[Path],
    paper_model: str | None = None,
    *,
    required: bool = True,
    protocol: tuple[Params, str] | None = None,
) -> AgentInfo:
    """A model that ran under `name` (an agent, or a benchmark's reference model), from the run.json of each of
    its runs (one, or LawBench's one per setting that has run); a run without one is an error unless not
    `required`. With `protocol` (the params and the benchmark), its protocol label (`protocol_label`)."""
    records: list[RunRecord | None] = [read_run(d) if required else read_run_if_any(d) for d in run_dirs]
    limits = [r.limit for r in records if r is not None and r.limit is not None]
    only = records[0] if len(records) == 1 else None
    return AgentInfo(
        name=name,
        model=model.model,
        scripted=model.is_scripted,
        paper_model=paper_model,
        run_id=only.run_id if only is not None else None,
        limit=max(limits) if limits else None,
        run=dict(only.spec) if only is not None else {},
        truncated=truncated_replies(run_dirs),
        protocol=protocol_label(*protocol, records) if protocol is not None else None,
    )


def truncated_replies(run_dirs: Sequence[Path]) -> dict[str, int]:
    """Replies cut at max_tokens by purpose, from the usage tables of `run_dirs` (`*usage.parquet`: the run's calls
    and its judge's); a table written before they were marked has none."""
    import pyarrow.parquet as pq

    counts: Counter[str] = Counter()
    for path in sorted(p for d in run_dirs for p in Path(d).glob("*usage.parquet")):
        if "truncated" in pq.read_schema(path).names:
            usage = pd.read_parquet(path, columns=["purpose", "truncated"])
            counts.update(usage.purpose[usage.truncated])
    return dict(sorted(counts.items()))


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
    `j1.eval.paper_names`) or the paper model of the same name (`match_paper_model`)."""
    model = params.agent(name)
    paper = agent_paper_model(name, params.agents[name].paper_model, benchmark, names)
    if paper is None and by_name:
        paper = match_paper_model(name, model.model, names, explicit, section or f"{benchmark}.paper_names")
    return model_info(name, model, run_dirs, paper, required=required, protocol=(params, benchmark))


def agent_infos(
    params: Params,
    benchmark: str,
    paths: Paths,
    *,
    names: Mapping[str, Iterable[str]],
    explicit: Mapping[str, str] | None = None,
    section: str | None = None,
) -> dict[str, AgentInfo]:
    """Every agent taking part in `benchmark`, in params.yaml order, each with its run `paths.run(benchmark, agent)`."""
    return {
        name: agent_info(
            params, name, benchmark, [paths.run(benchmark, name)], names=names, explicit=explicit, section=section
        )
        for name in params.agents
    }


def run_info(params: Params, benchmark: str, options: Mapping[str, Any] | None = None) -> RunInfo:
    """The report's setting: the environment and judge models of `benchmark`, and the benchmark's `options`."""
    environment, judge = params.environment_model(benchmark), params.judge_model(benchmark)
    panel = params.judge_panel(benchmark)  # a panel of judges: every member named
    return RunInfo(
        environment=environment.model,
        environment_scripted=environment.is_scripted,
        judge=judge.model if panel is None else "panel of " + " + ".join(m.model for m in panel),
        judge_scripted=judge.is_scripted if panel is None else all(m.is_scripted for m in panel),
        options=dict(options or {}),
    )
