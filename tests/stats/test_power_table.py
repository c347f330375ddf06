"""The data card's smallest detectable differences (steps/stats/power.py, steps/reports/data_card.py)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from steps.reports.data_card import render_data_card
from steps.sources.pinned import Manifest
from steps.stats.cells import ITEM_COLUMNS, ItemScores
from steps.stats.power import minimum_detectable_difference, power_table


def _scores() -> ItemScores:
    rows = [("A", "t", "x", "m", f"i{i}", f"c{i // 2}", 1.0, "proportion") for i in range(8)]
    rows += [("A", "t", "y", "m", f"j{i}", f"d{i}", 0.0, "proportion") for i in range(18)]
    rows += [("B", "t", "y", "m", f"j{i}", f"d{i}", 1.0, "proportion") for i in range(12)]  # a smaller run
    agg = {("t", "all", "m"): {("t", "x", "m"): 0.5, ("t", "y", "m"): 0.5}}
    keys = (("t", "all", "m"), ("t", "x", "m"), ("t", "y", "m"))
    return ItemScores(pd.DataFrame(rows, columns=ITEM_COLUMNS), agg, power=keys, scale=1.0)


def test_power_rows_by_hand() -> None:
    table = power_table(_scores()).set_index("scope")
    # 18 items at σ = 0.5, ρ = 0.5: 2.8016 · √(0.25 / 18) ≈ 0.330 (the spec's 33 points)
    assert table.loc["y", "items"] == 18 and table.loc["y", "mde_items"] == pytest.approx(0.330, abs=0.001)
    # 8 items in 4 clusters of 2: independent items vs one unit per cluster
    assert (table.loc["x", "items"], table.loc["x", "clusters"]) == (8, 4)
    assert table.loc["x", "mde_items"] == pytest.approx(minimum_detectable_difference(8, 0.5))
    assert table.loc["x", "mde_clusters"] == pytest.approx(minimum_detectable_difference(4, 0.5))
    assert table.loc["x", "mde_clusters"] / table.loc["x", "mde_items"] == pytest.approx(math.sqrt(2))
    # the aggregate counts its units: 4 + 18 clusters
    assert table.loc["all", "items"] == 22 and table.loc["all", "clusters"] == 22


def test_the_data_card_lists_them_only_when_given() -> None:
    manifest = Manifest(upstream_url="https://example.org", files=())
    without = render_data_card(manifest, [], None, None, None)
    assert "Smallest detectable differences" not in without
    rows = power_table(_scores())
    power = rows.assign(benchmark="b")[["benchmark", *rows.columns]]
    text = render_data_card(manifest, [], None, None, power)
    assert "## Smallest detectable differences" in text and "ρ = 0.5" in text
    assert "| b | t | y | m | 18 | 18 | 0.33" in text


def test_the_data_card_reads_every_run_and_skips_one_without_scores(tmp_path) -> None:
    from steps.reports.stages import power_rows
    from tests.cli.test_compare import _runs

    paths = _runs(tmp_path)
    (paths.run("mile", "unjudged")).mkdir(parents=True)  # simulated, not judged yet: no scores.parquet
    rows = power_rows(paths)
    assert rows is not None and set(rows.benchmark) == {"mile"}
    goal = rows[(rows["table"] == "goal") & (rows.metric == "AVE")].iloc[0]
    assert goal["items"] == 3 and goal.mde_items == pytest.approx(round(minimum_detectable_difference(3, 50.0), 1))
    assert power_rows(type(paths)(data=tmp_path / "empty", reports=tmp_path / "r", cache=tmp_path / "c")) is None


def test_rho_comes_from_params_and_the_card_prints_it(tmp_path) -> None:
    """params.yaml `stats.rho` reaches the data card: its MDDs use it and the card names it."""
    from flows.kit.config import load_params
    from steps.reports.stages import power_rows
    from tests.cli.test_compare import _runs

    params = tmp_path / "params.yaml"
    params.write_text("stats:\n  rho: 0.8\n", encoding="utf-8")
    rho = load_params(params).stats.rho
    assert rho == 0.8
    rows = power_rows(_runs(tmp_path), rho)
    assert rows is not None
    goal = rows[(rows["table"] == "goal") & (rows.metric == "AVE")].iloc[0]
    # σ = 50 points, ρ 0.8: 2.8016 · √((2 · 2500 − 2 · 0.8 · 2500) / 3) = 2.8016 · √(1000/3) ≈ 51.1
    assert goal.mde_items == pytest.approx(round(2.801585 * math.sqrt(1000 / 3), 1))
    text = render_data_card(Manifest(upstream_url="https://example.org", files=()), [], None, None,
                            rows, rho=rho)  # fmt: skip
    assert "ρ = 0.8 the" in text


def test_lawbench_is_listed_on_its_own_scale(tmp_path) -> None:
    """LawBench's items are on 0–1 (its CSV twin's scale): its MDDs keep 3 decimals, not 1."""
    from steps.paths import Paths
    from steps.reports.stages import power_rows
    from tests.stats.test_ranks import _lawbench_run

    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    _lawbench_run(paths, "a", 1.0)
    rows = power_rows(paths)
    assert rows is not None and set(rows.benchmark) == {"lawbench"}
    task = rows[(rows["table"] == "zero_shot") & (rows.scope == "1-2")].iloc[0]
    assert task["items"] == 10 and task.mde_items == round(minimum_detectable_difference(10, 0.5), 3)
    assert 0.1 < task.mde_items < 1 and task.mde_items != round(task.mde_items, 1)
