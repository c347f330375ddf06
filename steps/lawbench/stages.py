"""LawBench's stage bodies (declared in steps/lawbench/benchmark.py): the published predictions rescored, each
agent's predictions in one setting, the report. Each takes its `StageContext` and returns its one-line summary.

- `score`: every published prediction scored with our scorers (steps.lawbench.metrics); writes
  data/lawbench/published_scores.parquet; the comparison with results.csv is in the summary line and the reports.
- `predict` (per agent and setting): the agent prompted on the 20 tasks as LawBench built the prompts
  (steps.lawbench.predict), each cut to `lawbench.max_input_tokens` and answered in at most
  `lawbench.max_new_tokens`, then scored; writes <run>/{predictions,scores,usage}.parquet and run.json (which
  records both limits and how tokens were counted). A rerun replays finished calls from the response cache.
- `report`: reports/lawbench_{zero_shot,one_shot}.md, reports/lawbench.csv and the DVC views, from the rescored
  published predictions, results.csv and every agent's scores (steps/lawbench/sql/lawbench_long.sql and
  lawbench_deltas.sql, DuckDB).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd

from steps.lawbench.metrics.batch import score_predictions_and_items
from steps.lawbench.metrics.proofread import LexiconFiles, lexicon_tables
from steps.lawbench.metrics.tasks import SETTINGS
from steps.lawbench.params import LawBenchParams
from steps.lawbench.predict import PROMPT_VERSION, build_requests, predictions_frame, select_items, with_prompts
from steps.lawbench.schemas import LawBenchItemScores, LawBenchRunPredictions, LawBenchScores
from steps.lawbench.sources import LawBenchItems, LawBenchPredictions, LawBenchPublished
from steps.lawbench.truncate import CHARACTERS
from steps.llm import Completer, ModelConfig
from steps.paths import USAGE
from steps.runs import run_spec
from steps.stages import StageContext
from steps.tables import table_rows

PUBLISHED_SCORES = "published_scores.parquet"  # in data/lawbench/
PUBLISHED_ITEMS = "published_item_scores.parquet"  # in data/lawbench/: the items behind PUBLISHED_SCORES
ITEM_SCORES = "item_scores.parquet"  # in a run's directory
TOLERANCE = 1e-6


def _lexicon(ctx: StageContext) -> LexiconFiles:
    """Task 2-1's lexicon files: ingest's two tables (a missing one is the one-line error to run ingest)."""
    return lexicon_tables(ctx.paths.interim, ctx.input_path)


# ------------------------------------------------------------------ published predictions
def score_published(predictions: pd.DataFrame, proofread_paths: LexiconFiles) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The published predictions' scores per (setting, model, task) and their items' scores."""
    scores, items = score_predictions_and_items(predictions, **proofread_paths)
    scores = scores.rename(columns={"model": "agent"})
    return (
        scores.assign(n_failed=0, proxy=False, run_id="published")[list(LawBenchScores.to_schema().columns)],
        _items(items),
    )


def _items(items: pd.DataFrame) -> pd.DataFrame:
    """The item scores in LawBenchItemScores' layout."""
    return items.rename(columns={"model": "agent"})[list(LawBenchItemScores.to_schema().columns)]


def compare(scores: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Join ours and published by (setting, model, task); one row per cell with both differences."""
    merged = scores.merge(
        published.rename(columns={"model": "agent"}),
        on=["setting", "agent", "task"],
        how="inner",
        suffixes=("", "_published"),
        validate="one_to_one",
    )
    merged["score_diff"] = (merged.score - merged.score_published).abs()
    merged["abstention_diff"] = (merged.abstention_rate - merged.abstention_rate_published).abs()
    return merged


def score(ctx: StageContext) -> str:
    """Score every published prediction with our scorers and compare with results.csv."""
    paths = ctx.paths
    proofread_paths = _lexicon(ctx)
    predictions = ctx.read_table(paths.interim / "lawbench_predictions.parquet", LawBenchPredictions)
    published = ctx.read_table(paths.interim / "lawbench_published.parquet", LawBenchPublished)
    scores, items = ctx.task(score_published)(predictions, proofread_paths)
    ctx.write_table(scores, paths.shared("lawbench") / PUBLISHED_SCORES, LawBenchScores, table="lawbench_scores")
    ctx.write_table(items, paths.shared("lawbench") / PUBLISHED_ITEMS, LawBenchItemScores, table="lawbench_item_scores")
    cells = compare(scores, published)
    off = cells[(cells.score_diff > TOLERANCE) | (cells.abstention_diff > TOLERANCE)]
    return (
        f"{len(scores)} (setting, model, task) cells scored; {len(cells) - len(off)} of {len(cells)} match "
        f"results.csv within {TOLERANCE:g} (max |Δscore| {cells.score_diff.max():.2g}, "
        f"max |Δabstention| {cells.abstention_diff.max():.2g}); {len(off)} differ"
    )


# ------------------------------------------------------------------ an agent's predictions
def input_limit(section: LawBenchParams, rule: str) -> dict[str, object]:
    """The input limit as run.json records it: tokens allowed, which side is cut, how tokens were counted."""
    return {"max_input_tokens": section.max_input_tokens, "truncation": section.truncation, "count": rule}


def _predict(ctx: StageContext, items: pd.DataFrame, agent: ModelConfig, door: Completer) -> pd.DataFrame:
    """Every item, one unit of the monitor per LawBench task (`1-1 zero_shot` ...), all in one event loop: the
    door's per-endpoint bound is shared by the 20 tasks as it was by one call over all items."""
    requests = build_requests(items, agent)
    setting = items.setting.iloc[0] if len(items) else ""
    with ctx.counter(f"lawbench {agent.name} {setting}", len(requests)) as advance:
        replies = asyncio.run(
            ctx.gather_groups(
                requests,
                lambda r: r.metadata["task"],
                lambda group: door.complete_many(group, on_reply=advance),
                label=lambda task_id: f"{task_id} {setting}",
            )
        )
    return predictions_frame(items, replies, agent.name)


def score_run(
    predictions: pd.DataFrame, agent: ModelConfig, rid: str, proofread_paths: LexiconFiles
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Score the successful predictions; failed calls are counted per task, never scored as empty answers. Returns
    the scores per task and the scored items' scores."""
    ok = predictions[predictions.failure_kind.isna()]
    scores, items = score_predictions_and_items(ok, contiguous=False, **proofread_paths)
    failed = predictions[predictions.failure_kind.notna()].groupby(["setting", "task"]).size().rename("n_failed")
    # outer: a task whose every call failed keeps its row (no score, n 0) and its failed count
    scores = scores.merge(failed.reset_index(), on=["setting", "task"], how="outer", validate="one_to_one")
    scores = scores.assign(
        agent=agent.name,
        n=scores.n.fillna(0).astype(int),
        n_failed=scores.n_failed.fillna(0).astype(int),
        proxy=agent.is_scripted,
        run_id=rid,
    )[list(LawBenchScores.to_schema().columns)]
    return scores, _items(items.assign(model=agent.name))


def predict(ctx: StageContext) -> str:
    """Prompt one agent on the 20 tasks in one setting (zero_shot or one_shot), then score it."""
    import steps.lawbench.scripted  # noqa: F401  (registers the scripted LawBench policies)

    agent_name, setting, params, paths = ctx.agent_name, ctx.setting, ctx.params, ctx.paths
    assert agent_name is not None and setting is not None
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting '{setting}'; expected one of {', '.join(SETTINGS)}")
    limit = params.limit_for(agent_name, "lawbench")  # the agent's own limit and lawbench.limit, the smaller
    lawbench = params.section(LawBenchParams)
    agent = lawbench.agent_model(params.agent(agent_name))  # with_protocol, then with_max_new_tokens
    items = ctx.read_table(paths.interim / "lawbench_items.parquet", LawBenchItems)
    items = select_items(items, setting, limit, lawbench.tasks)
    tokenizer = ctx.served_tokenizer(agent) if lawbench.count_tokens == "tokens" else None
    try:
        items = with_prompts(items, lawbench.max_input_tokens, tokenizer, lawbench.truncation)
    finally:
        if tokenizer is not None:
            tokenizer.close()
    subset = {"tasks": lawbench.tasks} if lawbench.tasks else {}  # in the run's identity only when set
    run_dir = paths.run("lawbench", agent_name, setting)
    spec = run_spec(
        agent,
        "lawbench",
        setting=setting,
        prompt_version=PROMPT_VERSION,
        limit=limit,
        **subset,
        input_limit=input_limit(lawbench, tokenizer.rule if tokenizer else CHARACTERS),
        max_new_tokens=lawbench.max_new_tokens,
        protocol_record=params.run_protocol("lawbench", len(items), agent=agent_name),
    )
    rid = ctx.begin_run(run_dir, spec)
    with ctx.model_session(rid, usage=run_dir / USAGE) as session:
        predictions = _predict(ctx, items, agent, session.door)
        ctx.write_table(
            predictions, run_dir / "predictions.parquet", LawBenchRunPredictions, table="lawbench_predictions"
        )
        scores, item_rows = ctx.task(score_run, name="score")(predictions, agent, rid, _lexicon(ctx))
        ctx.write_table(scores, run_dir / "scores.parquet", LawBenchScores, table="lawbench_scores")
        ctx.write_table(item_rows, run_dir / ITEM_SCORES, LawBenchItemScores, table="lawbench_item_scores")
    ctx.write_run_json(run_dir, spec)
    ctx.publish_table(
        f"lawbench-{agent_name}-{setting}",
        table_rows(
            scores[["task", "score", "abstention_rate", "n", "n_failed"]].assign(
                score=100 * scores.score, abstention_rate=100 * scores.abstention_rate
            )
        ),
        f"LawBench {setting}, {agent_name} ({agent.model}{', scripted' if agent.is_scripted else ''}): "
        f"score and abstention rate per task (×100); run {rid}",
    )
    ctx.check_calls(run_dir / USAGE)
    n_failed = int(predictions.failure_kind.notna().sum())
    n_cut = int(predictions.input_truncated.sum())
    rule = items.input_rule.iloc[0] if len(items) else "-"
    return (
        f"{agent_name} ({agent.model}) {setting}: {len(predictions):,} items over {scores.task.nunique()} tasks, "
        f"{n_cut} prompts cut to {lawbench.max_input_tokens} tokens ({rule}), "
        f"{session.hits:,} from the cache, {n_failed} failed calls; run {rid}"
    )


# ------------------------------------------------------------------ report
def build_tables(scores: pd.DataFrame, published: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The long table (steps/lawbench/sql/lawbench_long.sql) and ours against the published per cell
    (lawbench_deltas.sql)."""
    import duckdb

    from steps.lawbench.report import tasks_frame
    from steps.lawbench.sql import QUERIES
    from steps.reports.long import long_query

    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("published", published)
        con.register("lawbench_tasks", tasks_frame())
        long = long_query(con, QUERIES.path("lawbench_long"))
        con.register("lawbench_long", long)
        deltas = QUERIES.run(con, "lawbench_deltas")
    return long, deltas


def _inputs_line(ctx: StageContext, agent: str, setting: str) -> str | None:
    """How the agent's prompts were cut in `setting` (steps.lawbench.report.inputs_note); None before it ran."""
    from steps.lawbench.report import inputs_note
    from steps.runs import read_run_if_any

    run = ctx.paths.run("lawbench", agent, setting)
    if not ctx.exists(run / "predictions.parquet"):
        return None
    record = read_run_if_any(ctx.input_path(run))
    if record is None:
        return None
    predictions = pd.read_parquet(ctx.input_path(run / "predictions.parquet"))
    return inputs_note(agent, predictions, record.spec)


def report(ctx: StageContext) -> str:
    """The paper-style LawBench tables of every agent taking part, beside the published scores rescored."""
    from steps.lawbench.benchmark import BENCHMARK
    from steps.lawbench.intervals import item_scores_of
    from steps.lawbench.report import csv_text, render_setting
    from steps.reports.agents import labelled_rows, with_stand_ins
    from steps.reports.dvc_views import write_dvc_views
    from steps.reports.repeats import mean_over_repeats, passes, repeat_file, repeated_cells, repeats_markdown, run_of
    from steps.reports.runs import agent_info, truncated_replies
    from steps.sources import load_manifest
    from steps.stats.cells import attach_intervals, cell_intervals

    params, paths = ctx.params.for_benchmark("lawbench"), ctx.paths  # the agents that take part in it
    reports = paths.reports
    published_scores = ctx.read_table(paths.shared("lawbench") / PUBLISHED_SCORES, LawBenchScores)
    published_items = ctx.read_table(paths.shared("lawbench") / PUBLISHED_ITEMS, LawBenchItemScores)
    published = ctx.read_table(paths.interim / "lawbench_published.parquet", LawBenchPublished)
    names = {m: () for m in sorted(set(published.model))}  # the paper's models: those of its results.csv
    agents = {}
    repeats = {name: params.repeats(name) for name in params.agents}  # docs/statistics.md#repeated-runs
    longs, all_cells = [], []
    for index in range(passes(repeats)):  # once per repeat of the repeated agents (once without repeats)
        frames, items = [published_scores], [published_items]
        for name in params.agents:
            # a setting not run yet for this agent (e.g. `dvc repro lawbench_predict@<agent>-zero_shot` alone) is
            # left out of that setting's table and named in its notes; a later repeat has the settings repeat 0 has
            repeat = run_of(repeats, name, index)
            first = [paths.run("lawbench", name, s) for s in SETTINGS]
            ran = [
                paths.repeat_run("lawbench", name, repeat, d.name) for d in first if ctx.exists(d / "scores.parquet")
            ]
            frames += [
                ctx.read_table(repeat_file(ctx.exists, d / "scores.parquet", repeat), LawBenchScores) for d in ran
            ]
            items += [ctx.read_table(d / ITEM_SCORES, LawBenchItemScores) for d in ran if ctx.exists(d / ITEM_SCORES)]
            if index == 0:
                dirs = [ctx.input_path(d) for d in ran]
                agents[name] = agent_info(params, name, "lawbench", dirs, names=names, by_name=False, required=False)
        scores = pd.concat(frames, ignore_index=True)
        long_pass, deltas_pass = ctx.task(build_tables)(scores, published)
        longs.append(long_pass)
        all_cells.append(
            ctx.task(cell_intervals, name="intervals")(item_scores_of(pd.concat(items, ignore_index=True)))
        )
        if index == 0:
            deltas = deltas_pass  # ours against the published scores: repeat 0's, as an agent without repeats
    long = attach_intervals(mean_over_repeats(longs, repeats), repeated_cells(all_cells, repeats))
    long = labelled_rows(long, agents)  # the twin's `limit`; Markdown labels its rows from the same rows
    agents = with_stand_ins(agents, long)
    manifest = load_manifest(ctx.input_path(Path("sources.yaml")))
    commit = next(f.commit for f in manifest.files if f.dataset == "lawbench_items")
    markdown = {}
    for setting in SETTINGS:
        cut = {name: truncated_replies([ctx.input_path(paths.run("lawbench", name, setting))]) for name in agents}
        inputs = [line for name in agents if (line := _inputs_line(ctx, name, setting))]
        markdown[setting] = render_setting(long, deltas, setting, agents, commit, list(names), cut, inputs)
        headlines = [(h.table, h.scope, h.metric) for h in BENCHMARK.headlines if h.table == setting]
        if extra := repeats_markdown(long, repeats, headlines, scale=100, benchmark="lawbench"):
            markdown[setting] = markdown[setting].rstrip("\n") + "\n\n" + extra
        ctx.write_text(reports / f"lawbench_{setting}.md", markdown[setting])
    ctx.write_text(reports / "lawbench.csv", csv_text(long))
    for setting in SETTINGS:
        ctx.publish_markdown(
            f"report-lawbench_{setting}", markdown[setting], f"LawBench {setting}: ours beside the published scores"
        )
    write_dvc_views(BENCHMARK, ctx.input_path(reports / "lawbench.csv"), list(params.agents), ctx.output_path(reports))
    worst = deltas.max_abs_diff.max() if len(deltas) else float("nan")
    return (
        f"reports/lawbench_zero_shot.md, reports/lawbench_one_shot.md and reports/lawbench.csv written "
        f"({len(long):,} long rows; {len(agents)} agents; largest |ours − published| {worst:.2g})"
    )
