"""LawBench's registration (steps/registry.py): its headline numbers and plots. Its interim tables are in
`sources.py`, its params.yaml section in `params.py`. Its paper's models are data (results.csv), checked by
`lawbench_report`."""

from steps.registry import Benchmark, Command, Headline, Page, Plot
from steps.stages import Stage

LEVELS = ("Memorization", "Understanding", "Application")
TASKS = tuple(f"{level}-{i}" for level, k in ((1, 2), (2, 10), (3, 8)) for i in range(1, k + 1))


def _setting(setting: str, column: str) -> tuple[Headline, ...]:
    """A setting's overall score (a leaderboard column and a line of `jurisflow eval`, beside the Overall of the
    paper's 51 models in its appendix tables) and its three levels."""
    paper = f"steps.lawbench.paper:{setting}_overall"
    overall = Headline(setting, "score", key=(setting, "overall"), column=column, scale=100, paper=paper)
    return (overall, *(Headline(setting, "score", level, key=(setting, level), scale=100) for level in LEVELS))


BENCHMARK = Benchmark(
    name="lawbench",
    title="LawBench",
    smoke="steps.lawbench.smoke:profiles",
    commands=(Command("score", "steps.lawbench.commands:score"),),
    item_scores="steps.lawbench.intervals:item_scores",
    page=Page(
        titles=(
            ("zero_shot", "Zero-shot scores per task (LawBench appendix tables)"),
            ("one_shot", "One-shot scores per task (LawBench appendix tables)"),
        ),
        primary="score",
        paper_in_plots=("GPT4",),
        markdown="lawbench_zero_shot.md",
        percent=("zero_shot", "one_shot"),
        charts="steps.lawbench.page:charts",
    ),
    position=1,
    headlines=(
        *_setting("zero_shot", "LawBench 0-shot"),
        *_setting("one_shot", "LawBench 1-shot"),
    ),
    plots=(
        Plot("lawbench_zero_shot", "zero_shot", ("score",), TASKS, "scope", "task", "score", scale=100),
        Plot("lawbench_one_shot", "one_shot", ("score",), TASKS, "scope", "task", "score", scale=100),
    ),
    stages=(
        Stage(
            "lawbench_score",
            "steps.lawbench.stages:score",
            "Score every published prediction with our scorers and compare with results.csv.",
            reads=(
                "data/interim/lawbench_predictions.parquet",
                "data/interim/lawbench_published.parquet",
                "data/interim/lawbench_cilin.parquet",
                "data/interim/lawbench_confusions.parquet",
            ),
            writes=("data/lawbench/published_scores.parquet", "data/lawbench/published_item_scores.parquet"),
        ),
        Stage(
            "lawbench_predict",
            "steps.lawbench.stages:predict",
            "Prompt one agent on the 20 tasks in one setting (zero_shot or one_shot), then score it.",
            agents="lawbench",
            settings=("zero_shot", "one_shot"),
            reads=(
                "data/interim/lawbench_items.parquet",
                "data/interim/lawbench_cilin.parquet",
                "data/interim/lawbench_confusions.parquet",
            ),
            writes=(
                "data/lawbench/runs/{agent}/{setting}/run.json",
                "data/lawbench/runs/{agent}/{setting}/predictions.parquet",
                "data/lawbench/runs/{agent}/{setting}/scores.parquet",
                "data/lawbench/runs/{agent}/{setting}/item_scores.parquet",
                "data/lawbench/runs/{agent}/{setting}/usage.parquet",
                "data/lawbench/runs/{agent}/{setting}/call_cache.parquet",
            ),
            params=(
                "agents.{agent}",
                "lawbench",
            ),
            calls_models=True,
        ),
        Stage(
            "lawbench_report",
            "steps.lawbench.stages:report",
            "The paper-style LawBench tables of every agent taking part, beside the published scores rescored.",
            reads=(
                "data/lawbench/published_scores.parquet",
                "data/lawbench/published_item_scores.parquet",
                "data/interim/lawbench_published.parquet",
                "data/lawbench/runs",
            ),
            reports=(
                "reports/lawbench_zero_shot.md",
                "reports/lawbench_one_shot.md",
                "reports/lawbench.csv",
                "reports/plots/lawbench_zero_shot.csv",
                "reports/plots/lawbench_one_shot.csv",
                "reports/metrics/details/lawbench.json",
            ),
            metrics=("reports/metrics/lawbench.json",),
            params=("agents",),
        ),
    ),
)
