"""LawBench's registration (steps/registry.py): its headline numbers and plots. Its interim tables are in
`sources.py`, its params.yaml section in `params.py`. Its paper's models are data (results.csv), checked by
`lawbench_report`."""

from steps.registry import Benchmark, Headline, Plot

LEVELS = ("Memorization", "Understanding", "Application")
TASKS = tuple(f"{level}-{i}" for level, k in ((1, 2), (2, 10), (3, 8)) for i in range(1, k + 1))


def _setting(setting: str, column: str, label: str) -> tuple[Headline, ...]:
    """A setting's overall score (a leaderboard column and a line of `jurisflow eval`) and its three levels."""
    overall = Headline(setting, "score", key=(setting, "overall"), column=column, label=label, scale=100)
    return (overall, *(Headline(setting, "score", level, key=(setting, level), scale=100) for level in LEVELS))


BENCHMARK = Benchmark(
    name="lawbench",
    title="LawBench",
    position=1,
    headlines=(
        *_setting("zero_shot", "LawBench 0-shot", "LawBench zero-shot Overall"),
        *_setting("one_shot", "LawBench 1-shot", "LawBench one-shot Overall"),
    ),
    plots=(
        Plot("lawbench_zero_shot", "zero_shot", ("score",), TASKS, "scope", "task", "score"),
        Plot("lawbench_one_shot", "one_shot", ("score",), TASKS, "scope", "task", "score"),
    ),
)
