"""UCL-Bench's registration (steps/registry.py). Its interim table is in `sources.py`, its params.yaml section in
`params.py`. The leaderboard quotes the paper's Table 3 for every paper model (ucl.csv holds the paper's cells only
for the agents matched to one)."""

from steps.registry import Benchmark, Headline, Plot

BENCHMARK = Benchmark(
    name="ucl",
    title="UCL-Bench",
    position=4,
    judged=("verdicts", "hint_scores"),
    dialogues=True,
    headlines=(
        Headline(
            "win_rate",
            "win_rate",
            column="UCL win rate",
            label="UCL-Bench win rate",
            paper="steps.ucl.paper:win_rates",
        ),
        Headline("win_rate", "win_rate_balanced"),
        Headline("hint_score", "hint_score"),
    ),
    plots=(Plot("ucl_win_rate", "win_rate", ("win_rate",), None, "scope", "task", "win_rate"),),
    paper_names="steps.ucl.paper:paper_names",
)
