"""PLawBench's stage bodies (declared in steps/plawbench/benchmark.py): the rubrics, each agent's answers and the
report; the judge's is in steps/plawbench/judge_stages.py (so that the answers import no judge code: a changed
judge reruns only the judge and the report). Each takes its `StageContext` and returns its one-line summary.

- `rubrics`: the public tasks and their rubrics as data (steps.plawbench.rubrics); writes
  data/plawbench/{tasks,rubric_items,parse_issues}.parquet and reports/plawbench_rubrics.md.
- `predict`: one agent answers every task single-turn as in the paper, and (`plawbench.multiturn`) the multi-turn
  consultation variant (ours) against the environment model; writes <run>/{responses,turns,dialogues,usage}.parquet
  and run.json. responses.parquet holds every answer in the shape the judge reads (one row per task and variant);
  turns and dialogues are empty without the multi-turn variant. A rerun replays the response cache; an interrupted
  dialogue resumes from its journal in .cache/journals/plawbench/<agent>/.
- `report`: reports/plawbench.md (Tables 2–4 layout, the paper's numbers beside ours), its CSV twin and the DVC
  views, from steps/plawbench/sql/plawbench_*.sql (DuckDB).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from steps.llm import Completer, ModelConfig
from steps.paths import DIALOGUES, TURNS, USAGE
from steps.plawbench import dialogue
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.rubrics import RubricTables
from steps.plawbench.schemas import (
    PlawItemScores,
    PlawJudgements,
    PlawParseIssues,
    PlawResponses,
    PlawRubricItems,
    PlawScores,
    PlawTasks,
)
from steps.plawbench.sql import QUERIES
from steps.runs import run_spec
from steps.simulate.journal import Journal
from steps.simulate.records import context_limit_keys
from steps.stages import StageContext
from steps.tables import batches, table_rows

if TYPE_CHECKING:
    from steps.params import Params
    from steps.reports.agents import AgentInfo

BATCH = 20  # multi-turn consultations per unit of the monitor


# ------------------------------------------------------------------ rubrics
def rubrics(ctx: StageContext) -> str:
    """The public tasks and their rubrics as tables, and the parse report."""
    import duckdb

    from steps.plawbench.report import render_rubrics
    from steps.plawbench.rubrics import build_rubrics
    from steps.plawbench.sources import PlawCaseAnalysis, PlawConsultation, PlawDrafting

    paths = ctx.paths
    out_dir, report = paths.shared("plawbench"), paths.reports / "plawbench_rubrics.md"
    tables: RubricTables = ctx.task(build_rubrics, name="parse")(
        ctx.read_table(paths.interim / "plawbench_case_analysis.parquet", PlawCaseAnalysis),
        ctx.read_table(paths.interim / "plawbench_consultation.parquet", PlawConsultation),
        ctx.read_table(paths.interim / "plawbench_drafting.parquet", PlawDrafting),
    )
    ctx.write_table(tables.tasks, out_dir / "tasks.parquet", PlawTasks, table="plawbench_tasks")
    ctx.write_table(tables.items, out_dir / "rubric_items.parquet", PlawRubricItems, table="plawbench_rubric_items")
    ctx.write_table(tables.issues, out_dir / "parse_issues.parquet", PlawParseIssues, table="plawbench_parse_issues")

    def summarise(tables: RubricTables) -> dict[str, pd.DataFrame]:
        with duckdb.connect() as con:
            con.register("tasks", tables.tasks)
            con.register("rubric_items", tables.items)
            con.register("parse_issues", tables.issues)
            return {name: QUERIES.run(con, f"plawbench_{name}") for name in ("data", "kinds", "issue_counts")}

    markdown = render_rubrics(tables, ctx.task(summarise)(tables))
    ctx.write_text(report, markdown)
    ctx.publish_markdown("report-plawbench_rubrics", markdown, "PLawBench rubric parse report")
    units = int((tables.items.judged & (tables.items.kind == "award")).sum())
    return (
        f"{len(tables.tasks)} tasks, {len(tables.items):,} rubric rows ({units:,} judged items), "
        f"{len(tables.issues)} parse issues in {tables.issues.item_id.nunique()} tasks → {out_dir}, {report}"
    )


# ------------------------------------------------------------------ predict
async def _single_turn(
    ctx: StageContext,
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    agent: ModelConfig,
    door: Completer,
    options: PlawBenchParams,
    rid: str,
) -> pd.DataFrame:
    from steps.plawbench.predict import build_requests, responses_frame

    requests = build_requests(tasks, rubric, agent, options)
    with ctx.counter(f"plawbench {agent.name}", len(requests)) as advance:
        replies = await ctx.gather_groups(
            requests,
            lambda r: r.metadata["task"],
            lambda group: door.complete_many(group, on_reply=advance),
            label=lambda category: f"{category} single-turn",
        )
    return responses_frame(tasks, requests, replies, agent.name, rid)


async def _multi_turn(
    ctx: StageContext,
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    agent: ModelConfig,
    environment: ModelConfig,
    door: Completer,
    journal: Journal,
    max_turns: int,
    rid: str,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    from steps.plawbench.predict import multiturn_frame
    from steps.simulate.records import RunLabel, run_tables
    from steps.simulate.runner import DoorSpeaker, simulate

    consult, instances = dialogue.consultations(tasks, rubric, max_turns)
    scenario = dialogue.scenario(max_turns)
    batch_of = batches([i.instance_id for i in instances], BATCH, "consultation multi-turn")
    with ctx.counter(f"plawbench {agent.name} multi-turn", len(instances)) as advance:

        def work(done):
            def on_done(d) -> None:
                advance()
                done(batch_of[d.instance_id])

            return simulate(
                instances, lambda _: scenario, DoorSpeaker(door, agent, environment), journal, on_done=on_done
            )

        dialogues = await ctx.follow_groups(dict(Counter(batch_of.values())), work, batch_of)
    turns, rows = run_tables(dialogues, lambda _: scenario, RunLabel(rid, agent.name, "plawbench"))
    return multiturn_frame(consult, dialogues, agent.name, rid), turns, rows


def _answer(
    ctx: StageContext,
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    agent: ModelConfig,
    environment: ModelConfig,
    door: Completer,
    journal: Journal | None,
    options: PlawBenchParams,
    max_turns: int | None,
    rid: str,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Single-turn answers, then (max_turns set; their resume `journal`) the multi-turn consultations, in one
    event loop: the door's per-endpoint bounds belong to the loop that made them. Returns the responses and the
    consultations' turns and dialogues (empty without them)."""
    from steps.simulate.records import RunLabel, run_tables

    async def both() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        responses = await _single_turn(ctx, tasks, rubric, agent, door, options, rid)
        if max_turns is None or journal is None:
            none = dialogue.scenario(1)
            return responses, *run_tables([], lambda _: none, RunLabel(rid, agent.name, "plawbench"))
        extra, turns, dialogues = await _multi_turn(
            ctx, tasks, rubric, agent, environment, door, journal, max_turns, rid
        )
        return pd.concat([responses, extra], ignore_index=True), turns, dialogues

    return asyncio.run(both())


def predict(ctx: StageContext) -> str:
    """Ask one agent every task, plus the multi-turn consultations."""
    import steps.plawbench.scripted  # noqa: F401  (registers the scripted PLawBench policies)
    from steps.plawbench.predict import PROMPT_VERSION, select_tasks
    from steps.plawbench.prompts import templates_version
    from steps.schemas import Dialogues, Turns

    assert ctx.agent_name is not None
    agent_name, params, paths = ctx.agent_name, ctx.params, ctx.paths
    out_dir = paths.shared("plawbench")
    p = params.section(PlawBenchParams)
    agent, environment = params.agent(agent_name), params.environment_model("plawbench")
    limit = params.limit_for(agent_name, "plawbench")  # the agent's own limit and plawbench.limit, the smaller
    tasks = select_tasks(ctx.read_table(out_dir / "tasks.parquet", PlawTasks), limit, p.scenarios)
    rubric = ctx.read_table(out_dir / "rubric_items.parquet", PlawRubricItems)
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
        protocol_record=params.run_protocol("plawbench", len(tasks), ("environment",) if multiturn else ()),
    )
    rid = ctx.begin_run(run_dir, spec)
    journal = paths.journal("plawbench", agent_name, rid) if multiturn else None
    with ctx.model_session(rid, usage=run_dir / USAGE, journal=journal) as session:
        max_turns = p.multiturn.max_turns if multiturn else None
        responses, turns, dialogues = _answer(
            ctx, tasks, rubric, agent, environment, session.door, session.journal, p, max_turns, rid
        )
        ctx.write_table(responses, run_dir / "responses.parquet", PlawResponses, table="plawbench_responses")
        ctx.write_table(turns, run_dir / TURNS, Turns, table="plawbench_turns")
        ctx.write_table(dialogues, run_dir / DIALOGUES, Dialogues, table="plawbench_dialogues")
    ctx.write_run_json(run_dir, spec)
    per = (
        responses.groupby(["category", "variant"], sort=True)
        .agg(responses=("item_id", "size"), failed=("failure", lambda f: int(f.notna().sum())))
        .reset_index()
    )
    ctx.publish_table(
        f"plawbench-predict-{agent_name}",
        table_rows(per),
        f"PLawBench answers of {agent_name} ({agent.model}{', scripted' if agent.is_scripted else ''}) "
        f"per category; run {rid}",
    )
    ctx.check_calls(run_dir / USAGE, limits=context_limit_keys(turns, dialogues))
    failed = int(responses.failure.notna().sum())
    at_limit = int((dialogues.ended_by == "context_exceeded").sum())
    mt = f", {int((responses.variant == 'multiturn').sum())} multi-turn consultations" if multiturn else ""
    mt += f" ({at_limit} ended at the agent's context limit)" if at_limit else ""
    return (
        f"{agent_name} ({agent.model}): {int((responses.variant == 'single').sum())} tasks{mt}; "
        f"{session.calls:,} calls, {session.hits:,} from the cache, {failed} failed; run {rid}"
    )


# ------------------------------------------------------------------ report
def build_tables(frames: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The report's tables from the runs' and the paper's frames, through steps/plawbench/sql/plawbench_*.sql."""
    import duckdb

    from steps.reports.long import long_query

    out: dict[str, pd.DataFrame] = {}
    judge_info = frames["judge_info"]  # without `environment_proxy`: the client of the multi-turn variant is real
    if "environment_proxy" not in judge_info:
        judge_info = judge_info.assign(environment_proxy=False)
    with duckdb.connect() as con:
        for name, df in {**frames, "judge_info": judge_info}.items():
            con.register(name, df)
        for name in ("rates", "data", "judge_health", "errors", "penalty_rates", "penalty_answers", "penalty_findings"):
            out[name] = QUERIES.run(con, f"plawbench_{name}")
        main_rates = out["rates"][out["rates"]["table"] == "table3"].assign(source="ours")
        paper3 = frames["paper3"].rename(columns={"model": "agent"}).assign(source="paper")
        cols = ["agent", "source", "metric", "value"]
        overall_extra, rates_extra = _penalised_inputs(out, main_rates)
        con.register("rates", pd.concat([main_rates[cols], paper3[cols], *overall_extra], ignore_index=True))
        out["derived"] = QUERIES.run(con, "plawbench_overall")
        for name in ("derived", "errors", "penalty_answers", "penalty_findings"):
            con.register(name, out[name])
        con.register("rates", pd.concat([out["rates"], *rates_extra], ignore_index=True))
        con.register("data_stats", out["data"])
        con.register("health", out["judge_health"])
        out["long"] = long_query(con, QUERIES.path("plawbench_long"), with_unparsable=True)
    return out


def _penalised_inputs(
    out: dict[str, pd.DataFrame],
    main_rates: pd.DataFrame,
) -> tuple[list[pd.DataFrame], list[pd.DataFrame]]:
    """Opt-in paper-penalty mode: ([the Overall inputs with the penalised T1, source paper_penalty], [the
    penalised T1 rows for the long table]); ([], []) when the mode is off (the default tables as they were)."""
    penalised = out["penalty_rates"]
    single = penalised[penalised.scope == "overall"]
    if single.empty:
        return [], []
    others = main_rates[
        main_rates.agent.isin(single.agent) & main_rates.metric.isin(["T2", "T3/Defendant", "T3/Plaintiff"])
    ]
    overall_inputs = pd.concat(
        [single.assign(source="paper_penalty"), others.assign(source="paper_penalty")], ignore_index=True
    )[["agent", "source", "metric", "value"]]
    return [overall_inputs], [penalised]


def _report_frames(
    ctx: StageContext,
    params: Params,
    agents: Mapping[str, AgentInfo],
    tasks: pd.DataFrame,
    scores: list[pd.DataFrame],
    judgements: list[pd.DataFrame],
    items: list[pd.DataFrame],
) -> dict[str, pd.DataFrame]:
    """The frames `build_tables` reads: one run of each agent's scores, judgements and item scores, the tasks and
    rubric items, the paper's tables and the agents' and judge's flags."""
    from steps.plawbench import paper

    out_dir = ctx.paths.shared("plawbench")
    judge_model = params.judge_model("plawbench")
    return {
        "scores": pd.concat(scores, ignore_index=True),
        "judgements": pd.concat(judgements, ignore_index=True),
        "item_scores": pd.concat(items, ignore_index=True),
        "tasks": tasks,
        "rubric_items": ctx.read_table(out_dir / "rubric_items.parquet", PlawRubricItems),
        "error_types": paper.error_types(),
        "paper3": paper.table3_long(),
        "paper2": paper.table2(),
        "paper4": paper.table4().melt(id_vars="judge", var_name="metric", value_name="value"),
        "agents": pd.DataFrame(
            [{"agent": a.name, "model": a.model, "scripted": a.scripted} for a in agents.values()],
            columns=["agent", "model", "scripted"],
        ),
        "judge_info": pd.DataFrame(
            [
                {
                    "judge": judge_model.model,
                    "proxy": judge_model.is_scripted,
                    # the multi-turn variant's client
                    "environment_proxy": params.environment_model("plawbench").is_scripted,
                }
            ]
        ),
    }


def report(ctx: StageContext) -> str:
    """The paper-style PLawBench tables of every agent taking part, with the paper's numbers beside ours."""
    from steps.plawbench.benchmark import BENCHMARK
    from steps.plawbench.intervals import item_scores_of
    from steps.plawbench.paper import paper_names
    from steps.plawbench.report import ReportInputs, render_report
    from steps.reports.agents import labelled_rows, with_stand_ins
    from steps.reports.dvc_views import write_dvc_views
    from steps.reports.long import long_csv
    from steps.reports.repeats import mean_over_repeats, passes, repeat_file, repeated_cells, repeats_markdown, run_of
    from steps.reports.runs import agent_infos, run_info
    from steps.sources import load_manifest
    from steps.stats.cells import attach_intervals, cell_intervals

    paths = ctx.paths
    out_dir, reports = paths.shared("plawbench"), paths.reports
    params = ctx.params.for_benchmark("plawbench")  # the agents that take part in it
    p = params.section(PlawBenchParams)
    agents = agent_infos(params, "plawbench", paths, names=paper_names(), explicit=p.paper_names)
    repeats = {name: params.repeats(name) for name in agents}  # docs/statistics.md#repeated-runs
    tasks = ctx.read_table(out_dir / "tasks.parquet", PlawTasks)
    longs, all_cells = [], []
    for index in range(passes(repeats)):  # once per repeat of the repeated agents (once without repeats)
        scores, judgements, items = [], [], []
        for name in agents:
            repeat = run_of(repeats, name, index)
            run_dir = paths.repeat_run("plawbench", name, repeat)
            scores.append(ctx.read_table(repeat_file(ctx.exists, run_dir / "scores.parquet", repeat), PlawScores))
            judgements.append(ctx.read_table(run_dir / "judgements.parquet", PlawJudgements))
            items.append(ctx.read_table(run_dir / "item_scores.parquet", PlawItemScores))
        frames = _report_frames(ctx, params, agents, tasks, scores, judgements, items)
        pass_tables = ctx.task(build_tables, name="build_tables")(frames)
        longs.append(pass_tables["long"])
        all_cells.append(ctx.task(cell_intervals, name="intervals")(item_scores_of(frames["scores"], tasks)))
        if index == 0:
            tables = pass_tables  # the tables beside the scores (judge health, errors, penalties): repeat 0's
    # the twin: each repeated agent's numbers the mean over its runs, our rows' standard errors and 95 % intervals;
    # the Markdown labels its rows from it
    long = attach_intervals(mean_over_repeats(longs, repeats), repeated_cells(all_cells, repeats))
    tables["long"] = labelled_rows(long, agents)
    agents = with_stand_ins(agents, tables["long"])
    issues = ctx.read_table(out_dir / "parse_issues.parquet", PlawParseIssues)
    manifest = load_manifest(ctx.input_path(Path("sources.yaml")))
    commit = next(f.commit for f in manifest.files if f.dataset == "plawbench_case_analysis")
    inputs = ReportInputs(
        agents=agents,
        run=run_info(params, "plawbench", p.model_dump()),
        data_commit=commit,
        n_tasks=int(tasks.shape[0]),
        parse_issues=len(issues),
        issue_tasks=int(issues.item_id.nunique()),
    )
    markdown = render_report(tables, inputs)
    headlines = [(h.table, h.scope, h.metric) for h in BENCHMARK.headlines]
    if extra := repeats_markdown(tables["long"], repeats, headlines, scale=100, benchmark="plawbench"):
        markdown = markdown.rstrip("\n") + "\n\n" + extra
    ctx.write_text(reports / "plawbench.md", markdown)
    long = tables["long"]
    csv = long_csv(
        long, table="reports/plawbench.csv", digits=12, with_unparsable=True, with_limit=True, with_intervals=True
    )
    ctx.write_text(reports / "plawbench.csv", csv)
    ctx.publish_markdown("report-plawbench", markdown, "PLawBench scores (Tables 2-4 layouts), ours beside the paper's")
    write_dvc_views(BENCHMARK, ctx.input_path(reports / "plawbench.csv"), list(params.agents), ctx.output_path(reports))
    overall = long[(long["table"] == "table3") & (long.metric == "Overall") & (long.source == "ours")]
    summary = ", ".join(f"{r.agent} {r.value * 100:.2f}" for r in overall.itertuples()) or "no complete agent"
    return f"reports/plawbench.md and reports/plawbench.csv written ({len(long):,} long rows); Overall: {summary}"
