"""PLawBench's registration (steps/registry.py). Its interim tables are in `sources.py`, its params.yaml section
in `params.py`. Its dialogues are the multi-turn consultations (ours)."""

from steps.registry import Benchmark, Headline, Plot

BENCHMARK = Benchmark(
    name="plawbench",
    title="PLawBench",
    position=5,
    judged=("judgements",),
    dialogues=True,
    headlines=(
        Headline("table3", "Overall", column="PLawBench", label="PLawBench Overall", scale=100),
        *(Headline("table3", m, scale=100) for m in ("T1", "T2", "T3")),
    ),
    plots=(Plot("plawbench_table3", "table3", None, ("overall",), "metric", "score", "rate"),),
    paper_names="steps.plawbench.paper:paper_names",
)
