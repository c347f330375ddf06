"""Stage `mile_judge` (one per agent): goal, interaction and client-consistency scores of a MILE run.

dvc.yaml → this flow → steps.mile.evaluate (what to score) → steps.mile.judging / steps.judges.graded (the
judge, through the model door) and steps.mile.matching (CLI/DEF). Reads data/mile/runs/<agent>/{turns,
dialogues}.parquet and the MILE table; writes data/mile/runs/<agent>/scores.parquet and judge_usage.parquet.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

import steps.mile.proxy  # noqa: F401  (registers the proxy judge for MILE's judge kinds)
from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import check_calls, model_session
from flows.kit.monitor import publish_table, table_rows
from flows.kit.paths import DIALOGUES, JUDGE_USAGE, PATHS, TURNS, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.llm import Completer, ModelConfig
from steps.mile.evaluate import Plan, plan_evaluation
from steps.mile.judging import run_tasks
from steps.mile.params import MileParams
from steps.mile.schemas import MileDialogues, MileScores
from steps.mile.sources import Mile
from steps.runs import read_run
from steps.schemas import Turns
from steps.tables import read_table, write_table


@task(cache_policy=NO_CACHE)
def judge(plan: Plan, door: Completer, model: ModelConfig, label: str) -> list[dict]:
    with counter(label, len(plan.tasks)) as advance:
        return asyncio.run(run_tasks(door, model, plan.tasks, on_done=advance))


@stage_flow
def mile_judge(agent_name: str, params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """Goal, interaction and client-consistency scores of one agent's MILE run."""
    params = load_params(params_file)
    judge_model = params.judge_model()
    run_dir = paths.run("mile", agent_name)
    rid = read_run(run_dir).run_id
    turns = read_table(run_dir / TURNS, Turns)
    dialogues = read_table(run_dir / DIALOGUES, MileDialogues)
    mile = read_table(paths.interim / "mile.parquet", Mile)
    plan = plan_evaluation(mile, dialogues, turns, params.section(MileParams))
    with model_session(params, rid, usage=run_dir / JUDGE_USAGE) as session:
        judged = judge(plan, session.door, judge_model, f"mile judge {agent_name}")
        columns = list(MileScores.to_schema().columns)
        scores = pd.DataFrame(plan.rows + judged).assign(run_id=rid, agent=agent_name)[columns]
        write_table(scores, run_dir / "scores.parquet", MileScores, table="mile_scores")
    ok = scores[scores.failure.isna()]
    per = ok.groupby(["stage", "metric"], sort=True).agg(mean=("value", "mean"), n=("value", "size")).reset_index()
    publish_table(
        f"mile-judge-{agent_name}",
        table_rows(per),
        f"MILE scores of {agent_name} (mean per metric), judged by {judge_model.model}"
        f"{' (proxy)' if judge_model.is_scripted else ''}; run {rid}",
    )
    check_calls(params, run_dir / JUDGE_USAGE, judged=[run_dir / "scores.parquet"])
    failed = scores[scores.failure.notna() & (scores.failure != "dialogue_failed")]
    return (
        f"{agent_name}: {len(dialogues)} dialogues, {len(plan.tasks):,} judge calls by {judge_model.model} "
        f"({session.hits:,} from the cache), {len(scores):,} score rows, {len(failed)} judge failures, "
        f"{int((scores.failure == 'dialogue_failed').sum())} rows of failed dialogues; run {rid}"
    )


if __name__ == "__main__":
    main(mile_judge)
