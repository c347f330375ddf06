"""Stage `plawbench_judge` (one per agent): score every response against its rubric, item by item.

dvc.yaml → this flow → steps.plawbench.judging → steps.judges.rubric (one judge call per response, answers
bounded and repaired, arithmetic in code) → steps.llm. Writes data/plawbench/runs/<agent>/{judgements,scores,
item_scores,judge_usage}.parquet and the judge run's judge/run.json. Judge failures and failed agent calls are
rows without a score: counted in the report, never scored 0. A rerun replays finished judge calls from the
response cache. With `plawbench.t1_penalties: paper` (opt-in) consultation answers are also judged for the
paper's Table 8 penalties (steps.plawbench.penalty_judge): extra `paper_penalty` score rows; off, nothing
changes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

import steps.plawbench.scripted  # noqa: F401  (registers the proxy judge with PLawBench's kind)
from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import check_calls, model_session
from flows.kit.monitor import publish_table, table_rows
from flows.kit.paths import JUDGE_USAGE, PATHS, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.judges.prompts import template_source
from steps.llm import Completer, ModelConfig
from steps.plawbench.judging import judge_all, judge_penalties_all, judgement_rows, penalty_answers
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.penalty_judge import TEMPLATE as PENALTY_TEMPLATE
from steps.plawbench.prompts import templates_version
from steps.plawbench.schemas import (
    PlawItemScores,
    PlawJudgements,
    PlawResponses,
    PlawRubricItems,
    PlawScores,
    PlawTasks,
)
from steps.runs import begin_run, run_spec, write_run_json
from steps.tables import read_table, write_table


@task(cache_policy=NO_CACHE)
def judge(
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    responses: pd.DataFrame,
    judge_model: ModelConfig,
    door: Completer,
    options: PlawBenchParams,
    repairs: int,
    judge_run: str,
    t1_penalties: str = "none",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    todo = int(responses.response.notna().sum())
    agent = responses.agent.iloc[0] if len(responses) else ""
    with counter(f"plawbench judge {agent}", todo) as advance:
        results = asyncio.run(
            judge_all(door, judge_model, tasks, rubric, responses, options, repairs=repairs, on_done=advance)
        )
    penalties = None
    if t1_penalties == "paper":
        consulted = sum(r.category == "consultation" and j.ok for r, _, j in results)
        with counter(f"plawbench T1 penalties {agent}", consulted) as advance:
            penalties = asyncio.run(
                judge_penalties_all(door, judge_model, tasks, results, repairs=repairs, on_done=advance)
            )
    return judgement_rows(results, responses[responses.response.isna()], tasks, rubric, judge_run, penalties)


@stage_flow
def plawbench_judge(agent_name: str, params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """Judge one agent's responses item by item with the configured judge."""
    params = load_params(params_file)
    p, judge_model = params.section(PlawBenchParams), params.judge_model()
    out_dir, run_dir = paths.shared("plawbench"), paths.run("plawbench", agent_name)
    tasks = read_table(out_dir / "tasks.parquet", PlawTasks)
    rubric = read_table(out_dir / "rubric_items.parquet", PlawRubricItems)
    responses = read_table(run_dir / "responses.parquet", PlawResponses)
    # the penalty mode enters the run id only when on, so that the default run id is what it always was
    extra = (
        {"t1_penalties": p.t1_penalties, "penalty_template": template_source(PENALTY_TEMPLATE)}
        if p.t1_penalties != "none"
        else {}
    )
    spec = run_spec(
        judge_model,
        "plawbench-judge",
        rubric_template=template_source("rubric.j2"),
        templates=templates_version(),
        max_questions=p.max_questions,
        repairs=p.judge_repairs,
        **extra,
    )
    judge_run = begin_run(run_dir / "judge", spec)
    with model_session(params, judge_run, usage=run_dir / JUDGE_USAGE) as session:
        judgements, scores, items = judge(
            tasks, rubric, responses, judge_model, session.door, p, p.judge_repairs, judge_run, p.t1_penalties
        )
        write_table(judgements, run_dir / "judgements.parquet", PlawJudgements, table="plawbench_judgements")
        write_table(scores, run_dir / "scores.parquet", PlawScores, table="plawbench_scores")
        write_table(items, run_dir / "item_scores.parquet", PlawItemScores, table="plawbench_item_scores")
    write_run_json(run_dir / "judge", spec)
    total = scores[(scores.dimension == "total") & scores.failure.isna()]
    per = (
        total.groupby(["category", "variant"], sort=True)
        .agg(
            score=("awarded", lambda a: 100 * a.sum() / max(total.loc[a.index, "max_points"].sum(), 1e-9)),
            responses=("awarded", "size"),
        )
        .reset_index()
    )
    publish_table(
        f"plawbench-judge-{agent_name}",
        table_rows(per),
        f"PLawBench score of {agent_name} per category (points awarded / possible ×100), judged by "
        f"{judge_model.model}{' (proxy)' if judge_model.is_scripted else ''}; judge run {judge_run}",
    )
    penalties = penalty_answers(scores, judge_model.model)
    check_calls(params, run_dir / JUDGE_USAGE, judged=[run_dir / "judgements.parquet", penalties])
    failures = judgements.failure.value_counts().to_dict()
    failed = ", ".join(f"{n} {k}" for k, n in sorted(failures.items())) or "none"
    scored = judgements[judgements.value.notna()]
    return (
        f"{agent_name}: {len(scored)} of {len(judgements)} responses judged by {judge_model.model} "
        f"({session.hits:,} of {session.calls:,} calls from the cache); failures: {failed}; "
        f"{int(judgements.clamped.sum())} clamps; judge run {judge_run}" + _penalty_summary(scores)
    )


def _penalty_summary(scores: pd.DataFrame) -> str:
    """`; T1 paper penalties: …` in the opt-in mode, else nothing."""
    rows = scores[scores.dimension == "paper_penalty"]
    if rows.empty:
        return ""
    ok = rows[rows.failure.isna()]
    base = scores[(scores.dimension == "total")].set_index(["item_id", "variant"]).awarded
    lowered = int(
        (
            ok.set_index(["item_id", "variant"]).awarded
            < base.reindex(ok.set_index(["item_id", "variant"]).index) - 1e-9
        ).sum()
    )
    failed = int(rows.failure.str.startswith("penalty_", na=False).sum())
    return f"; T1 paper penalties: {len(ok)} answers, {lowered} lowered, {failed} penalty judge failures"


if __name__ == "__main__":
    main(plawbench_judge)
