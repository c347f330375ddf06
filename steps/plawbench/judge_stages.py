"""PLawBench's judge stage body (declared in steps/plawbench/benchmark.py), apart from the answers
(steps/plawbench/stages.py) so that only this stage imports the judge kernel (steps.judges) and reads the judge
prompts (templates/judge/): a changed judge or judge prompt reruns the judge and the report, never the answers
(flows/dvc_yaml.py).

- `judge`: every response scored against its rubric item by item (steps.plawbench.judging); writes
  <run>/{judgements,scores,item_scores,judge_usage}.parquet and judge/run.json. Failed agent calls and judge
  failures are rows without a score, never 0. With `plawbench.t1_penalties: paper` (opt-in) consultation answers
  are also judged for the paper's Table 8 penalties: extra `paper_penalty` score rows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager

import pandas as pd

from steps.judges.panel import aggregate, asked_rows
from steps.llm import Completer, ModelConfig
from steps.paths import JUDGE_USAGE
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.schemas import (
    PlawItemScores,
    PlawJudgements,
    PlawResponses,
    PlawRubricItems,
    PlawScores,
    PlawTasks,
)
from steps.protocol import Aggregation
from steps.runs import run_spec
from steps.stages import StageContext
from steps.tables import table_rows


# ------------------------------------------------------------------ judge
def judge(ctx: StageContext) -> str:
    """Judge one agent's responses item by item with the configured judge."""
    import steps.plawbench.scripted_judge  # noqa: F401  (registers the proxy judge with PLawBench's kind)
    from steps.judges import scripted_contrary  # noqa: F401  (registers the contrary proxy judge, for panels)
    from steps.judges.panel import panel_aggregation, panel_spec
    from steps.judges.probes import PROBE_FILE, probe_frame
    from steps.judges.prompts import template_source
    from steps.llm.capabilities import structured_spec
    from steps.plawbench.judging import panel_points, penalty_answers
    from steps.plawbench.penalty_judge import TEMPLATE as PENALTY_TEMPLATE
    from steps.plawbench.penalty_judge import TEMPLATES as PENALTY_TEMPLATES
    from steps.plawbench.prompts import templates_version
    from steps.schemas.probes import JudgeProbes

    assert ctx.agent_name is not None
    agent_name, params, paths = ctx.agent_name, ctx.params, ctx.paths
    p, judge_model = params.section(PlawBenchParams), params.judge_model("plawbench")
    out_dir, run_dir = paths.shared("plawbench"), paths.run("plawbench", agent_name)
    tasks = ctx.read_table(out_dir / "tasks.parquet", PlawTasks)
    rubric = ctx.read_table(out_dir / "rubric_items.parquet", PlawRubricItems)
    responses = ctx.read_table(run_dir / "responses.parquet", PlawResponses)
    # the penalty mode enters the run id only when on, so that the default run id is what it always was
    extra = (
        {"t1_penalties": p.t1_penalties, "penalty_template": template_source(PENALTY_TEMPLATE, PENALTY_TEMPLATES)}
        if p.t1_penalties != "none"
        else {}
    )
    if p.judge_verdict != "points":  # likewise the compact verdict
        extra |= {"judge_verdict": p.judge_verdict, "flags_template": template_source("rubric_flags.j2")}
    spec = run_spec(
        judge_model,
        "plawbench-judge",
        rubric_template=template_source("rubric.j2"),
        templates=templates_version(judge=True),
        max_questions=p.max_questions,
        repairs=p.judge_repairs,
        **extra,
        **structured_spec(judge_model, params.llm.cache_dir),
        judge_probes=p.judge_probes.model_dump(),
        protocol_record=params.run_protocol("plawbench", len(responses), ("judge",)),
    )
    panel = params.judge_panel("plawbench")
    aggregation = panel_aggregation(params, "plawbench", pairwise=False)
    if panel is not None:
        spec = {**spec, **panel_spec(panel, aggregation)}
    judge_run = ctx.begin_run(run_dir / "judge", spec)
    with ctx.model_session(judge_run, usage=run_dir / JUDGE_USAGE) as session:
        judged = ctx.task(_judge_responses, name="judge")
        if panel is None:
            judgements, scores, items, probes = judged(
                tasks, rubric, responses, judge_model, session.door, p, judge_run, counter=ctx.counter
            )
            members = judgements.iloc[0:0]
        else:  # every member judges every response; their judgements are kept, their aggregate is the score
            each = [judged(tasks, rubric, responses, m, session.door, p, judge_run, counter=ctx.counter) for m in panel]
            judgements, members = _panel_tables([(j, s, i) for j, s, i, _ in each], aggregation)
            scores = panel_points([sc for _, sc, _, _ in each], SCORE_KEYS, ["awarded"], aggregation)
            items = panel_points([it for _, _, it, _ in each], ITEM_KEYS, ["given", "awarded"], aggregation)
            probes = probe_frame([])  # the probes re-ask one judge; a panel's aggregate is no one judge's answer
        ctx.write_table(judgements, run_dir / "judgements.parquet", PlawJudgements, table="plawbench_judgements")
        ctx.write_table(
            members, run_dir / "judgements_panel.parquet", PlawJudgements, table="plawbench_judgements_panel"
        )
        ctx.write_table(scores, run_dir / "scores.parquet", PlawScores, table="plawbench_scores")
        ctx.write_table(items, run_dir / "item_scores.parquet", PlawItemScores, table="plawbench_item_scores")
        ctx.write_table(probes, run_dir / PROBE_FILE, JudgeProbes, table="plawbench_judge_probes")
    ctx.write_run_json(run_dir / "judge", spec)
    total = scores[(scores.dimension == "total") & scores.failure.isna()]
    per = (
        total.groupby(["category", "variant"], sort=True)
        .agg(
            score=("awarded", lambda a: 100 * a.sum() / max(total.loc[a.index, "max_points"].sum(), 1e-9)),
            responses=("awarded", "size"),
        )
        .reset_index()
    )
    ctx.publish_table(
        f"plawbench-judge-{agent_name}",
        table_rows(per),
        f"PLawBench score of {agent_name} per category (points awarded / possible ×100), judged by "
        f"{judge_model.model}{' (proxy)' if judge_model.is_scripted else ''}; judge run {judge_run}",
    )
    penalties = penalty_answers(scores, judge_model.model)
    ctx.check_calls(run_dir / JUDGE_USAGE, judged=[run_dir / "judgements.parquet", penalties])
    failures = judgements.failure.value_counts().to_dict()
    failed = ", ".join(f"{n} {k}" for k, n in sorted(failures.items())) or "none"
    scored = judgements[judgements.value.notna()]
    return (
        f"{agent_name}: {len(scored)} of {len(judgements)} responses judged by {judge_model.model} "
        f"({session.hits:,} of {session.calls:,} calls from the cache); failures: {failed}; "
        f"{int(judgements.clamped.sum())} clamps; judge run {judge_run}" + _penalty_summary(scores)
    )


SCORE_KEYS = ["item_id", "variant", "dimension"]
ITEM_KEYS = ["item_id", "variant", "rubric_id"]
POINT_COLUMNS = ["awarded", "penalty_points"]  # a judgement's points, aggregated as its value


def _panel_tables(
    each: list[tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]], aggregation: Aggregation
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the panel's judgements, every member's) from each member's (judgements, scores, item scores)."""
    members = pd.concat([j for j, _, _ in each], ignore_index=True)
    aggregated = aggregate(members, ["item_id", "variant"], aggregation, also=POINT_COLUMNS)
    return aggregated, asked_rows(members)


def _judge_responses(
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    responses: pd.DataFrame,
    judge_model: ModelConfig,
    door: Completer,
    options: PlawBenchParams,
    judge_run: str,
    *,
    counter: Callable[[str, int], AbstractContextManager[Callable[..., None]]],
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Every answered response judged (and, opt-in, the consultations' paper penalties): the judgement, score and
    item-score rows, with a row without a score for every failed agent call; and the judge probes' rows."""
    from steps.plawbench.judging import judge_all, judge_penalties_all, judgement_rows, probe_all

    repairs = options.judge_repairs
    todo = int(responses.response.notna().sum())
    agent = responses.agent.iloc[0] if len(responses) else ""
    with counter(f"plawbench judge {agent}", todo) as advance:
        results = asyncio.run(
            judge_all(door, judge_model, tasks, rubric, responses, options, repairs=repairs, on_done=advance)
        )
    penalties = None
    if options.t1_penalties == "paper":
        consulted = sum(r.category == "consultation" and j.ok for r, _, j in results)
        with counter(f"plawbench T1 penalties {agent}", consulted) as advance:
            penalties = asyncio.run(
                judge_penalties_all(door, judge_model, tasks, results, repairs=repairs, on_done=advance)
            )
    with counter(f"plawbench judge probes {agent}", 1) as advance:
        probes = asyncio.run(probe_all(door, judge_model, tasks, rubric, results, options, repairs=repairs))
        advance()
    tables = judgement_rows(results, responses[responses.response.isna()], tasks, rubric, judge_run, penalties)
    return (*tables, probes)


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
