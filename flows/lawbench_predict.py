"""Stage `lawbench_predict` (one per agent and setting): prompt the agent on all 20 tasks, then score it.

dvc.yaml → this flow → steps.lawbench.predict (prompts as LawBench built them) → steps.llm (the model door)
→ steps.lawbench.metrics (the 20 scorers). Writes data/lawbench/runs/<agent>/<setting>/{predictions,scores,
usage}.parquet and run.json. A rerun replays finished calls from the response cache.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

import steps.lawbench.scripted  # noqa: F401  (registers the scripted LawBench policies)
from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import check_calls, model_session
from flows.kit.monitor import gather_groups, publish_table, table_rows
from flows.kit.paths import PATHS, USAGE, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.lawbench.metrics import score_predictions
from steps.lawbench.metrics.proofread import LexiconFiles, lexicon_tables
from steps.lawbench.metrics.tasks import SETTINGS
from steps.lawbench.params import LawBenchParams
from steps.lawbench.predict import PROMPT_VERSION, build_requests, predictions_frame, select_items
from steps.lawbench.schemas import LawBenchRunPredictions, LawBenchScores
from steps.lawbench.sources import LawBenchItems
from steps.llm import Completer, ModelConfig
from steps.runs import begin_run, run_spec, write_run_json
from steps.tables import read_table, write_table


def predict(items: pd.DataFrame, agent: ModelConfig, door: Completer) -> pd.DataFrame:
    """Every item, one task run per LawBench task (`1-1 zero_shot` ...), all in one event loop: the door's
    per-endpoint bound is shared by the 20 tasks as it was by one call over all items."""
    requests = build_requests(items, agent)
    setting = items.setting.iloc[0] if len(items) else ""
    with counter(f"lawbench {agent.name} {setting}", len(requests)) as advance:
        replies = asyncio.run(
            gather_groups(
                requests,
                lambda r: r.metadata["task"],
                lambda group: door.complete_many(group, on_reply=advance),
                label=lambda task_id: f"{task_id} {setting}",
            )
        )
    return predictions_frame(items, replies, agent.name)


@task(cache_policy=NO_CACHE)
def score(predictions: pd.DataFrame, agent: ModelConfig, rid: str, proofread_paths: LexiconFiles) -> pd.DataFrame:
    """Score the successful predictions; failed calls are counted per task, never scored as empty answers."""
    ok = predictions[predictions.failure_kind.isna()]
    scores = score_predictions(ok, contiguous=False, **proofread_paths)
    failed = predictions[predictions.failure_kind.notna()].groupby(["setting", "task"]).size().rename("n_failed")
    # outer: a task whose every call failed keeps its row (no score, n 0) and its failed count
    scores = scores.merge(failed.reset_index(), on=["setting", "task"], how="outer", validate="one_to_one")
    return scores.assign(
        agent=agent.name,
        n=scores.n.fillna(0).astype(int),
        n_failed=scores.n_failed.fillna(0).astype(int),
        proxy=agent.is_scripted,
        run_id=rid,
    )[list(LawBenchScores.to_schema().columns)]


@stage_flow
def lawbench_predict(agent_name: str, setting: str, params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """Prompt one agent on the 20 tasks in one setting (zero_shot or one_shot), then score it."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting '{setting}'; expected one of {', '.join(SETTINGS)}")
    params = load_params(params_file)
    agent = params.agent(agent_name)
    limit = params.limit_for(agent_name, "lawbench")  # the agent's own limit and lawbench.limit, the smaller
    lawbench = params.section(LawBenchParams)
    items = read_table(paths.interim / "lawbench_items.parquet", LawBenchItems)
    items = select_items(items, setting, limit, lawbench.tasks)
    subset = {"tasks": lawbench.tasks} if lawbench.tasks else {}  # in the run's identity only when set
    run_dir = paths.run("lawbench", agent_name, setting)
    spec = run_spec(agent, "lawbench", setting=setting, prompt_version=PROMPT_VERSION, limit=limit, **subset)
    rid = begin_run(run_dir, spec)
    with model_session(params, rid, usage=run_dir / USAGE) as session:
        predictions = predict(items, agent, session.door)
        write_table(predictions, run_dir / "predictions.parquet", LawBenchRunPredictions, table="lawbench_predictions")
        scores: pd.DataFrame = score(predictions, agent, rid, lexicon_tables(paths.interim))
        write_table(scores, run_dir / "scores.parquet", LawBenchScores, table="lawbench_scores")
    write_run_json(run_dir, spec)
    publish_table(
        f"lawbench-{agent_name}-{setting}",
        table_rows(
            scores[["task", "score", "abstention_rate", "n", "n_failed"]].assign(
                score=100 * scores.score, abstention_rate=100 * scores.abstention_rate
            )
        ),
        f"LawBench {setting}, {agent_name} ({agent.model}{', scripted' if agent.is_scripted else ''}): "
        f"score and abstention rate per task (×100); run {rid}",
    )
    check_calls(params, run_dir / USAGE)
    n_failed = int(predictions.failure_kind.notna().sum())
    return (
        f"{agent_name} ({agent.model}) {setting}: {len(predictions):,} items over {scores.task.nunique()} tasks, "
        f"{session.hits:,} from the cache, {n_failed} failed calls; run {rid}"
    )


if __name__ == "__main__":
    main(lawbench_predict)
