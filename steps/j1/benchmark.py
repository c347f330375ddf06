"""J1-ENVS / J1-EVAL's registration (steps/registry.py). Its environments register themselves under
steps/j1/envs/; its interim tables (the judgments they are built from) are in `sources.py`, its params.yaml
section in `params.py`."""

from steps.registry import Benchmark, Headline, Plot

BENCHMARK = Benchmark(
    name="j1",
    title="J1-EVAL",
    position=2,
    judged=("scores",),
    dialogues=True,
    headlines=(
        Headline("table3", "Overall", label="J1-EVAL Overall"),
        Headline("table3", "AVG_OO", column="J1 AVG (OO)"),
        Headline("table3", "AVG_PO", column="J1 AVG (PO)"),
    ),
    plots=(Plot("j1_table3", "table3", None, None, "scope metric", "metric", "score"),),
    paper_names="steps.j1.eval.paper:paper_names",
)
