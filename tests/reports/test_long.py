"""The long CSV twin's schema and its one writer: a twin that drifts from the shared layout is refused with one
line, and a valid one is written exactly as given (each report keeps its format)."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from steps.reports.long import LONG_COLUMNS, checked, long_columns, long_csv
from steps.schemas import TableError


def rows(**over) -> pd.DataFrame:
    base = {
        "benchmark": ["ucl", "ucl"],
        "table": ["win_rate", "win_rate"],
        "agent": ["null", "GPT-4"],
        "scope": ["overall", "overall"],
        "metric": ["win_rate", "win_rate"],
        "value": [50.123456789012, 56.1],
        "n": [10.0, None],
        "n_failed": [0.0, None],
        "judge": ["scripted/judge", "gpt-4-0613"],
        "proxy": [True, False],
        "source": ["ours", "paper"],
    }
    return pd.DataFrame({**base, **over})


def test_the_columns_are_the_shared_layout():
    assert LONG_COLUMNS == [
        "benchmark",
        "table",
        "agent",
        "scope",
        "metric",
        "value",
        "n",
        "n_failed",
        "n_unparsable",
        "limit",
        "protocol",
        "judge",
        "proxy",
        "source",
        "se",
        "ci_low",
        "ci_high",
        "ci_method",
    ]
    assert long_columns(with_unparsable=True, with_limit=True, with_intervals=True) == LONG_COLUMNS
    assert "se" not in long_columns(with_unparsable=True, with_limit=True)
    assert "n_failed" not in long_columns(with_failed=False) and len(long_columns(with_failed=False)) == 10
    assert "n_unparsable" not in long_columns()
    assert "limit" not in long_columns(with_unparsable=True)  # the extraction and instances twins have none
    assert "protocol" not in long_columns(with_unparsable=True)


def test_a_valid_twin_is_written_as_given_with_its_rounding_and_whole_counts():
    text = long_csv(rows(), table="t", digits=3, whole=("n_failed",))
    assert text.splitlines() == [
        ",".join(long_columns()),
        "ucl,win_rate,null,overall,win_rate,50.123,10.0,0,scripted/judge,True,ours",
        "ucl,win_rate,GPT-4,overall,win_rate,56.1,,,gpt-4-0613,False,paper",
    ]
    assert text.endswith("\n") and "\r" not in text
    counts = rows(value=[581, 3])  # a twin of counts only (instances.csv on a small sample) writes integers
    assert long_csv(counts, table="t").splitlines()[1].startswith("ucl,win_rate,null,overall,win_rate,581,")
    extra = rows().assign(judge_proxy=True)[[*long_columns(), "judge_proxy"]]  # helper columns are left out
    assert long_csv(extra, table="t") == long_csv(rows(), table="t")


@pytest.mark.parametrize(
    ("broken", "rule"),
    [
        (rows(source=["ours", "published"]), "column 'source' fails isin"),
        (rows(n=[-1.0, None]), "column 'n' fails"),
        (rows(n=[2.5, None]), "column 'n' fails"),
        (rows(n_failed=[0.0, 1.0]), "a paper row has n_failed"),
        (rows(agent=["null", "null"], source=["ours", "ours"]), "is not unique"),
        (rows(benchmark=["ucl", "mile"]), "more than one benchmark"),
        (rows(metric=["", "win_rate"]), "column 'metric' fails"),
        (rows(proxy=["yes", "no"]), "column 'proxy'"),
        (rows(value=["50", 56.1]), "column 'value' fails not a number"),
        (rows(limit=pd.array([3, 3], dtype="Int64"), protocol=[None, None]), "a paper row has a limit"),
        (
            rows(limit=pd.array([0, None], dtype="Int64"), protocol=[None, None]),
            "column 'limit' fails not a whole, positive item limit",
        ),
        (
            rows(limit=pd.array([None, None], dtype="Int64"), protocol=["paper protocol", "paper protocol"]),
            "a paper row has a protocol label",
        ),
    ],
)
def test_a_twin_that_breaks_the_layout_is_refused_with_one_line(broken, rule):
    with pytest.raises(TableError, match=rule) as err:
        long_csv(broken, table="reports/ucl.csv", with_limit="limit" in broken)
    assert str(err.value).startswith("reports/ucl.csv:") and "\n" not in str(err.value)


def test_a_benchmark_twin_has_its_runs_limit_after_the_counts():
    labelled = rows(limit=pd.array([2, None], dtype="Int64"), protocol=["judge scripted/judge, paper GPT-4", None])
    text = long_csv(labelled, table="t", whole=("n_failed",), with_limit=True)
    assert text.splitlines() == [
        ",".join(long_columns(with_limit=True)),
        'ucl,win_rate,null,overall,win_rate,50.123456789012,10.0,0,2,"judge scripted/judge, paper GPT-4",'
        "scripted/judge,True,ours",
        "ucl,win_rate,GPT-4,overall,win_rate,56.1,,,,,gpt-4-0613,False,paper",
    ]
    with pytest.raises(TableError, match="lack the column\\(s\\) limit, protocol"):
        long_csv(rows(), table="t", with_limit=True)


def test_a_missing_or_misplaced_column_is_refused():
    with pytest.raises(TableError, match="lack the column"):
        checked(rows().drop(columns="judge"), table="t")
    with pytest.raises(TableError, match="lack the column\\(s\\) n_failed"):
        checked(rows().drop(columns="n_failed"), table="t")
    assert list(checked(rows().drop(columns="n_failed"), table="t", with_failed=False).columns) == long_columns(False)


def test_long_rows_made_by_sql_are_checked_too():
    with duckdb.connect() as con:
        con.register("scores", pd.DataFrame({"agent": ["a", "a"], "score": [0.5, 0.7]}))
        good = con.execute(
            "SELECT 'x' AS benchmark, 't' AS \"table\", agent, 'overall' AS scope, 'score' AS metric, "
            "avg(score) AS value, count(*) AS n, 0 AS n_failed, '' AS judge, false AS proxy, 'ours' AS source "
            "FROM scores GROUP BY agent"
        ).df()
    assert checked(good, table="q").value.tolist() == [pytest.approx(0.6)]
    with pytest.raises(TableError, match=r"steps/sql/q\.sql: .*column 'n' fails"):
        checked(good.assign(n=-good.n), table="steps/sql/q.sql")


def test_intervals_are_written_and_checked() -> None:
    with_iv = rows(se=[1.5, None], ci_low=[47.0, None], ci_high=[53.2, None], ci_method=["wilson", None])
    text = long_csv(with_iv, table="t", digits=3, whole=("n_failed",), with_intervals=True)
    assert text.splitlines()[0].endswith("source,se,ci_low,ci_high,ci_method")
    assert text.splitlines()[1].endswith("ours,1.5,47.0,53.2,wilson")
    assert text.splitlines()[2].endswith("paper,,,,")
    unnamed = rows(se=[1.5, None], ci_low=[47.0, None], ci_high=[53.2, None], ci_method=[None, None])
    with pytest.raises(TableError, match="without its method"):
        long_csv(unnamed, table="t", with_intervals=True)
    upside_down = rows(se=[1.5, None], ci_low=[53.2, None], ci_high=[47.0, None], ci_method=["wilson", None])
    with pytest.raises(TableError, match="ci_low above ci_high"):
        long_csv(upside_down, table="t", with_intervals=True)
    negative = rows(se=[-1.0, None], ci_low=[47.0, None], ci_high=[53.2, None], ci_method=["wilson", None])
    with pytest.raises(TableError, match="non-negative"):
        long_csv(negative, table="t", with_intervals=True)
    paper = rows(se=[None, 1.0], ci_low=[None, 50.0], ci_high=[None, 60.0], ci_method=[None, "cluster-se(t, G=3)"])
    with pytest.raises(TableError, match="paper row has an interval method"):
        long_csv(paper, table="t", with_intervals=True)
