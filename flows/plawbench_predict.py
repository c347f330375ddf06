"""Stage `plawbench_predict` (one per agent): ask the agent every PLawBench task, single-turn as in the paper,
and run the multi-turn consultation variant (ours) against the environment model.

dvc.yaml → this flow → steps.plawbench.predict (prompts: steps.plawbench.prompts) → steps.llm (the model
door) and steps.simulate (the dialogue engine). Writes data/plawbench/runs/<agent>/{responses,turns,dialogues,
usage}.parquet and run.json. responses.parquet holds every answer, single-turn and multi-turn, in the shape the
judge reads (one row per task and variant, the text to judge: a single answer or the questions a consultation
asked); the multi-turn consultations are also dialogues like every benchmark's (turns.parquet and
dialogues.parquet, empty when `plawbench.multiturn` is off). A rerun replays finished calls from the response
cache; an interrupted dialogue resumes from its journal in .cache/journals/plawbench/<agent>/.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pandas as pd

import steps.plawbench.scripted  # noqa: F401  (registers the scripted PLawBench policies)
from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import check_calls, model_session
from flows.kit.monitor import batches, follow_groups, gather_groups, publish_table, table_rows
from flows.kit.paths import DIALOGUES, PATHS, TURNS, USAGE, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.llm import Completer, ModelConfig
from steps.plawbench import dialogue
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.predict import PROMPT_VERSION, build_requests, multiturn_frame, responses_frame, select_tasks
from steps.plawbench.prompts import templates_version
from steps.plawbench.schemas import PlawResponses, PlawRubricItems, PlawTasks
from steps.runs import begin_run, run_spec, write_run_json
from steps.schemas import Dialogues, Turns
from steps.simulate.journal import Journal
from steps.simulate.records import RunLabel, run_tables
from steps.simulate.runner import DoorSpeaker, simulate
from steps.tables import read_table, write_table

BATCH = 20  # multi-turn consultations per task run in the Prefect UI


async def _single_turn(
    tasks: pd.DataFrame, rubric: pd.DataFrame, agent: ModelConfig, door: Completer, options: PlawBenchParams, rid: str
) -> pd.DataFrame:
    requests = build_requests(tasks, rubric, agent, options)
    with counter(f"plawbench {agent.name}", len(requests)) as advance:
        replies = await gather_groups(
            requests,
            lambda r: r.metadata["task"],
            lambda group: door.complete_many(group, on_reply=advance),
            label=lambda category: f"{category} single-turn",
        )
    return responses_frame(tasks, requests, replies, agent.name, rid)


async def _multi_turn(
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    agent: ModelConfig,
    environment: ModelConfig,
    door: Completer,
    journal: Journal,
    max_turns: int,
    rid: str,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    consult, instances = dialogue.consultations(tasks, rubric, max_turns)
    scenario = dialogue.scenario(max_turns)
    batch_of = batches([i.instance_id for i in instances], BATCH, "consultation multi-turn")
    with counter(f"plawbench {agent.name} multi-turn", len(instances)) as advance:

        def work(done):
            def on_done(d) -> None:
                advance()
                done(batch_of[d.instance_id])

            return simulate(
                instances, lambda _: scenario, DoorSpeaker(door, agent, environment), journal, on_done=on_done
            )

        dialogues = await follow_groups(dict(Counter(batch_of.values())), work)
    turns, rows = run_tables(dialogues, lambda _: scenario, RunLabel(rid, agent.name, "plawbench"))
    return multiturn_frame(consult, dialogues, agent.name, rid), turns, rows


def predict(
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    agent: ModelConfig,
    environment: ModelConfig,
    door: Completer,
    journal: Journal | None,
    options: PlawBenchParams,
    max_turns: int | None,
    rid: str,
):
    """Single-turn answers, then (max_turns set; their resume `journal`) the multi-turn consultations, in one
    event loop: the door's per-endpoint bounds belong to the loop that made them. Returns the responses and the
    consultations' turns and dialogues (empty without them)."""

    async def both() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        responses = await _single_turn(tasks, rubric, agent, door, options, rid)
        if max_turns is None or journal is None:
            none = dialogue.scenario(1)
            return responses, *run_tables([], lambda _: none, RunLabel(rid, agent.name, "plawbench"))
        extra, turns, dialogues = await _multi_turn(tasks, rubric, agent, environment, door, journal, max_turns, rid)
        return pd.concat([responses, extra], ignore_index=True), turns, dialogues

    return asyncio.run(both())


@stage_flow
def plawbench_predict(agent_name: str, params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """Ask one agent every task, plus the multi-turn consultations."""
    params = load_params(params_file)
    out_dir = paths.shared("plawbench")
    p = params.section(PlawBenchParams)
    agent, environment = params.agent(agent_name), params.environment_model()
    limit = params.limit_for(agent_name, "plawbench")  # the agent's own limit and plawbench.limit, the smaller
    tasks = select_tasks(read_table(out_dir / "tasks.parquet", PlawTasks), limit, p.scenarios)
    rubric = read_table(out_dir / "rubric_items.parquet", PlawRubricItems)
    multiturn = (
        {"max_turns": p.multiturn.max_turns, "environment": environment.model, "version": dialogue.VERSION}
        if p.multiturn.enabled
        else None
    )
    run_dir = paths.run("plawbench", agent_name)
    subset = {"scenarios": p.scenarios} if p.scenarios else {}  # in the run's identity only when set
    spec = run_spec(
        agent,
        "plawbench",
        prompt_version=PROMPT_VERSION,
        templates=templates_version(),
        limit=limit,
        options=p.prompt_options(),
        multiturn=multiturn,
        **subset,
    )
    rid = begin_run(run_dir, spec)
    journal = paths.journal("plawbench", agent_name, rid) if multiturn else None
    with model_session(params, rid, usage=run_dir / USAGE, journal=journal) as session:
        max_turns = p.multiturn.max_turns if multiturn else None
        responses, turns, dialogues = predict(
            tasks, rubric, agent, environment, session.door, session.journal, p, max_turns, rid
        )
        write_table(responses, run_dir / "responses.parquet", PlawResponses, table="plawbench_responses")
        write_table(turns, run_dir / TURNS, Turns, table="plawbench_turns")
        write_table(dialogues, run_dir / DIALOGUES, Dialogues, table="plawbench_dialogues")
    write_run_json(run_dir, spec)
    per = (
        responses.groupby(["category", "variant"], sort=True)
        .agg(responses=("item_id", "size"), failed=("failure", lambda f: int(f.notna().sum())))
        .reset_index()
    )
    publish_table(
        f"plawbench-predict-{agent_name}",
        table_rows(per),
        f"PLawBench answers of {agent_name} ({agent.model}{', scripted' if agent.is_scripted else ''}) "
        f"per category; run {rid}",
    )
    check_calls(params, run_dir / USAGE)
    failed = int(responses.failure.notna().sum())
    mt = f", {int((responses.variant == 'multiturn').sum())} multi-turn consultations" if multiturn else ""
    return (
        f"{agent_name} ({agent.model}): {int((responses.variant == 'single').sum())} tasks{mt}; "
        f"{session.calls:,} calls, {session.hits:,} from the cache, {failed} failed; run {rid}"
    )


if __name__ == "__main__":
    main(plawbench_predict)
