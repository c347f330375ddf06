"""Repeated runs in a report (`agents.<name>.repeats`, docs/statistics.md#repeated-runs): the long rows each run
gives become one set, each repeated agent's numbers the mean over its runs, with a `repeats_sd` row beside each (the
between-run SD, J1 Tables 11–12's `std`), and a Markdown section of the headline numbers as `mean ± SD`.

A report builds its long rows once per repeat (`passes`: run r of every repeated agent; an agent without repeats
gives its one run to every pass), and `mean_over_repeats` combines them. An agent without repeats keeps its rows
byte for byte, so a report with no repeated agent is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from steps.reports.long import KEY
from steps.stats.repeats import combine_cells

SD_TABLE = "repeats_sd"  # a repeated agent's between-run SD of each number: scope `<table>/<scope>`, n = runs


def passes(repeats: Mapping[str, int]) -> int:
    """How many times a report builds its rows: the most repeats of any agent (1 without repeats)."""
    return max([1, *repeats.values()])


def run_of(repeats: Mapping[str, int], agent: str, index: int) -> int:
    """The run of `agent` that pass `index` reads: its repeat `index` (an agent with fewer runs: its first)."""
    return index if index < repeats.get(agent, 1) else 0


def repeat_file(exists: Callable[[Path], bool], path: Path, repeat: int) -> Path:
    """`path`, a file of run `repeat` a report reads; a FileNotFoundError saying why a later repeat's file can be
    missing on a clone (its folder is not a DVC output: `dvc pull` brings repeat 0 only) when it is not on disk."""
    if repeat and not exists(path):
        raise FileNotFoundError(
            f"{path}: repeat {repeat} of this run is not on disk; the folders repeat-<i>/ are not DVC outputs "
            "(`dvc pull` brings repeat 0 only): rerun the agent's stages (`jurisflow eval`) to make them"
        )
    return path


def repeated_cells(per_pass: Sequence[pd.DataFrame], repeats: Mapping[str, int]) -> pd.DataFrame:
    """The first pass's `cell_intervals`, each repeated agent's cells replaced by the combination of its runs'
    (steps/stats/repeats.py: the mean, SE² = mean within-run SE² + SD²/k, `sd_runs`)."""
    repeated = [a for a, k in repeats.items() if k > 1]
    if not repeated:
        return per_pass[0]
    combined = [combine_cells([c[c.agent == a] for c in per_pass[: repeats[a]]]) for a in repeated]
    kept = per_pass[0][~per_pass[0].agent.isin(repeated)]
    return pd.concat([kept, *combined], ignore_index=True)


def mean_over_repeats(
    longs: Sequence[pd.DataFrame], repeats: Mapping[str, int], counts: Sequence[str] = ("n_failed", "n_unparsable")
) -> pd.DataFrame:
    """The rows of the first pass, each repeated agent's own rows (source `ours`) with `value` the mean over its
    runs, the `counts` columns (failed and unparsable units) summed over them, and one `repeats_sd` row after each
    numeric one: the between-run SD (ddof 1), `n` the runs. `longs`: one long table per pass, the same rows in
    each."""
    first = longs[0]
    repeated = {a for a, k in repeats.items() if k > 1}
    if not repeated or len(longs) == 1:
        return first
    mine = (first.source == "ours") & first.agent.isin(repeated)
    keyed = [lg.set_index(KEY) for lg in longs]
    index = first.loc[mine, KEY].apply(tuple, axis=1).tolist()
    values = np.array([pd.to_numeric(k.loc[index, "value"], errors="coerce").to_numpy(float) for k in keyed])
    out = first.copy()
    out["value"] = out["value"].astype(object)
    runs = np.array([repeats[a] for a in first.agent[mine]])
    means, sds = np.full(len(index), np.nan), np.full(len(index), np.nan)
    for j, k in enumerate(runs):
        column = values[:k, j]
        if not np.isnan(column).any():
            means[j], sds[j] = column.mean(), column.std(ddof=1)
    out.loc[mine, "value"] = [m if not np.isnan(m) else v for m, v in zip(means, out.loc[mine, "value"], strict=True)]
    for count in counts:
        if count in out:
            totals = sum(pd.to_numeric(k.loc[index, count], errors="coerce").fillna(0).to_numpy() for k in keyed)
            out[count] = out[count].astype(object)
            out.loc[mine, count] = [t if pd.notna(v) else v for t, v in zip(totals, out.loc[mine, count], strict=True)]
    sd_rows = first.loc[mine].copy()
    sd_rows["scope"] = [
        f"{t}/{s if isinstance(s, str) else ''}" for t, s in zip(sd_rows.table, sd_rows.scope, strict=True)
    ]
    sd_rows["table"] = SD_TABLE
    sd_rows["value"] = sds
    sd_rows["n"] = runs
    for blank in (*counts, "se", "ci_low", "ci_high", "ci_method"):
        if blank in sd_rows:
            sd_rows[blank] = None
    sd_rows = sd_rows[~np.isnan(sds)]
    return pd.concat([out, sd_rows], ignore_index=True)


def read_from_disk(benchmark: str, repeats: Mapping[str, int]) -> str:
    """The line naming the run folders a report read for its repeated agents (only repeat 0's is a DVC output)."""
    folders = [
        f"`data/{benchmark}/runs/{a}/`"
        + (f" and `repeat-1/` … `repeat-{k - 1}/` in it" if k > 2 else " and `repeat-1/`")
        for a, k in repeats.items()
        if k > 1
    ]
    return (
        f"Runs read from disk: {'; '.join(folders)}. The repeat-<i> folders are not DVC outputs: a `dvc pull` brings "
        "repeat 0 only, and this report fails rather than report fewer runs."
    )


def repeats_markdown(
    long: pd.DataFrame,
    repeats: Mapping[str, int],
    cells: Sequence[tuple[str, str, str]],
    scale: float = 1.0,
    benchmark: str | None = None,
) -> str:
    """A report's section on its repeated agents: each headline cell (table, scope, metric) as `mean ± SD over the
    runs` and its 95 % interval, × `scale` (docs/statistics.md#repeated-runs), and with `benchmark` the run folders
    read (`read_from_disk`); empty without a repeated agent."""
    repeated = [a for a, k in repeats.items() if k > 1]
    if not repeated:
        return ""
    lines = [
        "## Repeated runs",
        "",
        "Mean ± between-run SD (ddof 1) over each agent's runs; the 95 % interval includes the run-to-run variance "
        "(√(mean within-run SE² + SD²/k), docs/statistics.md#repeated-runs).",
        *(["", read_from_disk(benchmark, repeats)] if benchmark else []),
        "",
        "| agent | runs | table | scope | metric | mean ± SD | 95 % interval |",
        "|---|---:|---|---|---|---:|---|",
    ]
    ours = long[long.source == "ours"].set_index(KEY)
    rows: list[str] = []
    for agent in repeated:
        for table, scope, metric in cells:
            row = (table, agent, scope, metric, "ours")
            sd = (SD_TABLE, agent, f"{table}/{scope}", metric, "ours")
            if row not in ours.index or sd not in ours.index:
                continue
            value, spread = float(ours.loc[row, "value"]) * scale, float(ours.loc[sd, "value"]) * scale
            low, high = (ours.loc[row, c] if c in ours else np.nan for c in ("ci_low", "ci_high"))
            interval = (
                f"[{float(low) * scale:.1f}, {float(high) * scale:.1f}]" if pd.notna(low) and pd.notna(high) else "—"
            )
            rows.append(
                f"| {agent} | {repeats[agent]} | {table} | {scope} | {metric} | {value:.1f} ± {spread:.1f} | "
                f"{interval} |"
            )
    return "\n".join([*lines, *rows]) + "\n" if rows else ""
