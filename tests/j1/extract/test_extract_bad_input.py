"""Bad documents end as issue rows, never as a crash or a silently empty field (scripted model, real door)."""

from __future__ import annotations

import asyncio

import pandas as pd
import pytest

import steps.j1.extract.scripted  # noqa: F401  (registers the policy)
from steps.j1.extract.answers import mandatory
from steps.j1.extract.inputs import civil_inputs, criminal_inputs
from steps.j1.extract.llm_fields import extract_all
from steps.j1.extract.records import Provenance, assemble, cases_table, issues_table
from steps.j1.extract.schemas import Cases, ExtractionIssues
from steps.j1.extract.text_checks import MAX_CHARS
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.schemas import TableError, validate

from .texts import APPEAL, CIVIL_ROW, FIRST_INSTANCE, TRANSFER_RULING

SCRIPTED = ModelConfig(name="environment", model="scripted/persona")
NO_VERDICT = FIRST_INSTANCE.split("判决如下")[0]
GARBLED = FIRST_INSTANCE.replace("窃取财物", "窃取锟斤拷财\ufffd物", 1)
LONG = FIRST_INSTANCE.replace("经审理查明：", "经审理查明：" + "被告人张甲在某商场窃取财物。" * (MAX_CHARS // 10), 1)
CRIMINAL = {
    "ok": FIRST_INSTANCE,
    "no_verdict": NO_VERDICT,
    "appeal": APPEAL,
    "transfer": TRANSFER_RULING,
    "garbled": GARBLED,
    "long": LONG,
    "empty": "   ",
}
CIVIL = {
    "ok": CIVIL_ROW,
    "no_sections": {**CIVIL_ROW, "accusation": "", "result": "", "parties": None},
    "escaped_breaks": {**CIVIL_ROW, "accusation": CIVIL_ROW["accusation"].replace("\n", "\\n")},
}


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    criminal = pd.DataFrame([{"case_id": f"judge/{k}", "source_id": k, "full_text": t} for k, t in CRIMINAL.items()])
    civil = pd.DataFrame([{**row, "case_id": f"c3rd/{k}", "source_id": k} for k, row in CIVIL.items()])
    cases = criminal_inputs(criminal) + civil_inputs(civil)
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path_factory.mktemp("cache"))), run_id="t")
    results = asyncio.run(extract_all(door, SCRIPTED, cases, max_attempts=2))
    door.close()
    out = [assemble(c, r) for c, r in zip(cases, results, strict=True)]
    provenance = Provenance("parser-test", SCRIPTED.model, True, 1, "r")
    table = validate(cases_table(out, provenance), Cases, table="cases").set_index("case_id", drop=False)
    return table, validate(issues_table(out), ExtractionIssues, table="extraction_issues")


def issues_of(extracted, case_id: str) -> set[tuple[str, str, str]]:
    issues = extracted[1]
    return {(r.stage, r.field, r.kind) for r in issues[issues.case_id == case_id].itertuples()}


def test_every_case_gets_a_row_and_the_scripted_answers_validate(extracted):
    cases, _ = extracted
    assert len(cases) == len(CRIMINAL) + len(CIVIL)
    assert set(cases["llm_status"]) == {"ok"} and set(cases["llm_fields_source"]) == {"scripted"}


def test_no_empty_mandatory_field_without_an_issue(extracted):
    cases, issues = extracted
    for row in cases.itertuples():
        named = {(r.field, r.kind) for r in issues[issues.case_id == row.case_id].itertuples()}
        for name in mandatory(row.kind, row.doc_type, row.procedure):
            if not getattr(row, name):
                assert (name, "missing") in named, (row.case_id, name)


def test_the_cases_schema_rejects_a_silently_empty_list_field(extracted):
    cases, _ = extracted
    broken = cases.reset_index(drop=True).copy()
    i = broken.index[broken["case_id"] == "c3rd/ok"][0]
    broken.at[i, "claims"] = None  # as if the answer had been dropped without recording why
    with pytest.raises(TableError, match="no model issue names it"):
        validate(broken, Cases, table="cases")
    broken.at[i, "issues"] = [
        *broken.at[i, "issues"],
        {"stage": "llm", "field": "claims", "subject": None, "kind": "invalid", "detail": "x"},
    ]
    broken.at[i, "n_issues"] += 1
    validate(broken, Cases, table="cases")


def test_a_judgment_without_a_verdict_section_keeps_the_rest_and_lists_the_gap(extracted):
    cases, _ = extracted
    row = cases.loc["judge/no_verdict"]
    assert row["defendants"] == [] and row["court_reasoning"] and len(row["statutes"]) > 0
    assert ("parser", "verdict", "missing") in issues_of(extracted, "judge/no_verdict")


def test_several_defendants_appeals_and_transfer_rulings(extracted):
    cases, _ = extracted
    assert [d["name"] for d in cases.loc["judge/ok", "defendants"]] == ["张甲", "王丙"]
    appeal = cases.loc["judge/appeal"]
    assert appeal["procedure"] == "appeal" and appeal["probation_months"] == 3
    assert any(p["side"] == "defendant" and "上诉称" in p["text"] for p in appeal["pleas"])
    transfer = cases.loc["judge/transfer"]
    assert transfer["doc_type"] == "刑事裁定书" and transfer["rulings"] == ["本案移送某某市中级人民法院审理。"]
    assert ("parser", "verdict", "missing") in issues_of(extracted, "judge/transfer")
    assert not {i for i in issues_of(extracted, "judge/transfer") if i[0] == "llm"}  # a ruling only reasons


def test_garbled_and_over_long_texts_are_flagged_and_still_extracted(extracted):
    cases, _ = extracted
    assert ("parser", "text", "garbled") in issues_of(extracted, "judge/garbled")
    assert cases.loc["judge/garbled", "fine_yuan"] == 20000
    assert ("parser", "text", "truncated") in issues_of(extracted, "judge/long")
    assert cases.loc["judge/long", "prison_months"] == 18 and cases.loc["judge/long", "court_reasoning"]


def test_an_empty_document_is_a_row_of_issues(extracted):
    cases, _ = extracted
    assert cases.loc["judge/empty", "defendants"] == [] and cases.loc["judge/empty", "n_issues"] > 3
    got = issues_of(extracted, "judge/empty")
    assert {("parser", "text", "missing"), ("llm", "court_reasoning", "missing")} <= got


def test_civil_cases_with_missing_sections_or_escaped_line_breaks(extracted):
    cases, _ = extracted
    assert cases.loc["c3rd/ok", "claims"] == ["判令被告支付货款4万元", "诉讼费由被告承担"]
    assert cases.loc["c3rd/escaped_breaks", "claims"] == cases.loc["c3rd/ok", "claims"]
    bare = cases.loc["c3rd/no_sections"]
    assert bare["claims"] == [] and bare["rulings"] == [] and bare["court_reasoning"]
    got = issues_of(extracted, "c3rd/no_sections")
    assert {("llm", "claims", "missing"), ("parser", "rulings", "missing")} <= got
