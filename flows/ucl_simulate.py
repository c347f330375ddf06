"""Stages `ucl_simulate` (one per agent) and `ucl_reference`: the simulated user consults a model on every
UCL-Bench item.

dvc.yaml → this flow → steps.ucl (instances, the UCL scenario, the scripted user / oracle) → steps.simulate (the
engine, through the model door). Writes data/ucl/<agent>/ (or data/ucl_reference/ for the reference model)
{turns,dialogues,usage}.parquet and run.json. An interrupted run resumes from its journal in .cache/runs/ucl/
(outside the DVC outputs), which is removed once the tables are written; a rerun replays the response cache.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

import steps.ucl.scripted  # noqa: F401  (registers the scripted UCL user, oracle and proxy judge)
from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import check_calls, open_door, write_usage
from flows.kit.monitor import follow_groups, publish_table, table_rows
from flows.kit.paths import UCL_PATHS, UclPaths, safe_child
from flows.kit.progress import counter
from flows.kit.runs import begin_run, run_spec, write_run_json
from flows.kit.stage import main, stage_flow
from flows.kit.tables import read_table, write_table
from steps.llm import ModelConfig
from steps.schemas import Ucl, UclDialogues, UclTurns
from steps.simulate.journal import Journal
from steps.ucl.dialogues import run_tables
from steps.ucl.instances import build_instances, limit_items
from steps.ucl.params import UclParams
from steps.ucl.scenario import UCL
from steps.ucl.simulation import simulate_dialogues
from steps.ucl.tasks import task_of
from steps.ucl.version import protocol_version

if TYPE_CHECKING:
    from steps.llm.door import ModelDoor

REFERENCE_FLAG = "--reference"


def converse(
    items: pd.DataFrame,
    assistant: ModelConfig,
    user: ModelConfig,
    exchanges: int,
    door: ModelDoor,
    journal: Journal,
    rid: str,
) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Every dialogue in one engine call; in Prefect each UCL task has a task run that ends with its last one."""
    instances = build_instances(items, max_exchanges=exchanges)
    resumed = sum(journal.finished(i) is not None for i in instances)
    label_of = {i: f"{task_of(k).id} {task_of(k).name}" for i, k in zip(items.item_id, items.task, strict=True)}
    with counter(f"ucl {assistant.name}", len(instances)) as advance:

        def work(done):
            def on_done(dialogue) -> None:
                advance()
                done(label_of[dialogue.instance_id])

            return simulate_dialogues(door, assistant, user, instances, journal, on_done=on_done)

        dialogues = asyncio.run(follow_groups(dict(Counter(label_of.values())), work))
    turns, rows = run_tables(dialogues, run_id=rid, agent=assistant.name)
    return turns, rows, resumed


@stage_flow("ucl_simulate")
def ucl_simulate(agent_name: str | None = None, params_file: Path = PARAMS_FILE, paths: UclPaths = UCL_PATHS) -> str:
    """Simulate one agent (`agent_name`), or the reference model when `agent_name` is None."""
    params = load_params(params_file)
    ucl = params.section(UclParams)
    assistant = params.agent(agent_name) if agent_name else ucl.reference.resolve_reference()
    run_dir = safe_child(paths.runs, agent_name) if agent_name else paths.reference
    user = params.environment_model()
    limit = params.limit_for(agent_name, "ucl") if agent_name else ucl.limit  # the agent's own limit too
    items = limit_items(read_table(paths.interim / "ucl.parquet", Ucl), limit, ucl.tasks)
    spec = run_spec(
        assistant,
        "ucl",
        role="agent" if agent_name else "reference",
        scenario_version=UCL.version,
        protocol=protocol_version(),
        user={"model": user.model, "decoding": user.decoding.model_dump()},
        max_exchanges=ucl.exchanges(),
        single_round=ucl.single_round,
        limit=limit,
        **({"tasks": ucl.tasks} if ucl.tasks else {}),
    )
    rid = begin_run(run_dir, spec)
    journal_path = safe_child(paths.journals, agent_name or "_reference", f"{rid}.jsonl")
    journal = Journal(journal_path)
    door = open_door(params, run_id=rid)
    try:
        turns, dialogues, resumed = converse(items, assistant, user, ucl.exchanges(), door, journal, rid)
        write_table(turns, run_dir / "turns.parquet", UclTurns, table="ucl_turns")
        write_table(dialogues, run_dir / "dialogues.parquet", UclDialogues, table="ucl_dialogues")
        write_usage(door, run_dir / "usage.parquet")
        write_run_json(run_dir, spec)
    finally:
        journal.close()
        door.close()
    journal_path.unlink(missing_ok=True)  # the tables are written: nothing left to resume
    per_task = (
        dialogues.groupby("task", sort=True)
        .agg(
            dialogues=("item_id", "size"),
            mean_rounds=("rounds", "mean"),
            ended_by_user=("ended_by", lambda e: int((e == "marker").sum())),
            at_cap=("ended_by", lambda e: int((e == "max_turns").sum())),
            failed=("failure", lambda f: int(f.notna().sum())),
        )
        .reset_index()
    )
    publish_table(
        f"ucl-simulate-{assistant.name}",
        table_rows(per_task),
        f"UCL-Bench dialogues of {assistant.name} ({assistant.model}"
        f"{', scripted' if assistant.is_scripted else ''}) per task; run {rid}",
    )
    check_calls(params, run_dir / "usage.parquet")
    failed = int(dialogues.failure.notna().sum())
    ended = dialogues.ended_by.value_counts().to_dict()
    hits = sum(u.cache_hit for u in door.usage)
    who = f"{assistant.name} ({assistant.model})" + ("" if agent_name else ", the reference")
    return (
        f"{who}: {len(dialogues):,} dialogues over {dialogues.task.nunique()} tasks, "
        f"mean {dialogues.rounds[dialogues.failure.isna()].mean():.2f} rounds "
        f"({ended.get('marker', 0)} ended by the user, {ended.get('max_turns', 0)} at the cap of "
        f"{ucl.exchanges()}, {ended.get('empty_reply', 0)} by an assistant who said nothing), "
        f"{resumed} resumed from the journal, {hits:,} calls from the cache, "
        f"{failed} failed; run {rid}"
    )


if __name__ == "__main__":
    arg = sys.argv[1] if len(sys.argv) > 1 else ""
    if not arg:
        sys.exit(f"usage: python -m flows.ucl_simulate <agent> | {REFERENCE_FLAG}")
    main("ucl_simulate", ucl_simulate, agent_name=None if arg == REFERENCE_FLAG else arg)
