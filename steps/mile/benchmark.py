"""MILE / MASER's registration (steps/registry.py). Its interim table is in `sources.py`, its params.yaml section
in `params.py`."""

from steps.registry import Benchmark, Command, Headline, Page, Plot
from steps.stages import Stage

BENCHMARK = Benchmark(
    name="mile",
    title="MILE",
    smoke="steps.mile.smoke:profiles",
    commands=(Command("export-sft", "steps.mile.commands:export_sft"),),
    page=Page(
        titles=(
            ("goal", "Goal scores (MASER Table 1)"),
            ("interaction", "Interaction scores (MASER Table 2)"),
            ("consistency", "Judge consistency (MASER Table 3)"),
        ),
        table_order=("goal", "interaction", "consistency", "total", "dialogues", "rounds"),
        paper_in_plots=("GPT-4o",),
        charts="steps.mile.page:charts",
        link="steps.mile.page:link",
    ),
    dialogue_reader="steps.mile.page:records",
    item_scores="steps.mile.intervals:item_scores",
    position=3,
    judged=("scores",),
    dialogues=True,
    headlines=(
        Headline("goal", "AVE", key=("goal", "AVE"), column="MILE goal"),
        Headline("interaction", "AVE", key=("interaction", "AVE"), column="MILE interaction"),
        Headline("consistency", "CONS", key=("consistency", "CONS")),
        Headline("total", "AVE", key=("total", "AVE")),
    ),
    plots=(
        Plot("mile_goal", "goal", None, ("overall",), "metric", "metric", "score"),
        Plot("mile_interaction", "interaction", None, ("overall",), "metric", "metric", "score"),
    ),
    paper_names="steps.mile.published:paper_names",
    stages=(
        Stage(
            "mile_simulate",
            "steps.mile.stages:simulate",
            "Run one agent as the lawyer on the MILE sample; resumes an interrupted run.",
            agents="mile",
            reads=("data/interim/mile.parquet",),
            writes=(
                "data/mile/runs/{agent}/run.json",
                "data/mile/runs/{agent}/turns.parquet",
                "data/mile/runs/{agent}/dialogues.parquet",
                "data/mile/runs/{agent}/usage.parquet",
                "data/mile/runs/{agent}/call_cache.parquet",
            ),
            params=(
                "agents.{agent}",
                "environment",
                "mile.sample",
                "mile.seed",
                "mile.max_turns",
                "mile.template",
                "mile.supervise",
                "mile.style_triggers_revision",
                "mile.role_decoding",
                "mile.role_models",
            ),
            calls_models=True,
        ),
        Stage(
            "mile_judge",
            "steps.mile.judge_stages:judge",
            "Goal, interaction and client-consistency scores of one agent's MILE run.",
            agents="mile",
            reads=(
                "data/interim/mile.parquet",
                "data/mile/runs/{agent}/run.json",
                "data/mile/runs/{agent}/turns.parquet",
                "data/mile/runs/{agent}/dialogues.parquet",
            ),
            writes=(
                "data/mile/runs/{agent}/scores.parquet",
                "data/mile/runs/{agent}/scores_panel.parquet",
                "data/mile/runs/{agent}/judge_probes.parquet",
                "data/mile/runs/{agent}/judge/run.json",
                "data/mile/runs/{agent}/judge_usage.parquet",
                "data/mile/runs/{agent}/judge_call_cache.parquet",
            ),
            params=(
                "judge",
                "mile.windows",
                "mile.count_empty_fields",
                "mile.prof_reference",
                "mile.evid_reference",
                "mile.judge_probes",
            ),
            calls_models=True,
        ),
        Stage(
            "mile_report",
            "steps.mile.stages:report",
            "The paper-style MILE tables of every agent taking part, with the paper's numbers.",
            reads=(
                "data/interim/mile.parquet",
                "data/mile/runs",
            ),
            reports=(
                "reports/mile.md",
                "reports/mile.csv",
                "reports/plots/mile_goal.csv",
                "reports/plots/mile_interaction.csv",
                "reports/metrics/details/mile.json",
            ),
            metrics=("reports/metrics/mile.json",),
            params=(
                "agents",
                "environment",
                "judge",
                "mile",
            ),
        ),
    ),
)
