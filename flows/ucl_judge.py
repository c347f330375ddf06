"""Stage `ucl_judge` (one per agent): the agent's dialogues against the reference's, judged in both orders,
and each dialogue scored against its own guidance (pointwise mode, ours).

dvc.yaml → this flow → steps.ucl.judging (steps.judges.pairwise for the verdicts, steps.ucl.hint_judge for the
hint scores) → steps.llm (the judge model). Writes data/ucl/runs/<agent>/{verdicts,hint_scores,
judge_usage}.parquet and the judge run's judge/run.json.
A rerun replays the response cache.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

import steps.ucl.scripted  # noqa: F401  (registers the scripted UCL proxy judge)
from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import check_calls, model_session
from flows.kit.monitor import publish_table, table_rows
from flows.kit.paths import DIALOGUES, JUDGE_USAGE, PATHS, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.llm import Completer, ModelConfig
from steps.runs import begin_run, read_run, write_run_json
from steps.tables import read_table, write_table
from steps.ucl.instances import limit_items
from steps.ucl.judging import RunIds, judge_run
from steps.ucl.params import UclParams
from steps.ucl.report import headline_text
from steps.ucl.schemas import UclDialogues, UclHintScores, UclVerdicts
from steps.ucl.sources import Ucl
from steps.ucl.tables import agent_long
from steps.ucl.version import protocol_version

JUDGE_RUN = "judge"  # <run>/judge/run.json: the judge run's identity


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


@stage_flow
def ucl_judge(agent_name: str, params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """Judge one agent's dialogues against the reference's in both orders, plus the hint scores."""
    params = load_params(params_file)
    params.agent(agent_name)  # an unknown agent is a clear error
    ucl = params.section(UclParams)
    run_dir, reference_dir = paths.run("ucl", agent_name), paths.reference("ucl")
    dialogues = read_table(run_dir / DIALOGUES, UclDialogues)
    reference = read_table(reference_dir / DIALOGUES, UclDialogues)
    items = limit_items(read_table(paths.interim / "ucl.parquet", Ucl), params.limit_for(agent_name, "ucl"), ucl.tasks)
    judge_model = params.judge_model()
    ids = RunIds(agent_name, read_run(run_dir).run_id, ucl.reference.name, read_run(reference_dir).run_id)
    judge_spec = {
        "agent_run": ids.run_id,
        "reference_run": ids.reference_run_id,
        "judge": judge_model.model,
        "decoding": judge_model.decoding.model_dump(),
        "retries": ucl.judge_retries,
        "pointwise": ucl.pointwise,
        "protocol": protocol_version(),
    }
    judge_run = begin_run(run_dir / JUDGE_RUN, judge_spec)
    with model_session(params, judge_run, usage=run_dir / JUDGE_USAGE) as session:
        verdicts, hints = judge(items, dialogues, reference, judge_model, ucl, ids, session.door)
        write_table(verdicts, run_dir / "verdicts.parquet", UclVerdicts, table="ucl_verdicts")
        write_table(hints, run_dir / "hint_scores.parquet", UclHintScores, table="ucl_hint_scores")
    write_run_json(run_dir / JUDGE_RUN, judge_spec)
    per = (
        verdicts[verdicts.failure.isna()]
        .groupby(["task", "order"], sort=True)
        .agg(win_rate=("value", lambda p: 100 * p.mean()), verdicts=("value", "size"))
        .reset_index()
    )
    publish_table(
        f"ucl-judge-{agent_name}",
        table_rows(per),
        f"UCL-Bench win rate of {agent_name} against {ids.reference} per task and judge order, judged by "
        f"{judge_model.model}{' (proxy)' if judge_model.is_scripted else ''}",
    )
    check_calls(params, run_dir / JUDGE_USAGE, judged=[run_dir / "verdicts.parquet", run_dir / "hint_scores.parquet"])
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
    return (
        f"{agent_name} vs {ids.reference} judged by {judge_model.model}: {len(valid):,}/{len(verdicts):,} "
        f"verdicts valid, excluded {excluded or 'none'}; {headline_text(long, agent_name)} (as in reports/ucl.md: "
        f"means of the 22 task rates, CC apart); {session.hits:,} calls from the cache"
    )


if __name__ == "__main__":
    main(ucl_judge)
