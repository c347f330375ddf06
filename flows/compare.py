"""`jurisflow compare A B`: the paired difference of two agents per benchmark and per cell, on the items both
answered, from each benchmark's registered item scores (`Benchmark.item_scores`; steps/stats/compare.py)."""

from __future__ import annotations

import math

import pandas as pd

from flows.kit.paths import PATHS
from flows.results import parse_benchmarks
from steps.benchmarks import benchmarks
from steps.paths import Paths
from steps.registry import resolve

FORMATS = ("table", "md", "csv")


def comparison(a: str, b: str, benchmark: str | None = None, paths: Paths = PATHS) -> tuple[pd.DataFrame, list[str]]:
    """Every cell's paired comparison of `a` and `b` (a `benchmark` column first) over the chosen benchmarks that
    register item scores and have both agents' runs, and a note per benchmark left out."""
    from steps.stats.compare import compare

    frames, notes = [], []
    registered = benchmarks()
    for name in parse_benchmarks(benchmark):
        reg = registered[name]
        if reg.item_scores is None:
            notes.append(f"{name}: no item scores registered (no intervals yet)")
            continue
        missing = [x for x in (a, b) if not paths.run(name, x).is_dir()]
        if missing:
            notes.append(f"{name}: no run of {', '.join(missing)} under {paths.runs(name)}/")
            continue
        frames.append(compare(resolve(reg.item_scores)(paths, [a, b]), a, b).assign(benchmark=name))
    if not frames:
        raise ValueError(f"nothing to compare: {'; '.join(notes)}")
    out = pd.concat(frames, ignore_index=True)
    return out[["benchmark", *[c for c in out.columns if c != "benchmark"]]], notes


def _num(value: object, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{float(value):.{digits}f}"  # type: ignore[arg-type]


def _p(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    v = float(value)  # type: ignore[arg-type]
    return f"{v:.2g}" if v < 0.001 else f"{v:.3f}"


def display(rows: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The comparison as text cells: cell, n (excluded), A, B, Δ, 95 % CI, p, p (BH), test, ρ."""
    scope = [f"{t} · {s} · {m}" + (" (aggregate)" if lv == "aggregate" else "") for t, s, m, lv in zip(
        rows["table"], rows.scope, rows.metric, rows.level, strict=True
    )]  # fmt: skip
    return pd.DataFrame(
        {
            "benchmark": rows.benchmark,
            "cell": scope,
            "n": [f"{n} ({x} excl.)" if x else str(n) for n, x in zip(rows.n, rows.n_excluded, strict=True)],
            a: [_num(v) for v in rows.a],
            b: [_num(v) for v in rows.b],
            "Δ": [_num(v) for v in rows.delta],
            "95% CI": [f"[{_num(lo)}, {_num(hi)}]" for lo, hi in zip(rows.ci_low, rows.ci_high, strict=True)],
            "p": [_p(v) for v in rows.p],
            "p (BH)": [_p(v) for v in rows.p_bh],
            "test": rows.test,
            "ρ": [_num(v) for v in rows.pearson],
        }
    )


def compare_command(a: str, b: str, benchmark: str | None, fmt: str, paths: Paths = PATHS) -> str:
    """Print the comparison (`fmt`: a rich table, Markdown or CSV with every column) and return a summary."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}'; use one of {', '.join(FORMATS)}")
    if a == b:
        raise ValueError("compare two different agents")
    rows, notes = comparison(a, b, benchmark, paths)
    if fmt == "csv":
        print(rows.to_csv(index=False), end="")
    else:
        table = display(rows, a, b)
        if fmt == "md":
            from steps.reports.markdown import markdown_table

            print(markdown_table(table))
        else:
            from rich.markup import escape

            from flows.terminal import console
            from flows.terminal import table as fitting_table

            out = fitting_table(*(escape(str(c)) for c in table.columns), title=f"{a} − {b}, paired items")
            for r in table.itertuples(index=False):
                out.add_row(*[escape(str(v)) for v in r])
            console().print(out)
        for note in notes:
            print(f"  {note}")
    significant = int((rows.p_bh < 0.05).sum())
    return f"{len(rows)} cells in {rows.benchmark.nunique()} benchmark(s); {significant} differ at BH-adjusted p < 0.05"
