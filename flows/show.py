"""`jurisflow show RUN INSTANCE`: print one simulated dialogue readably in the terminal.

RUN is an agent alias (its directory under data/runs/) or a run id (from a run.json there); INSTANCE is an
instance id or any unique part of one. Each turn shows its index, the court stage when known, the speaker and
the addressee, the text, and the model call behind it (tokens; latency or cache hit from the usage log, when the
run's last write of usage.parquet was logged under `llm.cache_dir`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import yaml
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from flows.config import PARAMS_FILE
from flows.models import read_usage_log
from steps.llm import LLMSettings
from steps.scenarios.registry import SCENARIOS
from steps.simulate.transcript import lines

RUNS_DIR = Path("data/runs")


def _cache_dir(params_file: Path = PARAMS_FILE) -> Path:
    """`llm.cache_dir` of the parameters file (read as plain YAML: showing a run needs no valid configuration)."""
    try:
        llm = (yaml.safe_load(params_file.read_text(encoding="utf-8")) or {}).get("llm") or {}
    except (OSError, yaml.YAMLError):
        llm = {}
    return Path(llm.get("cache_dir") or LLMSettings().cache_dir)


def run_dir(run: str, runs_dir: Path = RUNS_DIR) -> Path:
    """The directory of a run given by agent alias or run id."""
    if (runs_dir / run / "turns.parquet").is_file():
        return runs_dir / run
    for spec in sorted(runs_dir.glob("*/run.json")):
        if json.loads(spec.read_text(encoding="utf-8")).get("run_id") == run:
            return spec.parent
    known = ", ".join(p.parent.name for p in sorted(runs_dir.glob("*/turns.parquet"))) or "none"
    raise ValueError(f"no run '{run}' under {runs_dir} (agents with runs: {known}); run `dvc repro` first")


def find_instance(deliverables: pd.DataFrame, instance: str) -> str:
    ids = deliverables.instance_id.tolist()
    if instance in ids:
        return instance
    matches = [i for i in ids if instance in i]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ValueError(f"no instance matching '{instance}' in this run ({len(ids)} instances, e.g. {ids[0]})")
    raise ValueError(f"'{instance}' matches {len(matches)} instances, e.g. {', '.join(matches[:3])}; be more precise")


def show(run: str, instance: str, runs_dir: Path = RUNS_DIR, console: Console | None = None) -> None:
    console = console or Console()
    where = run_dir(run, runs_dir)
    deliverables = pd.read_parquet(where / "deliverables.parquet")
    iid = find_instance(deliverables, instance)
    d = deliverables[deliverables.instance_id == iid].iloc[0].to_dict()
    turns = pd.read_parquet(where / "turns.parquet")
    turns = turns[turns.instance_id == iid].sort_values("turn_index").to_dict("records")
    calls = read_usage_log(_cache_dir(), where / "usage.parquet", last=True).drop_duplicates("call_key")
    usage = {r["call_key"]: r for r in calls.to_dict("records")}
    scenario = SCENARIOS.get(d["scenario"])
    labels = {r: s.label or r for r, s in scenario.roles.items()} if scenario else {}
    causes = ", ".join(d["failure_causes"]) or "none"
    console.print(f"[bold]{escape(iid)}[/]  agent [cyan]{d['agent']}[/], run {d['run_id']}: ended by "
                  f"[bold]{d['ended_by']}[/] after {d['exchanges']} exchanges; failure causes: {causes}")  # fmt: skip
    for line in lines(turns, labels, usage):
        to = f" → {escape(line.addressee)}" if line.addressee else ""
        stage = f"[magenta]{escape(line.stage)}[/] " if line.stage else ""
        kind = "" if line.kind == "utterance" else f" [yellow]({line.kind})[/]"
        console.print(f"[dim]{line.turn_index:>3}[/] {stage}[bold]{escape(line.speaker)}{to}[/]{kind}")
        if line.text and line.kind != "check":
            console.print("      " + escape(line.text).replace("\n", "\n      "))
        if line.note:
            console.print(f"      [dim]{escape(line.note)}[/]")
    text = d["text"] if isinstance(d["text"], str) else "(none)"
    title = f"deliverable: {d['kind']}" + (" (asked for after the turn cap)" if d["forced"] else "")
    console.print(Panel(escape(text), title=title))
