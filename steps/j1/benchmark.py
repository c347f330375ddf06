"""J1-ENVS / J1-EVAL's registration (steps/registry.py). Its environments register themselves under
steps/j1/envs/; its interim tables (the judgments they are built from) are in `sources.py`, its params.yaml
section in `params.py`."""

from steps.registry import Benchmark, Command, Headline, Page, Plot
from steps.stages import Stage

BENCHMARK = Benchmark(
    name="j1",
    title="J1-EVAL",
    smoke="steps.j1.smoke:profiles",
    commands=(
        Command("extract-judgments", "steps.j1.commands:extract_judgments", flow=True),
        Command("parser-accuracy", "steps.j1.commands:parser_accuracy"),
    ),
    page=Page(
        titles=(
            ("table3", "Table 3: the ten metrics per environment (×100; III-4 lower is better)"),
            ("table6", "Table 6: CD document score components"),
            ("table7", "Table 7: DD document components"),
            ("table8", "Table 8: CI procedure components"),
            ("table9", "Table 9: CR procedure and penalties"),
            ("table10", "Table 10: average turns per environment"),
        ),
        table_order=("table3", "table6", "table7", "table8", "table9", "table10"),
        paper_in_plots=("GPT-4o",),
        scope_order="steps.j1.page:scope_order",
        charts="steps.j1.page:charts",
        preface="steps.j1.page:preface",
        brief="steps.j1.page:results_note",
    ),
    dialogue_reader="steps.j1.page:records",
    item_scores="steps.j1.eval.intervals:item_scores",
    show="steps.j1.show:dialogue_lines",
    position=2,
    judged=("scores",),
    human_study="steps.j1.human:STUDY",
    dialogues=True,
    headlines=(
        Headline("table3", "Overall"),
        Headline("table3", "AVG_OO", column="J1 AVG (OO)"),
        Headline("table3", "AVG_PO", column="J1 AVG (PO)"),
    ),
    plots=(Plot("j1_table3", "table3", None, None, "scope metric", "metric", "score"),),
    paper_names="steps.j1.eval.paper:paper_names",
    stages=(
        Stage(
            "j1_extract",
            "steps.j1.stages:extract",
            "Extract every judgment of the interim tables; write the tables, then the report.",
            reads=(
                "data/interim/judgments_criminal.parquet",
                "data/interim/judgments_civil.parquet",
            ),
            writes=(
                "data/j1/cases.parquet",
                "data/j1/extraction_issues.parquet",
                "data/j1/extract_usage.parquet",
                "data/j1/extract_call_cache.parquet",
            ),
            reports=(
                "reports/extraction.md",
                "reports/extraction.csv",
            ),
            params=(
                "j1.extract",
                "environment",
            ),
            code=("tests/j1/extract/fixtures/verdicts.json",),
            calls_models=True,
        ),
        Stage(
            "j1_topics",
            "steps.j1.stages:topics",
            "The KQ and LC topic lists.",
            reads=("data/interim/lawbench_items.parquet",),
            writes=(
                "data/j1/topics.parquet",
                "data/j1/topics_usage.parquet",
                "data/j1/topics_call_cache.parquet",
            ),
            params=(
                "j1.topics",
                "environment",
            ),
            code=("steps/lawbench",),  # the schema of the LawBench items it reads (steps/lawbench/sources.py)
            calls_models=True,
        ),
        Stage(
            "j1_personas",
            "steps.j1.stages:personas",
            "A persona for every lay role of the instances to be built.",
            reads=(
                "data/j1/cases.parquet",
                "data/j1/topics.parquet",
                "data/interim/judgments_civil.parquet",
            ),
            writes=(
                "data/j1/personas.parquet",
                "data/j1/personas_usage.parquet",
                "data/j1/personas_call_cache.parquet",
            ),
            params=(
                "j1.personas",
                "j1.instances",
                "environment",
            ),
            calls_models=True,
        ),
        Stage(
            "j1_instances",
            "steps.j1.stages:instances",
            "The instances of the J1 environments, and the instances report.",
            reads=(
                "data/j1/cases.parquet",
                "data/j1/topics.parquet",
                "data/j1/personas.parquet",
                "data/interim/judgments_civil.parquet",
            ),
            writes=(
                "data/j1/instances.parquet",
                "data/j1/instance_skips.parquet",
            ),
            reports=(
                "reports/instances.md",
                "reports/instances.csv",
            ),
            params=(
                "j1.instances",
                "j1.personas",
                "j1.topics",
                "environment",
            ),
        ),
        Stage(
            "j1_simulate",
            "steps.j1.eval.stages:simulate",
            "Every instance's dialogue between one agent and the environment roles; resumes an interrupted run.",
            agents="j1",
            reads=("data/j1/instances.parquet",),
            writes=(
                "data/j1/runs/{agent}/run.json",
                "data/j1/runs/{agent}/turns.parquet",
                "data/j1/runs/{agent}/dialogues.parquet",
                "data/j1/runs/{agent}/usage.parquet",
                "data/j1/runs/{agent}/call_cache.parquet",
            ),
            params=(
                "agents.{agent}",
                "environment",
                "j1.simulate",
            ),
            calls_models=True,
        ),
        Stage(
            "j1_judge",
            "steps.j1.eval.judge_stages:judge",
            "Score one agent's J1 run on the ten metrics (rules and LLM judges), with the court failure causes.",
            agents="j1",
            reads=(
                "data/j1/instances.parquet",
                "data/j1/runs/{agent}/run.json",
                "data/j1/runs/{agent}/turns.parquet",
                "data/j1/runs/{agent}/dialogues.parquet",
            ),
            writes=(
                "data/j1/runs/{agent}/scores.parquet",
                "data/j1/runs/{agent}/scores_panel.parquet",
                "data/j1/runs/{agent}/failure_causes.parquet",
                "data/j1/runs/{agent}/judge_usage.parquet",
                "data/j1/runs/{agent}/judge_call_cache.parquet",
            ),
            reports=("reports/transcripts/{agent}",),
            params=(
                "judge",
                "j1.eval.strict_topics",
                "j1.eval.penalty_normaliser",
                "j1.eval.min_exchanges",
                "j1.eval.call_failed",
                "j1.eval.procedure",
                "agents.{agent}",
                "environment",
                "j1.simulate.transcripts",
            ),
            calls_models=True,
        ),
        Stage(
            "j1_report",
            "steps.j1.eval.stages:report",
            "The J1-EVAL tables of every agent taking part, with the paper's numbers beside them.",
            reads=("data/j1/runs", "data/j1/instances.parquet"),
            reports=(
                "reports/j1.md",
                "reports/j1.csv",
                "reports/plots/j1_table3.csv",
                "reports/metrics/details/j1.json",
            ),
            metrics=("reports/metrics/j1.json",),
            params=(
                "agents",
                "environment",
                "judge",
                "j1.eval",
            ),
        ),
    ),
)
