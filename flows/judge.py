"""Stage `judge` (one per agent): every instance of the agent's J1 run scored on its scenario's metrics.

dvc.yaml → this flow → steps.j1eval (cases from the run's tables; per scenario the rule metrics of
steps.metrics.j1 and the judges of steps.judges: pointwise comparison, the two-pass procedure judge) → writes
data/runs/<agent>/scores.parquet (one row per instance, metric and component) and judge_usage.parquet.
Judge calls go through the model door and its response cache, so a rerun makes no new calls and writes the
same table.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

import steps.judges.scripted  # noqa: F401  (registers the proxy judge, scripted/judge)
from flows.config import PARAMS_FILE, J1EvalParams, Params, load_params
from flows.models import check_calls, open_door, write_usage
from flows.monitor import publish_table, table_rows
from flows.paths import safe_child
from flows.personas import PROCESSED
from flows.progress import counter
from flows.simulate import RUNS_DIR
from flows.stage import main, stage_flow
from flows.tables import read_table, write_table
from steps.j1eval import Case, Options, Panel, build_cases, evaluate_run, score_frame
from steps.judges import ProcedureConfig
from steps.schemas import Deliverables, Instances, J1Scores, Turns


def options_of(p: J1EvalParams) -> Options:
    return Options(strict_topics=p.strict_topics, penalty_normaliser=p.penalty_normaliser,
                   min_exchanges=p.min_exchanges, call_failed=p.call_failed)  # fmt: skip


@task(cache_policy=NO_CACHE)
def score_cases(cases: list[Case], params: Params, agent_name: str, rid: str,
                run_dir: Path) -> tuple[pd.DataFrame, int, int]:  # fmt: skip
    """Every case (judge calls concurrently through the door); returns the scores, calls made and cache hits."""
    door = open_door(params, rid)
    panel = Panel(door, params.judge_model(), ProcedureConfig(**params.j1eval.procedure.model_dump()))
    try:
        with counter(f"judge {agent_name}", len(cases)) as advance:
            rows = asyncio.run(evaluate_run(cases, panel, options_of(params.j1eval), on_done=advance))
        write_usage(door, run_dir / "judge_usage.parquet")
    finally:
        door.close()
    return score_frame(rows, run_id=rid, agent=agent_name), len(door.usage), sum(u.cache_hit for u in door.usage)


@stage_flow("judge")
def judge(agent_name: str, params_file: Path = PARAMS_FILE, processed: Path = PROCESSED,
          runs_dir: Path = RUNS_DIR) -> str:  # fmt: skip
    params = load_params(params_file)
    params.agent(agent_name)  # an unknown agent is a clear error
    run_dir = safe_child(runs_dir, agent_name)
    rid = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["run_id"]
    instances = read_table(processed / "instances.parquet", Instances)
    turns = read_table(run_dir / "turns.parquet", Turns)
    deliverables = read_table(run_dir / "deliverables.parquet", Deliverables)
    cases = build_cases(instances, turns, deliverables)
    scores, calls, hits = score_cases(cases, params, agent_name, rid, run_dir)
    valid = write_table(scores, run_dir / "scores.parquet", J1Scores, table="j1_scores")
    head = valid[(valid.component == "") & (valid.status != "dialogue_failed")]
    per = head.groupby(["scenario", "metric"], sort=False).agg(
        mean=("value", "mean"), scored=("status", lambda s: int((s == "scored").sum())), values=("value", "size"),
        judge_failures=("status", lambda s: int((s == "judge_failed").sum()))).reset_index()  # fmt: skip
    judge_model = params.judge_model()
    publish_table(f"j1-judge-{agent_name}", table_rows(per),
                  f"J1-EVAL metrics of {agent_name} per environment (mean over instances), judged by "
                  f"{judge_model.model}{' (proxy)' if judge_model.is_scripted else ''}; run {rid}")  # fmt: skip
    check_calls(params, run_dir / "judge_usage.parquet")
    return summary(agent_name, params, valid, calls, hits, rid)


def summary(agent_name: str, params: Params, scores: pd.DataFrame, calls: int, hits: int, rid: str) -> str:
    """One line: what was scored, skipped and failed."""
    head = scores[scores.component == ""]
    status = head.status.value_counts()
    per = ", ".join(f"{s} {n}" for s, n in scores.groupby("scenario", sort=False).instance_id.nunique().items())
    judge_model = params.judge_model()
    kind = " (proxy)" if judge_model.is_scripted else ""
    count = status.get
    return (f"{agent_name}: {scores.instance_id.nunique():,} instances ({per}), {len(head):,} metric values: "
            f"{count('scored', 0):,} scored, {count('failed_task', 0):,} failed tasks (scored as the paper's '-': "
            f"0, III-4 1), {count('skipped', 0):,} skipped (nothing to compare), {count('judge_failed', 0):,} judge "
            f"failures, {count('dialogue_failed', 0):,} from broken dialogues (excluded); {calls:,} judge calls "
            f"by {judge_model.model}{kind}, {hits:,} from the cache; run {rid}")  # fmt: skip


if __name__ == "__main__":
    main("judge", judge, agent_name=sys.argv[1])
