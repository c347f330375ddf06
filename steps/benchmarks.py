"""The benchmarks, found on disk: every package `steps/<name>/` with a `benchmark.py` declaring `BENCHMARK`.

The lists other layers need are derived here, in the benchmarks' order (`position`): the names, the dialogue
benchmarks, the judged tables, the leaderboard's headline columns (a table DuckDB joins instead of SQL VALUES) and
the paper-model check. A stage that needs only its own benchmark imports its registration (`steps.ucl.benchmark`),
not this catalog, so it does not depend on the others.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

import steps
from steps.registry import Benchmark, resolve
from steps.reports.labels import paper_model_name

if TYPE_CHECKING:
    import pandas as pd


def benchmark_module(folder: str) -> str:
    return f"steps.{folder}.benchmark"


def benchmark_folders() -> list[str]:
    """The packages under steps/ (every path the package spans) that register a benchmark."""
    return sorted(
        info.name
        for info in pkgutil.iter_modules(steps.__path__)
        if info.ispkg and importlib.util.find_spec(benchmark_module(info.name)) is not None
    )


@cache
def benchmarks() -> dict[str, Benchmark]:
    """Every registered benchmark by name, in order (`position`)."""
    found = []
    for folder in benchmark_folders():
        registered = importlib.import_module(benchmark_module(folder)).BENCHMARK
        if not isinstance(registered, Benchmark) or registered.name != folder:
            raise ValueError(f"steps/{folder}/benchmark.py: BENCHMARK must be the Benchmark named {folder!r}")
        found.append(registered)
    return {b.name: b for b in sorted(found, key=lambda b: (b.position, b.name))}


def benchmark(name: str) -> Benchmark:
    try:
        return benchmarks()[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(benchmarks())}") from None


def names() -> tuple[str, ...]:
    """The benchmarks' names in order."""
    return tuple(benchmarks())


def dialogue_benchmarks() -> tuple[str, ...]:
    """The benchmarks whose runs write turns and dialogues, in order."""
    return tuple(n for n, b in benchmarks().items() if b.dialogues)


def judged_tables() -> dict[str, tuple[str, ...]]:
    """Benchmark → the judged tables each of its runs writes (only benchmarks that have some)."""
    return {n: b.judged for n, b in benchmarks().items() if b.judged}


def headline_table() -> pd.DataFrame:
    """The leaderboard's columns (registered as `headlines` for steps/sql/results_leaderboard.sql): benchmark,
    column, position (1 = the first benchmark's first column), table, metric, scope, scale."""
    import pandas as pd

    rows = [
        (b.name, h.column, h.table, h.metric, h.scope, float(h.scale))
        for b in benchmarks().values()
        for h in b.headlines
        if h.column
    ]
    frame = pd.DataFrame(rows, columns=["benchmark", "column", "table", "metric", "scope", "scale"])
    frame.insert(2, "position", range(1, len(frame) + 1))
    return frame


def paper_headline_table() -> pd.DataFrame:
    """The papers' numbers a headline takes from its `paper` function rather than the CSV twin (registered as
    `paper_headlines`): benchmark, table, metric, scope, agent, value, judge."""
    import pandas as pd

    columns = ["benchmark", "table", "metric", "scope", "agent", "value", "judge"]
    parts = [
        resolve(h.paper)().assign(benchmark=b.name, table=h.table, metric=h.metric, scope=h.scope)[columns]
        for b in benchmarks().values()
        for h in b.headlines
        if h.column and h.paper
    ]
    empty = pd.DataFrame({c: pd.Series(dtype=float if c == "value" else str) for c in columns})
    return pd.concat([empty, *parts], ignore_index=True) if parts else empty


def paper_names(name: str) -> dict[str, tuple[str, ...]]:
    """The models of benchmark `name`'s paper and their other spellings ({} when its list is data)."""
    return benchmark(name).paper_models()


def register_headlines(con: Any) -> None:
    """Register the leaderboard's tables with a DuckDB connection: `headlines` and `paper_headlines`."""
    con.register("headlines", headline_table())
    con.register("paper_headlines", paper_headline_table())


def check_paper_model(paper_model: str | Mapping[str, str]) -> None:
    """A ValueError unless `paper_model` names a model of some paper (a string) or of each benchmark named (a
    mapping). A benchmark whose model list is data (`paper_names` None: LawBench's results.csv) is checked by its
    report stage."""
    listed = {n: b for n, b in benchmarks().items() if b.paper_names}
    if isinstance(paper_model, Mapping):
        for name in paper_model:
            if name not in benchmarks():
                raise ValueError(f"paper_model: unknown benchmark '{name}' (one of {', '.join(benchmarks())})")
            if name in listed:
                paper_model_name(paper_model, name, listed[name].paper_models())
        return
    if not any(paper_model_name(paper_model, n, b.paper_models()) for n, b in listed.items()):
        known = "; ".join(f"{n}: {', '.join(b.paper_models())}" for n, b in listed.items())
        unlisted = [n for n in benchmarks() if n not in listed]
        data = "".join(f"; or {benchmark(n).title}'s own list, named per benchmark as {{{n}: NAME}}" for n in unlisted)
        raise ValueError(f"paper_model: '{paper_model}' is a model of no paper ({known}{data})")
