"""`jurisflow compare A B` over a benchmark's registered item scores, read from its runs."""

from __future__ import annotations

import pytest

from flows.compare import compare_command, comparison, display
from steps.paths import Paths
from tests.mile.test_intervals import _scores


def _runs(tmp_path) -> Paths:
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    scores, dialogues = _scores()
    lower = scores.assign(agent="b", scaled=scores.scaled / 2, grade=scores.grade / 2)
    for agent, frame in (("a", scores), ("b", lower)):
        run = paths.run("mile", agent)
        run.mkdir(parents=True)
        frame.to_parquet(run / "scores.parquet")
        dialogues.assign(agent=agent).to_parquet(run / "dialogues.parquet")
    return paths


def test_compare_reads_the_runs_and_pairs_the_items(tmp_path, capsys) -> None:
    paths = _runs(tmp_path)
    rows, notes = comparison("a", "b", "mile", paths)
    assert notes == [] and set(rows.benchmark) == {"mile"}
    evid = rows[(rows["table"] == "goal") & (rows.metric == "EVID")].iloc[0]
    assert (evid.a, evid.b, evid.delta) == (50.0, 25.0, 25.0)  # 100, 50, 0 against their halves
    sta = rows[(rows["table"] == "goal") & (rows.metric == "STA")].iloc[0]
    assert sta.n == 2 and sta.n_excluded == 1  # the failed call, excluded from both
    total = rows[rows["table"] == "total"].iloc[0]
    assert total.level == "aggregate" and total.delta == pytest.approx(total.a / 2)
    shown = display(rows, "a", "b")
    assert list(shown.columns[:5]) == ["benchmark", "cell", "n", "a", "b"]
    assert "2 (1 excl.)" in set(shown.n)
    summary = compare_command("a", "b", "mile", "csv", paths)
    assert summary.startswith(f"{len(rows)} cells in 1 benchmark(s)")
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith("benchmark,table,scope,metric,level,n,clusters,n_excluded,a,b,delta")


def test_nothing_to_compare_is_one_line(tmp_path) -> None:
    paths = _runs(tmp_path)
    with pytest.raises(ValueError, match="no run of zz"):
        comparison("a", "zz", "mile", paths)
    with pytest.raises(ValueError, match="different agents"):
        compare_command("a", "a", "mile", "md", paths)
    with pytest.raises(ValueError, match="unknown benchmark"):
        comparison("a", "b", "nope", paths)
