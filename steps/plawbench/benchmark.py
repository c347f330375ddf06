"""PLawBench's registration (steps/registry.py). Its interim tables are in `sources.py`, its params.yaml section
in `params.py`. Its dialogues are the multi-turn consultations (ours)."""

from steps.registry import Benchmark, Headline, Page, Plot
from steps.stages import Stage

BENCHMARK = Benchmark(
    name="plawbench",
    title="PLawBench",
    smoke="steps.plawbench.smoke:profiles",
    item_scores="steps.plawbench.intervals:item_scores",
    page=Page(
        titles=(
            ("table2", "Table 2: the data"),
            ("table3", "Table 3: scores by task type"),
            ("table4", "Table 4: judge agreement (paper)"),
        ),
        table_order=("table3", "table2", "table4", "scenarios", "sequential", "multiturn", "macro", "errors", "judge"),
        paper_in_plots=("GPT-4o-20240806",),
        charts="steps.plawbench.page:charts",
        link="steps.plawbench.page:link",
    ),
    dialogue_reader="steps.plawbench.page:records",
    dialogue_marker="responses.parquet",
    position=5,
    judged=("judgements",),
    human_study="steps.plawbench.human:STUDY",
    dialogues=True,
    headlines=(
        Headline("table3", "Overall", column="PLawBench", scale=100),
        *(Headline("table3", m, scale=100) for m in ("T1", "T2", "T3")),
    ),
    plots=(Plot("plawbench_table3", "table3", None, ("overall",), "metric", "score", "rate", scale=100),),
    paper_names="steps.plawbench.paper:paper_names",
    stages=(
        Stage(
            "plawbench_rubrics",
            "steps.plawbench.stages:rubrics",
            "The public tasks and their rubrics as tables, and the parse report.",
            reads=(
                "data/interim/plawbench_case_analysis.parquet",
                "data/interim/plawbench_consultation.parquet",
                "data/interim/plawbench_drafting.parquet",
            ),
            writes=(
                "data/plawbench/tasks.parquet",
                "data/plawbench/rubric_items.parquet",
                "data/plawbench/parse_issues.parquet",
            ),
            reports=("reports/plawbench_rubrics.md",),
        ),
        Stage(
            "plawbench_predict",
            "steps.plawbench.stages:predict",
            "Ask one agent every task, plus the multi-turn consultations.",
            agents="plawbench",
            reads=(
                "data/plawbench/tasks.parquet",
                "data/plawbench/rubric_items.parquet",
            ),
            writes=(
                "data/plawbench/runs/{agent}/run.json",
                "data/plawbench/runs/{agent}/responses.parquet",
                "data/plawbench/runs/{agent}/turns.parquet",
                "data/plawbench/runs/{agent}/dialogues.parquet",
                "data/plawbench/runs/{agent}/usage.parquet",
                "data/plawbench/runs/{agent}/call_cache.parquet",
            ),
            params=(
                "agents.{agent}",
                "environment",
                "plawbench.limit",
                "plawbench.scenarios",
                "plawbench.split_system",
                "plawbench.min_questions",
                "plawbench.max_questions",
                "plawbench.multiturn",
            ),
            calls_models=True,
        ),
        Stage(
            "plawbench_judge",
            "steps.plawbench.judge_stages:judge",
            "Judge one agent's responses item by item with the configured judge.",
            agents="plawbench",
            reads=(
                "data/plawbench/tasks.parquet",
                "data/plawbench/rubric_items.parquet",
                "data/plawbench/runs/{agent}/responses.parquet",
            ),
            writes=(
                "data/plawbench/runs/{agent}/judge/run.json",
                "data/plawbench/runs/{agent}/judgements.parquet",
                "data/plawbench/runs/{agent}/judgements_panel.parquet",
                "data/plawbench/runs/{agent}/scores.parquet",
                "data/plawbench/runs/{agent}/item_scores.parquet",
                "data/plawbench/runs/{agent}/judge_probes.parquet",
                "data/plawbench/runs/{agent}/judge_usage.parquet",
                "data/plawbench/runs/{agent}/judge_call_cache.parquet",
            ),
            params=(
                "judge",
                "plawbench.max_questions",
                "plawbench.judge_repairs",
                "plawbench.judge_verdict",
                "plawbench.judge_probes",
                "plawbench.t1_penalties",
            ),
            calls_models=True,
        ),
        Stage(
            "plawbench_report",
            "steps.plawbench.stages:report",
            "The paper-style PLawBench tables of every agent taking part, with the paper's numbers beside ours.",
            reads=("data/plawbench",),
            reports=(
                "reports/plawbench.md",
                "reports/plawbench.csv",
                "reports/plots/plawbench_table3.csv",
                "reports/metrics/details/plawbench.json",
            ),
            metrics=("reports/metrics/plawbench.json",),
            params=(
                "agents",
                "judge",
                "plawbench.limit",
                "plawbench.paper_names",
                "plawbench.t1_penalties",
            ),
        ),
    ),
)
