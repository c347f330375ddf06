"""J1's composition as far as public data allows: CD, DD and CI from one shared set of civil cases, LC's
consultations with a yes/no topic first, and the provenance line that says how the built instances differ."""

from __future__ import annotations

import copy
import re

import pandas as pd
import pytest

from steps.j1.envs.common.built import Draft
from steps.j1.envs.common.plan import plan
from steps.j1.envs.provenance import HEAD, brief, provenance, provenance_line, report_paragraph
from tests.conftest import ROOT
from tests.j1.envs.conftest import sources

CIVIL = ("CD", "DD", "CI")
A, B, C = (
    "c3rd/622ddf4006314088bad7aea000639d9a",
    "c3rd/06e088d07f6843b68a0eac7300135115",
    "c3rd/b8c7c6e0a32240dd9570448314588ff3",
)


def civil_pool() -> list[dict]:
    """The three fixture judgments every civil scenario can use, made unequal by hand: A loses its defence (CD can
    still use it, DD and CI cannot), B loses the plaintiff's evidence (DD and CI can, CD cannot); C keeps all."""
    cases = {c["case_id"]: copy.deepcopy(c) for c in sources()["cases"] if c["kind"] == "civil"}
    cases[A]["defence"] = None
    cases[B]["evidence"] = [e for e in cases[B]["evidence"] if e["party"] != "plaintiff"]
    return [cases[A], cases[B], cases[C]]


def pools(civil: list[dict], lc: list[dict] | None = None) -> dict[str, list[dict]]:
    return {"civil": civil, "criminal": [], "KQ": [], "LC": lc or []}


def taken(the_plan, scenario: str) -> set[str]:
    return {d.source_ids[0] for d in the_plan.drafts if d.scenario == scenario}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cd_dd_and_ci_are_built_from_one_shared_set_of_civil_cases(seed):
    shared = plan(pools(civil_pool()), dict.fromkeys(CIVIL), seed=seed)
    assert taken(shared, "CD") == taken(shared, "DD") == taken(shared, "CI") == {C}
    assert [(e.eligible, e.shared) for e in shared.eligibility] == [(1, True)] * 3
    reasons = {(s.scenario, s.source_ids[0]): s.reason for s in shared.skipped}
    assert reasons[("CD", A)] == "shared civil set: DD, CI cannot use it"  # CD alone could use A
    assert reasons[("DD", B)] == "shared civil set: CD cannot use it"
    assert reasons[("CI", A)].startswith("missing: ")  # CI's own reason comes first
    lacking = {e.scenario: e.lacking for e in shared.eligibility}
    assert lacking["DD"]["shared civil set: CD cannot use it"] == 1 and lacking["DD"]["missing defence"] == 1
    # the old behaviour: each its own eligible cases, only C in common
    separate = plan(pools(civil_pool()), dict.fromkeys(CIVIL), seed=seed, shared_civil=False)
    assert (taken(separate, "CD"), taken(separate, "DD"), taken(separate, "CI")) == ({A, C}, {B, C}, {B, C})
    assert not any(e.shared for e in separate.eligibility)


def test_a_smaller_size_takes_a_prefix_of_the_same_shared_ranking():
    civil = sources()["cases"]
    civil = [c for c in civil if c["kind"] == "civil"]
    full = plan(pools(civil), dict.fromkeys(CIVIL), seed=0)
    assert taken(full, "CD") == taken(full, "DD") == taken(full, "CI") and len(taken(full, "CD")) == 3
    one = plan(pools(civil), {"CD": 1, "DD": 2, "CI": 1}, seed=0)
    assert taken(one, "CD") == taken(one, "CI") < taken(one, "DD") <= taken(full, "DD")


def lc_source(i: int, kinds: list[str]) -> dict:
    topics = [
        {
            "topic": f"问题{i}-{k}",
            "kind": kind,
            "answer": "是" if kind == "binary" else "《民法典》第1条",
            "statutes": [],
        }
        for k, kind in enumerate(kinds)
    ]
    return {
        "scenario": "LC",
        "source_id": f"zero_shot/3-8/{i}",
        "theme": f"咨询{i}",
        "background": f"我遇到了第{i}件事，想问问律师。",
        "client_name": "张三",
        "topics": topics,
        "derivation": "lawbench 3-8: a 66law.cn consultation",
        "items": [f"zero_shot/3-8/{i}"],
    }


LC_SOURCES = [
    lc_source(0, ["open_phrase", "open_statute"]),
    lc_source(1, ["binary", "open_phrase", "open_statute"]),
    lc_source(2, ["open_phrase"]),
    lc_source(3, ["open_phrase", "open_statute"]),
    lc_source(4, ["binary", "open_phrase"]),
]


def frame(drafts: list[Draft]) -> pd.DataFrame:
    rows = [{"scenario": d.scenario, "source_ids": list(d.source_ids), "ground_truth": d.ground_truth} for d in drafts]
    return pd.DataFrame(rows, columns=["scenario", "source_ids", "ground_truth"])


@pytest.mark.parametrize("seed", range(6))
def test_lc_takes_its_consultations_with_a_yes_no_topic_first_and_counts_its_topics(seed):
    chosen = plan(pools([], LC_SOURCES), {"LC": 3}, seed=seed)
    ids = {d.source_ids[0] for d in chosen.drafts}
    assert {"zero_shot/3-8/1", "zero_shot/3-8/4"} < ids and chosen.eligibility[0].preferred == 2
    built = provenance(frame(chosen.drafts))
    (third,) = ids - {"zero_shot/3-8/1", "zero_shot/3-8/4"}
    opens = {"zero_shot/3-8/0": 2, "zero_shot/3-8/2": 1, "zero_shot/3-8/3": 2}[third]
    assert built.topics == {"LC": (2, 3 + opens)}  # 2 yes/no; open: 2 + 1 of the two, and the third's
    assert built.sizes["LC"] == (3, 62)


def test_without_the_preference_the_sample_alone_decides():
    firsts = {
        frozenset(d.source_ids[0] for d in plan(pools([], LC_SOURCES), {"LC": 2}, seed=s, prefer=False).drafts)
        for s in range(40)
    }
    assert any(not {"zero_shot/3-8/1", "zero_shot/3-8/4"} & f for f in firsts)
    assert plan(pools([], LC_SOURCES), {"LC": 2}, seed=0, prefer=False).eligibility[0].preferred is None


def test_the_provenance_line_states_sizes_shared_cases_and_topic_counts():
    drafts = plan(pools(civil_pool(), LC_SOURCES), {"LC": None, **dict.fromkeys(CIVIL)}, seed=0).drafts
    line = provenance_line(provenance(frame(drafts)))
    assert line.startswith("**Instances rebuilt from public judgments and Q&A, not J1's**")
    assert "Instances ours (paper, Table 5): KQ 0 (98), LC 5 (62), CD 1 (93), DD 1 (93), CI 1 (93), CR 0 (69)." in line
    assert "CD, DD and CI are built from one shared set of 1 civil cases (paper: one set of 93); fewer because" in line
    assert "Topics yes/no + open, ours (paper, App C): LC 2 + 8 (116 + 107)." in line
    assert "LC has fewer yes/no topics because a LawBench 3-8 consultation asks one question" in line
    separate = plan(pools(civil_pool()), dict.fromkeys(CIVIL), seed=0, shared_civil=False).drafts
    line = provenance_line(provenance(frame(separate)))
    assert "CD, DD and CI share only 1 of the 3 civil cases they use (`j1.instances.civil_cases: separate`" in line
    assert "Topics" not in line  # no topic environment built
    assert brief(line) == (  # the short form `jurisflow results` prints
        "rebuilt from public judgments and Q&A, not J1's (unreleased); ours (paper, Table 5): KQ 0 (98), LC 0 (62), "
        "CD 2 (93), DD 2 (93), CI 2 (93), CR 0 (69); CD, DD and CI share only 1 of the 3 civil cases they use "
        "(`j1.instances.civil_cases: separate`; paper: one set of 93)"
    )


def test_the_short_form_of_the_committed_j1_reports_provenance():
    """reports/j1.md's paragraph (what the HTML page shows whole) and its short form for `jurisflow results`."""
    from steps.j1.page import preface, results_note

    markdown = (ROOT / "reports" / "j1.md").read_text(encoding="utf-8")
    paragraph = report_paragraph(markdown)
    assert paragraph is not None and preface(markdown) == paragraph and paragraph.startswith(HEAD)
    sizes = re.search(r"Instances ours \(paper, Table 5\): ([^.]*)\.", paragraph)
    shared = re.search(r"one shared set of (\d+) civil cases", paragraph)
    assert sizes is not None and shared is not None
    assert results_note(markdown) == (
        f"instances rebuilt from public judgments and Q&A, not J1's (unreleased); ours (paper, Table 5): "
        f"{sizes.group(1)}; CD, DD and CI are built from one shared set of {shared.group(1)} civil cases (paper: one "
        "set of 93) (reports/j1.md says how they differ)"
    )
    assert report_paragraph("# J1\n\nno provenance here\n") is None and results_note("# J1\n") is None


def test_the_instances_report_opens_with_the_provenance_of_what_was_built(project):
    report = project.report.read_text(encoding="utf-8")
    assert "**Instances rebuilt from public judgments and Q&A, not J1's**" in report
    assert "LC 2 (62), CD 3 (93), DD 3 (93), CI 3 (93), CR 2 (69)." in report
    assert "CD, DD and CI are built from one shared set of 3 civil cases (paper: one set of 93)" in report
    # fixture topics: KQ two 4-option judgement questions and four articles; LC one with a yes/no topic, one without
    assert "Topics yes/no + open, ours (paper, App C): KQ 8 + 4 (286 + 188), LC 1 + 4 (116 + 107)." in report
    assert "LC took first the 1 of its 2 eligible sources with a yes/no topic" in report
    long = pd.read_csv(project.report.with_suffix(".csv"))
    shared = long[(long.metric == "shared_civil_cases") & (long.scope == "CD+DD+CI")]
    assert sorted(zip(shared.source, shared.value, shared.n, strict=True)) == [("ours", 3, 3), ("paper", 93, 93)]
