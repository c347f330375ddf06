"""Stage `ucl_judge` (one per agent): the agent's dialogues against the reference's, judged in both orders,
and each dialogue scored against its own guidance (pointwise mode, ours).

dvc.yaml → this flow → steps.ucl.judging (steps.judges.pairwise for the verdicts, steps.ucl.hint_judge for the
hint scores) → steps.llm (the judge model). Writes data/ucl/<agent>/judge/{verdicts,hint_scores,usage}.parquet
and run.json.
A rerun replays the response cache.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

import steps.ucl.scripted  # noqa: F401  (registers the scripted UCL proxy judge)
from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import check_calls, open_door, write_usage
from flows.kit.monitor import publish_table, table_rows
from flows.kit.paths import UCL_JUDGE_DIR, UCL_PATHS, UclPaths, safe_child
from flows.kit.progress import counter
from flows.kit.runs import begin_run, write_run_json
from flows.kit.stage import main, stage_flow
from flows.kit.tables import read_table, write_table
from steps.llm import Completer, ModelConfig
from steps.schemas import Ucl, UclDialogues, UclHintScores, UclVerdicts
from steps.ucl.instances import limit_items
from steps.ucl.judging import RunIds, judge_run
from steps.ucl.params import UclParams
from steps.ucl.report import headline_text
from steps.ucl.tables import agent_long
from steps.ucl.version import protocol_version

JUDGE_DIR = UCL_JUDGE_DIR


def _run_id(run_dir: Path) -> str:
    path = run_dir / "run.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no run; run its simulation stage first (see dvc.yaml)")
    return json.loads(path.read_text(encoding="utf-8"))["run_id"]


@task(cache_policy=NO_CACHE)
def judge(
    items: pd.DataFrame,
    dialogues: pd.DataFrame,
    reference: pd.DataFrame,
    judge_model: ModelConfig,
    ucl: UclParams,
    ids: RunIds,
    door: Completer,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    def progress(total: int):
        return counter(f"ucl judge {ids.agent}", total)

    return judge_run(door, judge_model, ucl, items, dialogues, reference, ids, progress=progress)


@stage_flow("ucl_judge")
def ucl_judge(agent_name: str, params_file: Path = PARAMS_FILE, paths: UclPaths = UCL_PATHS) -> str:
    params = load_params(params_file)
    params.agent(agent_name)  # an unknown agent is a clear error
    ucl = params.section(UclParams)
    run_dir = safe_child(paths.runs, agent_name)
    dialogues = read_table(run_dir / "dialogues.parquet", UclDialogues)
    reference = read_table(paths.reference / "dialogues.parquet", UclDialogues)
    items = limit_items(read_table(paths.interim / "ucl.parquet", Ucl), params.limit_for(agent_name, "ucl"), ucl.tasks)
    judge_model = params.judge_model()
    ids = RunIds(agent_name, _run_id(run_dir), ucl.reference.name, _run_id(paths.reference))
    judge_spec = {
        "agent_run": ids.run_id,
        "reference_run": ids.reference_run_id,
        "judge": judge_model.model,
        "decoding": judge_model.decoding.model_dump(),
        "retries": ucl.judge_retries,
        "pointwise": ucl.pointwise,
        "protocol": protocol_version(),
    }
    door = open_door(params, run_id=begin_run(run_dir / JUDGE_DIR, judge_spec))
    try:
        verdicts, hints = judge(items, dialogues, reference, judge_model, ucl, ids, door)
        write_table(verdicts, run_dir / JUDGE_DIR / "verdicts.parquet", UclVerdicts, table="ucl_verdicts")
        write_table(hints, run_dir / JUDGE_DIR / "hint_scores.parquet", UclHintScores, table="ucl_hint_scores")
        write_usage(door, run_dir / JUDGE_DIR / "usage.parquet")
        write_run_json(run_dir / JUDGE_DIR, judge_spec)
    finally:
        door.close()
    per = (
        verdicts[verdicts.failure.isna()]
        .groupby(["task", "order"], sort=True)
        .agg(win_rate=("points", lambda p: 100 * p.mean()), verdicts=("points", "size"))
        .reset_index()
    )
    publish_table(
        f"ucl-judge-{agent_name}",
        table_rows(per),
        f"UCL-Bench win rate of {agent_name} against {ids.reference} per task and judge order, judged by "
        f"{judge_model.model}{' (proxy)' if judge_model.is_scripted else ''}",
    )
    check_calls(params, run_dir / JUDGE_DIR / "usage.parquet")
    valid = verdicts[verdicts.failure.isna()]
    excluded = verdicts.failure.value_counts().to_dict()
    long = agent_long(
        agent_name,
        ids.reference,
        judge_model.model,
        verdicts,
        hints,
        pd.concat([dialogues, reference], ignore_index=True),
    )
    hits = sum(u.cache_hit for u in door.usage)
    return (
        f"{agent_name} vs {ids.reference} judged by {judge_model.model}: {len(valid):,}/{len(verdicts):,} "
        f"verdicts valid, excluded {excluded or 'none'}; {headline_text(long, agent_name)} (as in reports/ucl.md: "
        f"means of the 22 task rates, CC apart); {hits:,} calls from the cache"
    )


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python -m flows.ucl_judge <agent>")
    main("ucl_judge", ucl_judge, agent_name=sys.argv[1])
