"""The HTML report's pieces: SVG bars, result tables, dialogue records, pages, and `jurisflow show` ids."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from rich.console import Console

from flows.kit.paths import Paths
from flows.show import find_id, show_any
from steps.j1.page import dialogue_records as j1_records
from steps.reports.html import dialogues
from steps.reports.html.pages import PAGES, benchmark_page, link_for
from steps.reports.html.svg import MAX_WIDTH, bar_chart, nice_max
from steps.reports.html.tables import html_table
from tests.html_data import j1_frames


def _long(rows: list[tuple]) -> pd.DataFrame:
    cols = ["benchmark", "table", "agent", "scope", "metric", "value", "n", "n_failed", "judge", "proxy", "source"]
    return pd.DataFrame(rows, columns=cols)


LONG = _long(
    [
        ("j1", "table3", "GPT-4o", "KQ", "I-1", 69.7, None, None, None, False, "paper"),
        ("j1", "table3", "oracle", "KQ", "I-1", 100.0, 98, 0, "rule", True, "ours"),
        ("j1", "table3", "oracle", "CD", "II-1", 50.0, 93, 0, "rule", False, "ours"),
        ("j1", "table3", "null", "KQ", "I-1", 0.0, 98, 0, "rule", True, "ours"),
    ]
)


def test_bar_heights_are_proportional_and_paper_bars_hatched():
    svg = bar_chart(
        "t",
        ["a", "b"],
        [("ours", [50.0, 100.0]), ("GPT (paper)", [25.0, None])],
        y_max=100,
        paper=frozenset({"GPT (paper)"}),
        height=200,
    )
    bar = r'<rect x="[\d.]+" y="[\d.]+" width="\d+" height="([\d.]+)" fill="#\w+"><title>'
    heights = [float(h) for h in re.findall(bar, svg)]
    assert heights == [100.0, 50.0, 200.0]  # ours a, paper a, ours b; no bar for the missing value
    assert svg.count('fill="url(#hatch)"') == 2  # the paper's bar and its legend swatch
    assert "<title>GPT (paper) · a: 25</title>" in svg
    assert nice_max(0.7) == 1 and nice_max(7.1) == 10 and nice_max(71) == 100 and nice_max(230) == 300


def test_error_bars_span_the_interval_on_the_bar_scale():
    svg = bar_chart("t", ["a", "b"], [("ours", [50.0, 100.0])], y_max=100, height=200,
                    errors={"ours": [(40.0, 60.0), None]})  # fmt: skip
    bars = re.findall(r'<g class="error-bar"><title>([^<]*)</title><line x1="([\d.]+)" x2="[\d.]+" y1="([\d.]+)" '
                      r'y2="([\d.]+)"/>', svg)  # fmt: skip
    assert len(bars) == 1  # only where an interval exists
    tip, _, low, high = bars[0]
    # the plot area starts 26 px down and is 200 px high: 40 → 26 + 200 − 80, 60 → 26 + 200 − 120
    assert (float(low), float(high)) == (146.0, 106.0)
    assert tip == "ours · a: 50 (95 % CI 40–60)"


def test_a_chart_is_responsive_and_narrows_its_bars_to_fit():
    """Its size is its viewBox, drawn at the page's width up to its natural width; many categories and series
    narrow the bars rather than widen the chart past MAX_WIDTH."""
    few = bar_chart("t", ["a", "b"], [("ours", [50.0, 100.0])])
    [(width, _)] = re.findall(r'<svg[^>]* viewBox="0 0 (\d+) (\d+)"', few)
    assert f'style="flex-basis:{width}px;max-width:{width}px"' in few
    assert not re.search(r"<svg[^>]* (width|height)=", few)  # no fixed size: the CSS draws it at 100%, height auto
    tasks = [f"{i}-{j}" for i in range(1, 4) for j in range(1, 9)]
    many = bar_chart("LawBench", tasks, [(f"agent {k}", [0.5] * len(tasks)) for k in range(9)])
    [(wide, _)] = re.findall(r'<svg[^>]* viewBox="0 0 (\d+) (\d+)"', many)
    assert int(wide) <= MAX_WIDTH
    bars = re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="(\d+)" height="[\d.]+" fill="#\w+"><title>', many)
    assert len(bars) == 9 * len(tasks) and {int(w) for w in bars} == {2}


def test_lawbench_scores_are_shown_x100_in_tables_and_charts():
    long = _long(
        [
            ("lawbench", "zero_shot", "oracle", "1-1", "score", 0.5, 500, 0, None, True, "ours"),
            ("lawbench", "zero_shot", "oracle", "overall", "score", 0.25, 500, 0, None, True, "ours"),
            ("lawbench", "zero_shot", "GPT4", "1-1", "score", 0.4, 500, None, None, False, "paper"),
        ]
    )
    page = benchmark_page("lawbench", long, None, ["oracle"])
    assert '<td title="n = 500">50.0†</td>' in page and '<td title="n = 500">40.0</td>' in page and "0.500" not in page
    chart = page[page.index("<svg") : page.index("</svg>")]
    assert "<title>oracle [scripted] · 1-1: 50</title>" in chart and ">100</text>" in chart  # the axis runs to 100
    assert "× 100 here" in page


def test_table_puts_paper_rows_under_ours_marks_proxy_and_links_our_cells():
    html = html_table(LONG, link=lambda a, s, m: f"#view?agent={a}&env={s}")
    rows = re.findall(r"<tr( class=\"paper\")?><th[^>]*>([^<]+)</th>", html.split("<tbody>")[1])
    assert rows == [("", "oracle"), ("", "null"), (' class="paper"', "↳ GPT-4o (paper)")]
    assert '<td title="n = 98"><a href="#view?agent=oracle&amp;env=KQ">100.0†</a></td>' in html
    assert "<td>69.7</td>" in html and "69.7†" not in html  # the paper's cells: no link, no proxy mark
    assert '<a href="#view?agent=oracle&amp;env=CD">50.0</a>' in html  # not proxy: no †


def test_file_ids_are_the_transcript_file_names():
    assert dialogues.file_id("CR/judge/000b1a0e-d214") == "CR_judge_000b1a0e-d214"
    assert dialogues.file_id("Accusation Prediction/1") == "Accusation_Prediction_1"
    ids = ["CR/judge/000b1a0e-d214", "CR/judge/003cdf07", "KQ/zero_shot/1-1/112"]
    assert find_id(ids, "CR_judge_000b1a0e-d214") == "CR/judge/000b1a0e-d214"
    assert find_id(ids, "CR_judge_000b") == "CR/judge/000b1a0e-d214"
    assert find_id(ids, "KQ/zero_shot/1-1/112") == "KQ/zero_shot/1-1/112"
    with pytest.raises(ValueError, match="matches 2"):
        find_id(ids, "CR_judge")
    with pytest.raises(ValueError, match="no instance"):
        find_id(ids, "nothing")


def test_j1_records_carry_turns_scores_and_a_headline_without_iii4():
    turns, deliverables, scores = j1_frames(7)
    records = j1_records(turns, deliverables, scores)
    assert [r["id"] for r in records[:2]] == ["KQ_synthetic_00000", "LC_synthetic_00001"]
    r = records[3]  # (3 % 5) / 4 = 0.75 on I-1 and II-1; III-4 (lower is better) is not in the headline
    assert r["score"] == 75.0 and r["env"] == "DD" and r["end"] == "marker"
    assert r["turns"][1][:2] == ["agent", "user"] and len(r["turns"]) == 8
    assert [s[0] for s in r["scores"]] == ["I-1", "II-1", "III-4"] and "evidence 3" in r["scores"][0][3]


def test_embedded_json_cannot_close_or_comment_out_its_script_element():
    record = {"text": "</script><!--<script>]]>&lt;\u2028\u2029"}
    text = dialogues.to_json([record])
    assert not set(text) & set("<>&\u2028\u2029")
    assert "\\u003c/script\\u003e\\u003c!--\\u003cscript\\u003e]]\\u003e\\u0026lt;\\u2028\\u2029" in text
    assert json.loads(text) == [record]


def test_page_is_self_contained_deterministic_and_links_cells_to_dialogues():
    turns, deliverables, scores = j1_frames(12)
    records = j1_records(turns, deliverables, scores)
    page = benchmark_page("j1", LONG, records, ["oracle", "null"])
    assert page == benchmark_page("j1", LONG, records, ["oracle", "null"])
    assert not re.search(r"(src|href)=\"(https?:)?//", page), "nothing may come from the network"
    assert '<a href="#view?agent=oracle&amp;env=KQ">' in page and "<svg" in page
    assert page.count('id="dialogue-data"') == 1
    link = link_for("j1", records)
    assert link("oracle", "KQ", "I-1") == "#view?agent=oracle&env=KQ"
    assert link("GPT-4o", "KQ", "I-1") is None and link("oracle", "overall", "Overall") is None


def test_the_j1_page_shows_the_provenance_paragraph_of_its_markdown_twin():
    """reports/j1.md opens with where the instances come from; the HTML page shows that paragraph above its tables
    (escaped, bold and code kept); a page whose registration has no preface never shows one."""
    from steps.j1.envs.provenance import HEAD

    paragraph = f"{HEAD} (unreleased): ours <KQ>. CD, DD and CI share only 1 (`j1.instances.civil_cases: separate`)."
    markdown = f"# J1\n\n{paragraph}\n\n| table |\n"
    page = benchmark_page("j1", LONG, None, ["oracle", "null"], markdown)
    shown = (
        '<p class="preface"><strong>Instances rebuilt from public judgments and Q&amp;A, not J1&#x27;s</strong> '
        "(unreleased): ours &lt;KQ&gt;. CD, DD and CI share only 1 "
        "(<code>j1.instances.civil_cases: separate</code>).</p>"
    )
    assert shown in page and page.index(shown) < page.index("<table")
    assert "preface" not in benchmark_page("j1", LONG, None, ["oracle", "null"])  # no twin text: no preface
    assert "preface" not in benchmark_page("j1", LONG, None, ["oracle"], "# J1\n\nno such paragraph\n")
    mile = _long([("mile", "goal", "oracle", "overall", "AVE", 50.0, 1, 0, "proxy", True, "ours")])
    assert "preface" not in benchmark_page("mile", mile, None, ["oracle"], markdown)


def test_show_finds_a_dialogue_in_any_benchmark_by_its_file_name_id(tmp_path):
    turns, deliverables, scores = j1_frames(3)
    paths = Paths(data=tmp_path / "data")
    run = paths.run("j1", "oracle")
    run.mkdir(parents=True)
    turns.to_parquet(run / "turns.parquet")
    deliverables.to_parquet(run / "dialogues.parquet")
    scores.to_parquet(run / "scores.parquet")
    console = Console(record=True, width=200)
    show_any("oracle", "LC_synthetic_00001", paths=paths, console=console)
    out = console.export_text()
    assert "LC/synthetic/00001" in out and "ended by max_turns" in out and "user → agent" in out
    with pytest.raises(ValueError, match="no run 'oracle' of mile"):
        show_any("oracle", "x", benchmark="mile", paths=paths)
    with pytest.raises(ValueError, match="unknown benchmark"):
        show_any("oracle", "x", benchmark="lawbench", paths=paths)


def test_the_stage_writes_every_page_with_every_dialogue_embedded(fixture_report):
    """Stage html_report over fixture run tables (tests/reports/conftest.py): six pages, each dialogue page
    embedding every agent's dialogues as parseable JSON, the index counting them."""
    from tests.html_data import AGENTS, DIALOGUE_PAGES, HOSTILE, N, index_counts, page_dialogues

    assert sorted(p.stem for p in fixture_report.glob("*.html")) == sorted(PAGES)
    counts = index_counts((fixture_report / "index.html").read_text(encoding="utf-8"))
    assert set(counts) == set(PAGES) - {"index", "judges"} and counts["lawbench"][1] == 0
    for bench in DIALOGUE_PAGES:
        page = (fixture_report / f"{bench}.html").read_text(encoding="utf-8")
        records = page_dialogues(page)
        expected = N * len(AGENTS) * (2 if bench == "plawbench" else 1)  # PLawBench: single and multi-turn
        assert len(records) == expected and {r["agent"] for r in records} == set(AGENTS)
        assert counts[bench][1] == expected
    with pytest.raises(ValueError, match="found 0"):
        page_dialogues((fixture_report / "lawbench.html").read_text(encoding="utf-8"))
    j1 = {r["agent"] + "/" + r["id"]: r for r in page_dialogues((fixture_report / "j1.html").read_text("utf-8"))}
    assert j1["oracle/LC_synthetic_00001"]["turns"][1][5] == HOSTILE
    failed = j1["null/DD_synthetic_00009"]
    assert failed["end"] == "call_failed" and failed["score"] is None
    assert failed["turns"][-1][6] == "failed call: server_error"
    # a reply's reasoning trace rides as an eighth field of its turn (the viewer folds it); no trace, no field
    plaw = page_dialogues((fixture_report / "plawbench.html").read_text(encoding="utf-8"))
    single = next(r for r in plaw if r["id"].endswith("_single"))
    assert single["turns"][1][7] == "先看婚前财产。" and len(single["turns"][0]) == 7
    assert all(len(turn) == 7 for r in plaw if r["id"].endswith("_multiturn") for turn in r["turns"])
    assert j1["oracle/CR_synthetic_00005"]["causes"] == "missing_final_objective"


def test_the_judges_page_is_the_audit_markdown_as_html():
    from steps.reports.html.judges import MISSING, judges_page, markdown_body

    text = (
        "# The judges\n\nOne `flip %` line\nand <more>.\n\n| a | b |\n|---|---|\n| `x [proxy]` | 1 |\n| y | 2 |\n"
        "## Probes\n\n| c |\n|---|\n| 3 |\n"
    )
    assert markdown_body(text) == (
        "<p>One <code>flip %</code> line and &lt;more&gt;.</p>"
        '<table class="results"><thead><tr><th>a</th><th>b</th></tr></thead><tbody>'
        "<tr><td><code>x [proxy]</code></td><td>1</td></tr><tr><td>y</td><td>2</td></tr></tbody></table>"
        "<h2>Probes</h2>"
        '<table class="results"><thead><tr><th>c</th></tr></thead><tbody><tr><td>3</td></tr></tbody></table>'
    )
    assert MISSING in judges_page(None) and '<a href="judges.html" class=current>Judges</a>' in judges_page(text)
