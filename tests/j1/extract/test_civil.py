from steps.j1.extract import IssueKind, parse_civil
from steps.j1.extract.civil import civil_parties, record_roles
from steps.j1.extract.civil_sections import rulings, split_result
from steps.j1.extract.costs import parse_costs
from steps.j1.extract.model import CostShare

from .texts import CIVIL_ROW


def test_sections_statutes_rulings_and_costs():
    case = parse_civil(CIVIL_ROW)
    s = case.sections
    assert s.claims.startswith("甲公司向本院提出诉讼请求：1.判令被告支付货款4万元")
    assert s.plaintiff_statement.startswith("原、被告签订买卖合同")
    assert s.defence.startswith("被告李乙辩称")
    assert s.facts.startswith("经审理查明")
    assert s.evidence.startswith("以上事实有")
    assert case.header.doc_type == "民事判决书"
    reasoning = [(s.law, s.article, s.basis) for s in case.statutes if s.source == "reasoning"]
    assert reasoning == [
        ("《中华人民共和国合同法》", 60, False),
        ("《中华人民共和国合同法》", 107, False),
        ("《中华人民共和国合同法》", 109, True),
        ("《中华人民共和国民事诉讼法》", 144, True),
    ]
    assert [(s.article, s.source) for s in case.statutes if s.source == "verdict"] == [(253, "verdict")]
    assert case.rulings == ["被告李乙于本判决生效之日起十日内支付原告甲公司货款4万元", "驳回原告甲公司的其他诉讼请求"]
    assert case.costs.fee_yuan == 800 and case.costs.collected_yuan == 400
    assert case.costs.borne_by == (CostShare("原告甲公司", 100), CostShare("被告李乙", 300))
    assert ("header.court", IssueKind.MISSING) in {(i.field, i.kind) for i in case.issues}


def test_parties_roles_from_the_record_and_representatives():
    case = parse_civil(CIVIL_ROW)
    people = [(p.role, p.name, p.entity, p.represents) for p in case.parties]
    assert people == [
        ("原告", "甲公司", "organisation", None),
        ("被告", "李乙", "person", None),
        ("第三人", "王丙", "person", None),
        ("委托诉讼代理人", "丁某", "person", "甲公司"),
    ]


def test_transposed_party_lists_are_zipped():
    raw = [
        {"name": None, "name_text": "张三", "entity": None, "role": None},
        {"name": None, "name_text": "某某公司", "entity": None, "role": None},
        {"name": "张三", "name_text": None, "entity": None, "role": None},
        {"name": "某某公司", "name_text": None, "entity": None, "role": None},
        {"name": None, "name_text": None, "entity": "Person", "role": None},
        {"name": None, "name_text": None, "entity": "Corporation", "role": None},
        {"name": None, "name_text": None, "entity": None, "role": "Missing"},
        {"name": None, "name_text": None, "entity": None, "role": "Missing"},
    ]
    parties, _ = civil_parties(raw, "原告张三与被告某某公司追偿权纠纷一案", ["追偿权纠纷"])
    assert [(p.role, p.name, p.entity) for p in parties] == [
        ("原告", "张三", "person"),
        ("被告", "某某公司", "organisation"),
    ]


def test_record_roles_cut_the_cause():
    roles = record_roles(
        "原告吕某因与被告嘉兴市某装饰有限公司建设工程分包合同纠纷一案，向本院提起诉讼", ["建设工程分包合同纠纷"]
    )
    assert roles == {"吕某": "原告", "嘉兴市某装饰有限公司": "被告"}


def test_jurisdiction_transfer_ruling():
    row = dict(
        CIVIL_ROW,
        title="甲与乙股权转让纠纷一审民事裁定书",
        result="本案移送成都市温江区人民法院审理。\n本裁定一经作出即生效",
    )
    case = parse_civil(row)
    assert case.header.doc_type == "民事裁定书"
    assert case.rulings == ["本案移送成都市温江区人民法院审理"]
    assert case.sections.appeal_notice == "本裁定一经作出即生效"
    assert ("sections.costs", IssueKind.MISSING) in {(i.field, i.kind) for i in case.issues}


def test_cost_sentences():
    costs, issues = parse_costs("案件受理费2411元，减半收取1206元，由被告负担。")
    assert (costs.fee_yuan, costs.collected_yuan, costs.borne_by) == (2411, 1206, (CostShare("被告", 1206),))
    assert issues == []
    costs, _ = parse_costs("案件受理费825元，公告费600元，共计1425元（原告杨某已预交），由被告金某负担。")
    assert costs.other_fees == {"公告费": 600} and costs.borne_by == (CostShare("被告金某", 1425),)
    costs, issues = parse_costs("本案案件受理费减半收取25元，由被告石某、梁某负担。")
    assert (costs.fee_yuan, costs.collected_yuan) == (None, 25)
    assert [i.field for i in issues] == ["costs.fee_yuan"]
    costs, issues = parse_costs("案件受理费（已减半收取）525.00元，予以免交。")
    assert costs.waived and costs.borne_by == () and issues == []
    costs, issues = parse_costs("诉讼费由原告负担。")
    assert costs is None and issues[0].kind is IssueKind.UNPARSED


def test_literal_backslash_n_is_a_line_break():
    row = dict(CIVIL_ROW, result=CIVIL_ROW["result"].replace("\n", "\\n"))
    assert parse_civil(row).rulings == parse_civil(CIVIL_ROW).rulings


def test_unnumbered_ruling_and_notice_lines():
    parts = split_result(
        "驳回原告汪某的诉讼请求。\n案件受理费100元，减半交纳50元，由原告汪某负担。\n如不服本判决，可上诉"
    )
    assert rulings(parts["verdict"]) == ["驳回原告汪某的诉讼请求"]
    assert parts["costs"].startswith("案件受理费") and parts["appeal_notice"].startswith("如不服")


def test_missing_fields_never_crash():
    case = parse_civil({"source_id": "empty", "parties": None, "record": float("nan")})
    kinds = {(i.field, i.kind) for i in case.issues}
    assert ("sections.reasoning", IssueKind.MISSING) in kinds and ("rulings", IssueKind.MISSING) in kinds
