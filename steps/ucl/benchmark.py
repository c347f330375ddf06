"""UCL-Bench's registration (steps/registry.py). Its interim table is in `sources.py`, its params.yaml section in
`params.py`. The leaderboard quotes the paper's Table 3 for every paper model (ucl.csv holds the paper's cells only
for the agents matched to one)."""

from steps.registry import Benchmark, Headline, Page, Plot
from steps.stages import Stage

BENCHMARK = Benchmark(
    name="ucl",
    title="UCL-Bench",
    smoke="steps.ucl.smoke:profiles",
    page=Page(
        titles=(
            ("win_rate", "Win rates against the reference model per task (UCL-Bench Table 3 layout)"),
            ("hint_score", "Pointwise hint score per task (ours)"),
            ("turns", "Dialogue turns"),
        ),
        table_order=("win_rate", "hint_score", "turns"),
        primary="win_rate",
        charts="steps.ucl.page:charts",
    ),
    dialogue_reader="steps.ucl.page:records",
    position=4,
    judged=("verdicts", "hint_scores"),
    dialogues=True,
    headlines=(
        Headline("win_rate", "win_rate", column="UCL win rate", paper="steps.ucl.paper:win_rates"),
        Headline("win_rate", "win_rate_balanced"),
        Headline("hint_score", "hint_score"),
    ),
    plots=(Plot("ucl_win_rate", "win_rate", ("win_rate",), None, "scope", "task", "win_rate"),),
    paper_names="steps.ucl.paper:paper_names",
    stages=(
        Stage(
            "ucl_reference",
            "steps.ucl.stages:reference",
            "The simulated user consults the reference model on every item (`ucl.limit` applies).",
            reads=("data/interim/ucl.parquet",),
            writes=(
                "data/ucl/reference/run.json",
                "data/ucl/reference/turns.parquet",
                "data/ucl/reference/dialogues.parquet",
                "data/ucl/reference/usage.parquet",
                "data/ucl/reference/call_cache.parquet",
            ),
            params=(
                "environment",
                "ucl.reference",
                "ucl.max_exchanges",
                "ucl.single_round",
                "ucl.limit",
                "ucl.tasks",
            ),
            calls_models=True,
            roles=("environment",),
            seat="steps.ucl.params:reference_model",
        ),
        Stage(
            "ucl_simulate",
            "steps.ucl.stages:simulate",
            "The simulated user consults one agent on every item (the agent's own limit applies).",
            agents="ucl",
            reads=("data/interim/ucl.parquet",),
            writes=(
                "data/ucl/runs/{agent}/run.json",
                "data/ucl/runs/{agent}/turns.parquet",
                "data/ucl/runs/{agent}/dialogues.parquet",
                "data/ucl/runs/{agent}/usage.parquet",
                "data/ucl/runs/{agent}/call_cache.parquet",
            ),
            params=(
                "agents.{agent}",
                "environment",
                "ucl.max_exchanges",
                "ucl.single_round",
                "ucl.limit",
                "ucl.tasks",
            ),
            calls_models=True,
            roles=("environment",),
        ),
        Stage(
            "ucl_judge",
            "steps.ucl.stages:judge",
            "Judge one agent's dialogues against the reference's in both orders, plus the hint scores.",
            agents="ucl",
            reads=(
                "data/interim/ucl.parquet",
                "data/ucl/runs/{agent}/run.json",
                "data/ucl/runs/{agent}/dialogues.parquet",
                "data/ucl/reference/run.json",
                "data/ucl/reference/dialogues.parquet",
            ),
            writes=(
                "data/ucl/runs/{agent}/judge/run.json",
                "data/ucl/runs/{agent}/verdicts.parquet",
                "data/ucl/runs/{agent}/hint_scores.parquet",
                "data/ucl/runs/{agent}/judge_usage.parquet",
                "data/ucl/runs/{agent}/judge_call_cache.parquet",
            ),
            params=(
                "judge",
                "ucl.reference.name",
                "ucl.judge_retries",
                "ucl.pointwise",
                "ucl.limit",
                "ucl.tasks",
                "agents.{agent}",
            ),
            calls_models=True,
            roles=("judge",),
        ),
        Stage(
            "ucl_report",
            "steps.ucl.stages:report",
            "The paper-style UCL-Bench tables of every agent taking part against the reference.",
            reads=(
                "data/interim/ucl.parquet",
                "data/ucl/runs",
                "data/ucl/reference/run.json",
                "data/ucl/reference/dialogues.parquet",
            ),
            reports=(
                "reports/ucl.md",
                "reports/ucl.csv",
                "reports/plots/ucl_win_rate.csv",
                "reports/metrics/details/ucl.json",
            ),
            metrics=("reports/metrics/ucl.json",),
            params=(
                "agents",
                "environment",
                "judge",
                "ucl",
            ),
        ),
    ),
)
