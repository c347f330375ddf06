"""J1-EVAL's item-level scores for the intervals of its report and `jurisflow compare` (steps/stats/cells.py).

The unit is the source case: an instance id is `<environment>/<case>`, and the CD, DD and CI instances built
from one judgment share it, so they are one cluster (their scores move together). Each cell of Table 3 is the mean
× 100 of its instances' values (failed tasks at the paper's value, as the report counts them; skipped and failed
judgings left out); Tables 6–9 hold the components (`II-2/CLA` …). AVG_OO and AVG_PO are the means of the outcome
and process cells the environments register, Overall their mean: aggregates, bootstrapped over source cases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from steps.j1.envs.catalog import metric_table
from steps.j1.eval.report import COMPONENT_TABLES
from steps.paths import Paths
from steps.stats.cells import ITEM_COLUMNS, ItemScores, Key


def case_of(instance_id: pd.Series) -> pd.Series:
    """The source case of each instance: its id without the environment prefix."""
    return instance_id.str.split("/", n=1).str[1].fillna(instance_id)


def item_scores_of(scores: pd.DataFrame) -> ItemScores:
    """The item scores from every agent's scores rows."""
    s = scores[~scores.component.fillna("").str.fullmatch(r"T[0-9]+")]
    s = s.assign(
        cell=[f"{m}/{c}" if c else m for m, c in zip(s.metric, s.component.fillna(""), strict=True)],
        score=100 * s.value,
    )
    table = pd.Series(pd.NA, index=s.index, dtype="object")
    table[s.component.fillna("") == ""] = "table3"
    for name, (_, scope, metrics) in COMPONENT_TABLES.items():
        table[(s.scenario == scope) & s.cell.isin(metrics)] = name
    s = s.assign(table=table)[table.notna()]
    items = pd.DataFrame(
        {
            "agent": s.agent,
            "table": s.table,
            "scope": s.scenario,
            "metric": s.cell,
            "item": s.instance_id,
            "cluster": case_of(s.instance_id),
            "score": s.score,
            "kind": "mean",
        }
    )[ITEM_COLUMNS]
    kinds = metric_table().dropna(subset=["average"])
    aggregates: dict[Key, dict[Key, float]] = {}
    for average, part in kinds.groupby("average"):
        aggregates[("table3", "overall", str(average))] = {
            ("table3", str(sc), str(m)): 1 / len(part) for sc, m in zip(part.scenario, part.metric, strict=True)
        }
    aggregates[("table3", "overall", "Overall")] = {
        ("table3", "overall", "AVG_OO"): 0.5,
        ("table3", "overall", "AVG_PO"): 0.5,
    }
    cells = sorted({(str(sc), str(m)) for sc, m in zip(kinds.scenario, kinds.metric, strict=True)})
    power: tuple[Key, ...] = (
        ("table3", "overall", "Overall"),
        ("table3", "overall", "AVG_OO"),
        ("table3", "overall", "AVG_PO"),
        *(("table3", sc, m) for sc, m in cells),
    )
    return ItemScores(items, aggregates, power=power, scale=100.0)


def repeats_cells(
    cells: pd.DataFrame, repeats: Mapping[str, Sequence[pd.DataFrame]], groups: Mapping[str, Sequence[str]]
) -> pd.DataFrame:
    """The intervals of the repeats groups' Table 3 cells (the twin's `repeats_mean` rows, Tables 11–12 layout):
    per group, its runs' cell intervals combined as for any repeated run (steps/stats/repeats.py: the mean,
    SE² = mean within-run SE² + SD²/k, docs/statistics.md#repeated-runs). A run is an agent of `cells` (repeat 0,
    or an agent `j1.eval.repeats` names) or `<agent>/repeat-<i>`, whose cells come from `repeats` (agent → each
    repeat's scores, repeat 0 first)."""
    from steps.stats.cells import cell_intervals
    from steps.stats.repeats import combine_cells

    own = {
        f"{agent}/repeat-{i}": cell_intervals(item_scores_of(scored.assign(agent=f"{agent}/repeat-{i}")))
        for agent, runs in repeats.items()
        for i, scored in enumerate(runs)
        if i
    }
    out = []
    for group, members in groups.items():
        per_run = [own[m] if m in own else cells[cells.agent == m] for m in members]
        per_run = [c[c["table"] == "table3"].assign(agent=group) for c in per_run]
        out.append(combine_cells(per_run).assign(table="repeats_mean"))
    return pd.concat(out, ignore_index=True) if out else cells.iloc[:0]


def item_scores(paths: Paths, agents: Sequence[str]) -> ItemScores:
    """`item_scores_of` read from the agents' runs (data/j1/runs/<agent>/scores.parquet)."""
    scores = pd.concat([pd.read_parquet(paths.run("j1", a) / "scores.parquet") for a in agents], ignore_index=True)
    return item_scores_of(scores)
