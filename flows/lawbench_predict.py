"""Stage `lawbench_predict` (one per agent and setting): prompt the agent on all 20 tasks, then score it.

dvc.yaml → this flow → steps.lawbench.predict (prompts as LawBench built them) → steps.llm (the model door)
→ steps.metrics.lawbench (the 20 scorers). Writes data/lawbench/<agent>/<setting>/{predictions,scores,
usage}.parquet and run.json. A rerun replays finished calls from the response cache.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pandas as pd
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

import steps.lawbench.scripted  # noqa: F401  (registers the scripted LawBench policies)
from flows.config import PARAMS_FILE, load_params
from flows.models import check_calls, open_door, write_usage
from flows.paths import INTERIM_DIR, LAWBENCH_DIR, safe_child
from flows.progress import counter
from flows.runs import begin_run, run_spec, write_run_json
from flows.stage import main
from flows.tables import read_table, write_table
from steps.lawbench.predict import PROMPT_VERSION, build_requests, predictions_frame
from steps.llm import ModelConfig, ModelDoor
from steps.metrics.lawbench import score_predictions
from steps.metrics.lawbench.proofread import lexicon_tables
from steps.metrics.lawbench.tasks import SETTINGS
from steps.schemas import LawBenchItems, LawBenchRunPredictions, LawBenchScores

OUT_DIR = LAWBENCH_DIR


@task(cache_policy=NO_CACHE)
def predict(items: pd.DataFrame, agent: ModelConfig, door: ModelDoor) -> pd.DataFrame:
    requests = build_requests(items, agent)
    with counter(f"lawbench {agent.name}", len(requests)) as advance:
        replies = asyncio.run(door.complete_many(requests, on_reply=advance))
    return predictions_frame(items, replies, agent.name)


@task(cache_policy=NO_CACHE)
def score(predictions: pd.DataFrame, agent: ModelConfig, rid: str, proofread_paths: dict) -> pd.DataFrame:
    """Score the successful predictions; failed calls are counted per task, never scored as empty answers."""
    ok = predictions[predictions.failure_kind.isna()]
    scores = score_predictions(ok, contiguous=False, **proofread_paths)
    failed = predictions[predictions.failure_kind.notna()].groupby(["setting", "task"]).size().rename("n_failed")
    # outer: a task whose every call failed keeps its row (no score, n 0) and its failed count
    scores = scores.merge(failed.reset_index(), on=["setting", "task"], how="outer", validate="one_to_one")
    return scores.assign(agent=agent.name, n=scores.n.fillna(0).astype(int),
                         n_failed=scores.n_failed.fillna(0).astype(int), proxy=agent.is_scripted,
                         run_id=rid)[list(LawBenchScores.to_schema().columns)]


@flow(name="lawbench_predict")
def lawbench_predict(agent_name: str, setting: str, params_file: Path = PARAMS_FILE, out_dir: Path = OUT_DIR,
                     interim_dir: Path = INTERIM_DIR) -> str:
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting '{setting}'; expected one of {', '.join(SETTINGS)}")
    params = load_params(params_file)
    agent = params.agent(agent_name)
    items = read_table(interim_dir / "lawbench_items.parquet", LawBenchItems)
    items = items[items.setting == setting].sort_values(["task", "idx"], kind="stable").reset_index(drop=True)
    if params.lawbench.limit is not None:
        items = items[items.idx < params.lawbench.limit].reset_index(drop=True)
    run_dir = safe_child(out_dir, agent_name, setting)
    spec = run_spec(agent, "lawbench", setting=setting, prompt_version=PROMPT_VERSION, limit=params.lawbench.limit)
    rid = begin_run(run_dir, spec)
    door = open_door(params, run_id=rid)
    try:
        predictions = predict(items, agent, door)
        write_table(predictions, run_dir / "predictions.parquet", LawBenchRunPredictions, table="lawbench_predictions")
        scores = score(predictions, agent, rid, lexicon_tables(interim_dir))
        write_table(scores, run_dir / "scores.parquet", LawBenchScores, table="lawbench_scores")
        write_usage(door, run_dir / "usage.parquet")
        write_run_json(run_dir, spec)
    finally:
        door.close()
    check_calls(params, run_dir / "usage.parquet")
    n_failed = int(predictions.failure_kind.notna().sum())
    hits = sum(u.cache_hit for u in door.usage)
    return (f"{agent_name} ({agent.model}) {setting}: {len(predictions):,} items over {scores.task.nunique()} tasks, "
            f"{hits:,} from the cache, {n_failed} failed calls; run {rid}")


if __name__ == "__main__":
    main("lawbench_predict", lawbench_predict, agent_name=sys.argv[1], setting=sys.argv[2])
