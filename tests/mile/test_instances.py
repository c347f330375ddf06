"""Instances: what each role is given (and not), and the deterministic stratified sample."""

from __future__ import annotations

import json

import pytest

from steps.mile.instances import build_instance, evidence_items, facts_text, sample_rows
from tests.mile.conftest import row_of


def test_each_role_gets_what_the_paper_gives_it(mile):
    inst = build_instance(row_of(mile, 1))
    client, lawyer, supervisor = (inst.profiles[r] for r in ("client", "lawyer", "supervisor"))
    assert lawyer == {"kind": "person", "supervised": False}
    assert client["basic_info"].startswith("姓名：李恩泉") and "出生日期：1970年3月17日" in client["basic_info"]
    assert client["claim"].startswith("请求依法判令两被告") and client["costs"] == "请求诉讼费由两被告承担"
    assert "output" not in json.dumps(inst.profiles, ensure_ascii=False)
    assert supervisor["less"] == "出生日期" and supervisor["tone"].startswith("你的说话语气")
    assert inst.ground_truth["output"] == row_of(mile, 1).output


def test_source_quirks_are_cleaned_for_the_roles(mile):
    assert evidence_items(["null"]) == [] and evidence_items([" 借条 ", ""]) == ["借条"]
    doubled = mile[mile.case_r_f.str.startswith("事实和理由")].iloc[0]
    assert not facts_text(doubled.case_r_f).startswith("事实")
    company = build_instance(row_of(mile, 177))
    assert company.profiles["client"]["kind"] == "company" and company.profiles["lawyer"]["kind"] == "company"


def test_the_sample_is_stratified_deterministic_and_seeded(mile):
    a, b = sample_rows(mile, 100, 0), sample_rows(mile, 100, 0)
    assert len(a) == 100 and list(a.instance_id) == list(b.instance_id) and a.id.is_monotonic_increasing
    shares = a.law_reason.value_counts()
    assert shares["合同、准合同纠纷"] == 43  # 299 / 693 of 100, by largest remainder
    assert set(a.law_reason) == set(mile.law_reason) - {"其他"}
    assert list(sample_rows(mile, 100, 1).instance_id) != list(a.instance_id)
    assert len(sample_rows(mile, None, 0)) == 693
    with pytest.raises(ValueError):
        sample_rows(mile, 0, 0)
