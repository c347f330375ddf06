"""The UCL-Bench consultations of one model, an agent or the reference (stages `ucl_simulate` and
`ucl_reference`, which differ only in the model and where its run goes).

→ steps.ucl (instances, the UCL scenario, the scripted user / oracle) → steps.simulate (the engine, through the
model door). Writes <run>/{turns,dialogues,usage}.parquet and run.json. An interrupted run resumes from its
journal (.cache/journals/ucl/<agent or reference>/<run id>.jsonl, outside the DVC outputs), which is removed once
the tables are written; a rerun replays the response cache.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pandas as pd

import steps.ucl.scripted  # noqa: F401  (registers the scripted UCL user, oracle and proxy judge)
from flows.kit.config import Params
from flows.kit.models import check_calls, model_session
from flows.kit.monitor import follow_groups, publish_table, table_rows
from flows.kit.paths import DIALOGUES, TURNS, USAGE, Paths
from flows.kit.progress import counter
from steps.llm import Completer, ModelConfig
from steps.runs import begin_run, run_spec, write_run_json
from steps.schemas import Turns
from steps.simulate.journal import Journal
from steps.simulate.records import RunLabel
from steps.tables import read_table, write_table
from steps.ucl.dialogues import ucl_tables
from steps.ucl.instances import build_instances, limit_items
from steps.ucl.params import UclParams
from steps.ucl.scenario import UCL
from steps.ucl.schemas import UclDialogues
from steps.ucl.simulation import simulate_dialogues
from steps.ucl.sources import Ucl
from steps.ucl.tasks import task_of
from steps.ucl.version import protocol_version


def converse(
    items: pd.DataFrame,
    assistant: ModelConfig,
    user: ModelConfig,
    exchanges: int,
    door: Completer,
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
    turns, rows = ucl_tables(dialogues, RunLabel(rid, assistant.name, "ucl"))
    return turns, rows, resumed


def consult(
    params: Params, assistant: ModelConfig, role: str, run_dir: Path, journal_name: str, limit: int | None, paths: Paths
) -> str:
    """The simulated user consults `assistant` (`role`: agent or reference) on every item; returns the summary."""
    ucl, user = params.section(UclParams), params.environment_model()
    items = limit_items(read_table(paths.interim / "ucl.parquet", Ucl), limit, ucl.tasks)
    spec = run_spec(
        assistant,
        "ucl",
        role=role,
        scenario_version=UCL.version,
        protocol=protocol_version(),
        user={"model": user.model, "decoding": user.decoding.model_dump()},
        max_exchanges=ucl.exchanges(),
        single_round=ucl.single_round,
        limit=limit,
        **({"tasks": ucl.tasks} if ucl.tasks else {}),
    )
    rid = begin_run(run_dir, spec)
    journal = paths.journal("ucl", journal_name, rid)
    with model_session(params, rid, usage=run_dir / USAGE, journal=journal) as session:
        assert session.journal is not None
        turns, dialogues, resumed = converse(
            items, assistant, user, ucl.exchanges(), session.door, session.journal, rid
        )
        write_table(turns, run_dir / TURNS, Turns, table="ucl_turns")
        write_table(dialogues, run_dir / DIALOGUES, UclDialogues, table="ucl_dialogues")
    write_run_json(run_dir, spec)
    journal.unlink(missing_ok=True)  # the tables are written: nothing left to resume
    per_task = (
        dialogues.groupby("task", sort=True)
        .agg(
            dialogues=("instance_id", "size"),
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
    check_calls(params, run_dir / USAGE)
    failed = int(dialogues.failure.notna().sum())
    ended = dialogues.ended_by.value_counts().to_dict()
    who = f"{assistant.name} ({assistant.model})" + ("" if role == "agent" else ", the reference")
    return (
        f"{who}: {len(dialogues):,} dialogues over {dialogues.task.nunique()} tasks, "
        f"mean {dialogues.rounds[dialogues.failure.isna()].mean():.2f} rounds "
        f"({ended.get('marker', 0)} ended by the user, {ended.get('max_turns', 0)} at the cap of "
        f"{ucl.exchanges()}, {ended.get('empty_reply', 0)} by an assistant who said nothing), "
        f"{resumed} resumed from the journal, {session.hits:,} calls from the cache, "
        f"{failed} failed; run {rid}"
    )
