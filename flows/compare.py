"""`jurisflow compare A B`: the paired difference of two agents per benchmark and per cell, on the items both
answered, from each benchmark's registered item scores (`Benchmark.item_scores`; steps/stats/compare.py)."""

from __future__ import annotations

import math
from pathlib import Path

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


JUDGE_A, JUDGE_B = "judge A", "judge B"


def data_root(folder: Path) -> Paths:
    """The layout of a judged project: `folder` is a project (its `data/` holds the runs) or a data folder."""
    data = folder / "data" if (folder / "data").is_dir() else folder
    return Paths(data=data, reports=data.parent / "reports")


def judge_comparison(
    judge_a: Path, judge_b: Path, agents: list[str] | None = None, benchmark: str | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """Two judges on the same transcripts: every agent's cells judged in project `judge_a` and in `judge_b` (e.g.
    a copy whose judge stages reran with another judge), paired item by item (steps/stats/compare.py), with the
    share of items scored alike (`agree`). An agent is compared only where both folders hold the same transcript
    run (the same run id); the benchmarks are those with LLM-judged tables and item scores."""
    from steps.benchmarks import judged_tables
    from steps.runs import read_run
    from steps.stats.cells import ItemScores
    from steps.stats.compare import CELL, agreement, compare

    pa, pb = data_root(judge_a), data_root(judge_b)
    frames, notes = [], []
    registered, judged = benchmarks(), judged_tables()
    for name in parse_benchmarks(benchmark):
        reg = registered[name]
        if name not in judged or reg.item_scores is None:
            continue
        both = sorted(
            {p.name for p in pa.runs(name).glob("*/") if p.is_dir()}
            & {p.name for p in pb.runs(name).glob("*/") if p.is_dir()}
        )
        for agent in [x for x in both if agents is None or x in agents]:
            try:
                same = read_run(pa.run(name, agent)).run_id == read_run(pb.run(name, agent)).run_id
            except (OSError, ValueError) as err:
                notes.append(f"{name} · {agent}: {err}")
                continue
            if not same:
                notes.append(f"{name} · {agent}: the two folders hold different transcripts (run ids differ): left out")
                continue
            hook = resolve(reg.item_scores)
            sa, sb = hook(pa, [agent]), hook(pb, [agent])
            items = pd.concat([sa.items.assign(agent=JUDGE_A), sb.items.assign(agent=JUDGE_B)], ignore_index=True)
            scores = ItemScores(items, sa.aggregates, sa.power, sa.scale)
            rows = compare(scores, JUDGE_A, JUDGE_B).merge(agreement(scores, JUDGE_A, JUDGE_B), on=CELL, how="left")
            frames.append(rows.assign(benchmark=name, agent=agent))
    if not frames:
        raise ValueError(
            "nothing to compare: no judged benchmark with the same transcripts in both folders"
            + "".join(f"; {n}" for n in notes)
        )
    out = pd.concat(frames, ignore_index=True)
    return out[["benchmark", "agent", *[c for c in out.columns if c not in ("benchmark", "agent")]]], notes


def judge_compare_command(
    judge_a: Path, judge_b: Path, agents: list[str] | None, benchmark: str | None, fmt: str
) -> str:
    """Print the two judges' comparison (as `compare_command` prints two agents'), the agent beside each cell and
    `agree` (% of items scored alike) after ρ; return a summary."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}'; use one of {', '.join(FORMATS)}")
    rows, notes = judge_comparison(judge_a, judge_b, agents, benchmark)
    if fmt == "csv":
        print(rows.to_csv(index=False), end="")
    else:
        table = display(rows, f"A: {judge_a}", f"B: {judge_b}")
        table.insert(1, "agent", rows.agent.to_numpy())
        table["agree %"] = [_num(100 * v, 1) if v == v else "—" for v in rows.agree]
        if fmt == "md":
            from steps.reports.markdown import markdown_table

            print(markdown_table(table))
        else:
            from rich.markup import escape

            from flows.terminal import console
            from flows.terminal import table as fitting_table

            out = fitting_table(
                *(escape(str(c)) for c in table.columns), title="judge A − judge B, the same transcripts"
            )
            for r in table.itertuples(index=False):
                out.add_row(*[escape(str(v)) for v in r])
            console().print(out)
    for note in notes:
        print(f"  {note}")
    heads = rows[rows.level == "aggregate"]
    moved = int((heads.p_bh < 0.05).sum())
    return (
        f"{len(rows)} cells of {rows.agent.nunique()} agent(s) in {rows.benchmark.nunique()} benchmark(s); "
        f"{moved} of {len(heads)} headline aggregates differ between the judges at BH-adjusted p < 0.05"
    )
