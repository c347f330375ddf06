"""MILE / MASER's registration (steps/registry.py). Its interim table is in `sources.py`, its params.yaml section
in `params.py`."""

from steps.registry import Benchmark, Headline, Plot

BENCHMARK = Benchmark(
    name="mile",
    title="MILE",
    position=3,
    judged=("scores",),
    dialogues=True,
    headlines=(
        Headline("goal", "AVE", key=("goal", "AVE"), column="MILE goal", label="MILE goal AVE"),
        Headline("interaction", "AVE", key=("interaction", "AVE"), column="MILE interaction"),
        Headline("consistency", "CONS", key=("consistency", "CONS")),
        Headline("total", "AVE", key=("total", "AVE")),
    ),
    plots=(
        Plot("mile_goal", "goal", None, ("overall",), "metric", "metric", "score"),
        Plot("mile_interaction", "interaction", None, ("overall",), "metric", "metric", "score"),
    ),
    paper_names="steps.mile.published:paper_names",
)
