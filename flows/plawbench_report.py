"""Stage `plawbench_report`: the paper-style PLawBench tables (Tables 2–4 layout, paper numbers beside ours)
and their long-format CSV twin.

dvc.yaml → this flow → steps/sql/plawbench_{rates,overall,data,judge_health,errors,long}.sql (DuckDB) →
steps.plawbench.report. Reads every configured agent's scores, judgements and item scores. In the opt-in
paper-penalty mode (`plawbench.t1_penalties: paper`) also plawbench_penalty_{rates,answers,findings}.sql: the
penalised T1 and its Overall, reported apart from the default ones.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import MANIFEST_FILE, PARAMS_FILE, load_params
from flows.kit.monitor import publish_report
from flows.kit.paths import PATHS, Paths
from flows.kit.stage import main, stage_flow
from steps.plawbench import paper
from steps.plawbench.benchmark import BENCHMARK
from steps.plawbench.paper import paper_names
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.report import ReportInputs, render_report
from steps.plawbench.schemas import (
    PlawItemScores,
    PlawJudgements,
    PlawParseIssues,
    PlawRubricItems,
    PlawScores,
    PlawTasks,
)
from steps.plawbench.sql import QUERIES
from steps.reports.dvc_views import write_dvc_views
from steps.reports.long import long_csv
from steps.reports.runs import agent_infos, run_info
from steps.sources import load_manifest
from steps.tables import read_table, write_text_atomic


@task(cache_policy=NO_CACHE)
def build_tables(frames: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    from steps.reports.long import long_query

    out: dict[str, pd.DataFrame] = {}
    with duckdb.connect() as con:
        for name, df in frames.items():
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


@stage_flow
def plawbench_report(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The paper-style PLawBench tables of every agent taking part, with the paper's numbers beside ours."""
    out_dir, reports = paths.shared("plawbench"), paths.reports
    params = load_params(params_file).for_benchmark("plawbench")  # the agents that take part in it
    p = params.section(PlawBenchParams)
    judge = params.judge_model()
    agents = agent_infos(params, "plawbench", paths, names=paper_names(), explicit=p.paper_names)
    scores, judgements, items = [], [], []
    for name in agents:
        run_dir = paths.run("plawbench", name)
        scores.append(read_table(run_dir / "scores.parquet", PlawScores))
        judgements.append(read_table(run_dir / "judgements.parquet", PlawJudgements))
        items.append(read_table(run_dir / "item_scores.parquet", PlawItemScores))
    tasks = read_table(out_dir / "tasks.parquet", PlawTasks)
    frames = {
        "scores": pd.concat(scores, ignore_index=True),
        "judgements": pd.concat(judgements, ignore_index=True),
        "item_scores": pd.concat(items, ignore_index=True),
        "tasks": tasks,
        "rubric_items": read_table(out_dir / "rubric_items.parquet", PlawRubricItems),
        "error_types": paper.error_types(),
        "paper3": paper.table3_long(),
        "paper2": paper.table2(),
        "paper4": paper.table4().melt(id_vars="judge", var_name="metric", value_name="value"),
        "agents": pd.DataFrame(
            [{"agent": a.name, "model": a.model, "scripted": a.scripted} for a in agents.values()],
            columns=["agent", "model", "scripted"],
        ),
        "judge_info": pd.DataFrame([{"judge": judge.model, "proxy": judge.is_scripted}]),
    }
    tables = build_tables(frames)
    issues = read_table(out_dir / "parse_issues.parquet", PlawParseIssues)
    commit = next(f.commit for f in load_manifest(MANIFEST_FILE).files if f.dataset == "plawbench_case_analysis")
    inputs = ReportInputs(
        agents=agents,
        run=run_info(params, p.model_dump()),
        data_commit=commit,
        n_tasks=int(tasks.shape[0]),
        parse_issues=len(issues),
        issue_tasks=int(issues.item_id.nunique()),
    )
    write_text_atomic(reports / "plawbench.md", render_report(tables, inputs))
    long = tables["long"]
    write_text_atomic(
        reports / "plawbench.csv", long_csv(long, table="reports/plawbench.csv", digits=12, with_unparsable=True)
    )
    publish_report(reports / "plawbench.md", "PLawBench scores (Tables 2-4 layouts), ours beside the paper's")
    write_dvc_views(BENCHMARK, reports / "plawbench.csv", list(params.agents), reports)
    overall = long[(long["table"] == "table3") & (long.metric == "Overall") & (long.source == "ours")]
    summary = ", ".join(f"{r.agent} {r.value * 100:.2f}" for r in overall.itertuples()) or "no complete agent"
    return f"reports/plawbench.md and reports/plawbench.csv written ({len(long):,} long rows); Overall: {summary}"


if __name__ == "__main__":
    main(plawbench_report)
