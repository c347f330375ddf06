"""The five registrations (steps/<benchmark>/benchmark.py, sources.py) give the lists that were written by hand
before: the order, the data card's tables and titles, the judged tables, the leaderboard's columns, the dialogue
benchmarks and the paper-model lists (the literals below are those lists as they were)."""

from __future__ import annotations

import pytest

from flows.kit.config import BENCHMARKS
from steps import known_benchmarks
from steps.benchmarks import (
    benchmark,
    benchmarks,
    check_paper_model,
    dialogue_benchmarks,
    headline_table,
    judged_tables,
    names,
    paper_headline_table,
)
from steps.reports.stages import card_tables
from steps.sources.tables import interim_tables


def test_every_benchmark_has_a_section_and_a_registration_in_the_papers_order():
    assert names() == ("lawbench", "j1", "mile", "ucl", "plawbench")
    assert set(names()) == set(BENCHMARKS) == set(known_benchmarks())
    assert [b.title for b in benchmarks().values()] == ["LawBench", "J1-EVAL", "MILE", "UCL-Bench", "PLawBench"]
    assert dialogue_benchmarks() == ("j1", "mile", "ucl", "plawbench")
    with pytest.raises(KeyError, match="unknown benchmark 'mmlu'; known: lawbench, j1"):
        benchmark("mmlu")


def test_the_data_card_tables_titles_and_judged_tables():
    assert [(t.name, t.title) for t in card_tables()] == [
        ("lawbench_items", "LawBench task items"),
        ("lawbench_predictions", "LawBench published predictions"),
        ("lawbench_published", "LawBench published scores"),
        ("lawbench_cilin", "LawBench 2-1 lexicon: Cilin semantic classes"),
        ("lawbench_confusions", "LawBench 2-1 lexicon: confusion set"),
        ("mile", "MILE instances"),
        ("ucl", "UCL-Bench public items"),
        ("plawbench_case_analysis", "PLawBench case analysis"),
        ("plawbench_consultation", "PLawBench consultation"),
        ("plawbench_drafting", "PLawBench document drafting"),
        ("judgments_criminal", "JuDGE criminal judgments"),
        ("judgments_civil", "C3RD mini civil cases"),
    ]
    assert set(interim_tables()) == {t.name for t in card_tables()}
    assert judged_tables() == {
        "j1": ("scores",),
        "mile": ("scores",),
        "ucl": ("verdicts", "hint_scores"),
        "plawbench": ("judgements",),
    }


def test_the_leaderboard_columns_are_the_registered_headlines():
    columns = headline_table()
    assert columns.to_dict("split")["data"] == [
        ["lawbench", "LawBench 0-shot", 1, "zero_shot", "score", "overall", 100.0],
        ["lawbench", "LawBench 1-shot", 2, "one_shot", "score", "overall", 100.0],
        ["j1", "J1 AVG (OO)", 3, "table3", "AVG_OO", "overall", 1.0],
        ["j1", "J1 AVG (PO)", 4, "table3", "AVG_PO", "overall", 1.0],
        ["mile", "MILE goal", 5, "goal", "AVE", "overall", 1.0],
        ["mile", "MILE interaction", 6, "interaction", "AVE", "overall", 1.0],
        ["ucl", "UCL win rate", 7, "win_rate", "win_rate", "overall", 1.0],
        ["plawbench", "PLawBench", 8, "table3", "Overall", "overall", 100.0],
    ]
    paper = paper_headline_table()  # UCL-Bench's Table 3 AVG, as the UCL report quotes it; LawBench's 51 models
    ucl = paper[paper.benchmark == "ucl"]
    assert set(ucl.judge) == {"gpt-4-0613"} and len(ucl) > 10
    lawbench = paper[paper.benchmark == "lawbench"].set_index(["table", "agent"]).value
    assert len(lawbench) == 102  # the appendix tables' 51 models in each setting, not results.csv's mirrored rows
    assert lawbench[("zero_shot", "GPT-4")] == pytest.approx(0.5235)  # Table 27 Overall, printed 52.35
    assert lawbench[("one_shot", "GPT-4")] == pytest.approx(0.5385)


def test_the_paper_model_check_lists_every_paper_with_a_model_list():
    with pytest.raises(ValueError) as err:
        check_paper_model("GPT-9")
    message = str(err.value)
    where = [message.index(f"{b}: ") for b in ("(j1", "; mile", "; ucl", "; plawbench")]
    assert where == sorted(where)  # the benchmarks with a model list, in order
    assert message.endswith("or LawBench's own list, named per benchmark as {lawbench: NAME})")
    check_paper_model({"lawbench": "GPT4"})  # LawBench's list is data: checked by its report stage
