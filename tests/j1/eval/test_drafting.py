"""CD/DD scoring of a whole drafted document, hand-computed: II-1, the EM and judged II-2 components, failures."""

from __future__ import annotations

import pytest

from steps.j1.envs.common.profiles import CDTruth, DDTruth
from steps.judges.result import JudgeFailure
from tests.j1.eval.conftest import evaluate, make_case, utterance

PLAINTIFF = {
    "kind": "person",
    "name": "张三",
    "gender": "男",
    "ethnicity": "汉族",
    "birth_date": "1980-01-05",
    "address": "北京市朝阳区幸福路1号",
}
COMPANY = {
    "kind": "entity",
    "name": "某某科技有限公司",
    "address": "北京市海淀区中关村大街2号",
    "legal_representative": "李四",
}
CD_TRUTH = CDTruth.model_validate(
    {
        "plaintiffs": [PLAINTIFF],
        "defendants": [COMPANY],
        "claims": ["判令被告偿还借款50000元", "本案诉讼费用由被告承担"],
        "case_details": "2023年1月被告向原告借款50000元，约定半年内归还，到期后被告未还。",
        "evidence": ["借条一份", "银行转账记录一份"],
    }
)
CLAIMS = "1. 判令被告偿还借款50000元；\n2. 本案诉讼费用由被告承担。"
FACTS = "2023年1月被告向原告借款，到期未还。"


def complaint(plaintiff_label: str = "原告：", evidence: str = "（待补充）", swap: bool = False) -> str:
    # the plaintiff's address is wrong (上海): 4 of the 5 stated fields are found
    claims, facts = f"诉讼请求：\n{CLAIMS}\n", f"事实和理由：\n{FACTS}\n"
    return (
        "民事起诉状\n"
        f"{plaintiff_label}张三，男，1980年1月5日出生，汉族，住上海市浦东新区1号。\n"
        "被告：某某科技有限公司，住所地北京市海淀区中关村大街2号，法定代表人李四。\n"
        + (facts + claims if swap else claims + facts)
        + f"证据和证据来源，证人姓名和住所：\n{evidence}\n此致\n北京市海淀区人民法院\n具状人：张三"
    )


def cd_case(document: str | None, **kwargs):
    turns = [
        utterance(1, "lawyer", "请问您的基本情况？"),
        utterance(1, "plaintiff", "我叫张三。"),
        utterance(2, "lawyer", document or ""),
    ]
    return make_case("CD", CD_TRUTH, turns, text=document, **kwargs)


def test_complaint_by_hand(panel):
    judge = panel({"II-2/CLA": 0.9, "II-2/F&R": 0.7, "II-2/EVI": 0.8})
    rows = evaluate(cd_case(complaint()), judge)
    assert rows[("II-1", "")].value == 1.0
    assert rows[("II-2", "PLA")].value == pytest.approx(4 / 5)
    assert rows[("II-2", "PLA")].evidence["parties"][0]["missed"] == ["address"]
    assert rows[("II-2", "DEF")].value == 1.0
    # the evidence section is only a placeholder: 0 without asking the judge
    assert rows[("II-2", "EVI")].value == 0.0 and "II-2/EVI" not in judge.asked
    assert rows[("II-2", "")].value == pytest.approx((0.8 + 1.0 + 0.9 + 0.0 + 0.7) / 5)
    cla = judge.asked["II-2/CLA"]
    assert cla.reference == "1. 判令被告偿还借款50000元\n2. 本案诉讼费用由被告承担" and cla.candidate == CLAIMS
    assert cla.aspect == "诉讼请求" and judge.asked["II-2/F&R"].reference == CD_TRUTH.case_details


def test_a_copied_parenthetical_costs_its_label_and_a_wrong_order_costs_seq(panel):
    decorated = evaluate(cd_case(complaint(plaintiff_label="原告（自然人）：")), panel())
    assert decorated[("II-1", "")].value == pytest.approx(4 / 5)
    assert decorated[("II-1", "")].evidence["seq"] == 1
    swapped = evaluate(cd_case(complaint(swap=True)), panel())
    assert swapped[("II-1", "")].value == 0.0 and swapped[("II-1", "")].evidence["label"] == 1.0


def test_no_document_is_a_failed_task_scored_zero(panel):
    rows = evaluate(cd_case(None, ended_by="max_turns"), panel())
    assert rows[("II-1", "")].value == 0.0 and rows[("II-2", "")].value == 0.0
    assert all(r.status == "failed_task" for r in rows.values())
    assert {c for m, c in rows if m == "II-2"} == {"", "PLA", "DEF", "CLA", "EVI", "F&R"}


def test_a_failed_component_judge_leaves_ii2_unscored_not_zero(panel):
    rows = evaluate(cd_case(complaint(evidence="1. 借条一份")), panel({"II-2/CLA": JudgeFailure.OUT_OF_RANGE}))
    cla, head = rows[("II-2", "CLA")], rows[("II-2", "")]
    assert (cla.value, cla.status, cla.failure) == (None, "judge_failed", "out_of_range")
    assert (head.value, head.status, head.failure) == (None, "judge_failed", "out_of_range")
    assert rows[("II-1", "")].value == 1.0 and rows[("II-2", "PLA")].value == pytest.approx(0.8)


DD_TRUTH = DDTruth.model_validate(
    {
        "respondent": COMPANY,
        "defence": "借款已于2023年6月归还，原告的诉讼请求没有事实依据。",
        "evidence": [],
    }
)
DEFENCE = (
    "民事答辩状\n答辩人：某某科技有限公司，住所地北京市海淀区中关村大街2号，法定代表人李四。\n"
    "对北京市海淀区人民法院受理的（2024）京0108民初123号民间借贷纠纷一案的起诉，答辩如下：\n"
    "借款已经归还，请求驳回原告的诉讼请求。\n证据和证据来源，证人姓名和住所：\n1. 还款凭证一份"
)


def test_defence_by_hand_with_no_evidence_in_the_truth(panel):
    turns = [
        utterance(1, "lawyer", "请问您的答辩意见？"),
        utterance(1, "defendant", "钱已经还了。"),
        utterance(2, "lawyer", DEFENCE),
    ]
    judge = panel({"II-2/DEF": 0.6})
    rows = evaluate(make_case("DD", DD_TRUTH, turns, text=DEFENCE), judge)
    assert rows[("II-1", "")].value == 1.0 and rows[("II-1", "")].evidence["exact"] == [
        "respondent",
        "reference",
        "evidence",
    ]
    assert rows[("II-2", "RES")].value == 1.0
    assert rows[("II-2", "EVI")].status == "skipped"  # the case states no evidence: nothing to compare
    assert rows[("II-2", "")].value == pytest.approx((1.0 + 0.6) / 2)
    assert judge.asked["II-2/DEF"].candidate == "借款已经归还，请求驳回原告的诉讼请求。"
