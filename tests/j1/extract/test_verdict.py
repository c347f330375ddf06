from steps.j1.extract.model import IssueKind
from steps.j1.extract.verdict import parse_verdict, term_months


def one(verdict, names=()):
    defendants, others, issues = parse_verdict(verdict, list(names))
    assert len(defendants) == 1
    return defendants[0], others, issues


def test_single_sentence_with_probation_and_fine():
    d, _, issues = one(
        "被告人黄琴犯盗窃罪，判处拘役三个月，宣告缓刑六个月，并处罚金人民币1500元。（缓刑考验期限，从判决确定之日起计算）。"
    )
    assert (d.name, d.charges, d.penalty, d.prison_months, d.probation_months, d.fine_yuan) == (
        "黄琴",
        ("盗窃",),
        "拘役",
        3,
        6,
        1500,
    )
    assert issues == []


def test_fines_in_wan_and_chinese_numerals():
    assert one("被告人甲犯开设赌场罪，判处有期徒刑十个月，并处罚金1.5万元。")[0].fine_yuan == 15000
    assert one("被告人甲犯诈骗罪，判处有期徒刑三年，缓刑三年，并处罚金人民币二万元。")[0].fine_yuan == 20000
    assert one("被告人甲犯抢劫罪，判处有期徒刑四年，并处罚金人民币壹仟元。")[0].fine_yuan == 1000


def test_several_defendants_in_numbered_items_and_a_forfeiture_item():
    defendants, others, issues = parse_verdict(
        "一、被告人王甲犯贩卖毒品罪，判处有期徒刑一年三个月，并处罚金人民币三千元。（刑期从判决执行之日起计算。） "
        "二、被告人颜乙犯贩卖毒品罪，判处有期徒刑一年，并处罚金人民币二千元。 "
        "三、被告人王甲扣押在案的手机一部予以没收。",
        ["王甲", "颜乙"],
    )
    assert [(d.name, d.prison_months, d.fine_yuan) for d in defendants] == [("王甲", 15, 3000), ("颜乙", 12, 2000)]
    assert others == ["被告人王甲扣押在案的手机一部予以没收。"]
    assert issues == []


def test_unnumbered_defendants_in_one_item():
    defendants, _, _ = parse_verdict(
        "一、被告人林某犯购买假币罪，判处有期徒刑一年；并处罚金人民币二万元。 被告人徐某犯持有、使用假币罪，"
        "判处有期徒刑十个月；并处罚金人民币一万元。 二、扣押的车辆依法返还车辆所有人。",
        [],
    )
    assert [(d.name, d.charges) for d in defendants] == [("林某", ("购买假币",)), ("徐某", ("持有、使用假币",))]


def test_combined_sentence_is_the_principal_penalty():
    d, _, _ = one(
        "被告人魏某犯开设赌场罪，判处有期徒刑十个月，并处罚金人民币二万元，犯非法持有枪支罪，判处有期徒刑一年，"
        "数罪并罚，决定执行有期徒刑一年六个月，并处罚金人民币二万元。"
    )
    assert (d.charges, d.prison_months, d.fine_yuan, d.combined) == (("开设赌场", "非法持有枪支"), 18, 20000, True)
    assert [(c.charge, c.prison_months) for c in d.counts] == [("开设赌场", 10), ("非法持有枪支", 12)]


def test_an_earlier_sentence_combined_with_this_one_is_not_a_charge():
    d, _, _ = one(
        "被告人陈某犯强奸罪，判处有期徒刑四年七个月，与原犯强奸罪，判处有期徒刑二年四个月，两罪并罚，决定执行有期徒刑六年六个月。"
    )
    assert (d.charges, d.prison_months) == (("强奸",), 78)
    d, _, _ = one(
        "上诉人向某犯故意伤害罪，判处有期徒刑四年，与某县人民法院（2012）淮刑初字第165号刑事判决中对向某犯聚众斗殴罪，"
        "判处有期徒刑三年数罪并罚，决定执行有期徒刑六年。"
    )
    assert (d.charges, d.prison_months) == (("故意伤害",), 72)


def test_fines_of_counts_without_a_combined_fine_are_added():
    d, _, issues = one(
        "被告人甲犯盗窃罪，判处有期徒刑八个月，并处罚金1800元；犯抢劫罪，判处有期徒刑三年，并处罚金1000元，"
        "决定执行有期徒刑三年零二个月。"
    )
    assert (d.prison_months, d.fine_yuan) == (38, 2800)
    assert [i.kind for i in issues] == [IssueKind.INFERRED]


def test_other_principal_penalties():
    assert one("被告人毛某犯滥伐林木罪，免予刑事处罚。")[0].penalty == "免予刑事处罚"
    d = one("被告人冯某犯盗窃罪，判处罚金人民币五千元（罚金已缴纳）。")[0]
    assert (d.penalty, d.prison_months, d.fine_yuan) == ("单处罚金", None, 5000)
    d = one("被告人刘某犯开设赌场罪，判处管制一年，并处罚金人民币二万元。")[0]
    assert (d.penalty, d.prison_months) == ("管制", 12)
    d = one("被告人甲犯故意杀人罪，判处死刑，缓期二年执行，剥夺政治权利终身。")[0]
    assert (d.penalty, d.prison_months, d.probation_months) == ("死刑缓期执行", None, None)
    assert one("被告人乙犯运输毒品罪，判处无期徒刑，并处没收个人财产。")[0].penalty == "无期徒刑"


def test_terms_with_days_and_doubled_units():
    assert term_months("二个月十五日") == 2.5
    assert term_months("一个月十天") == round(1 + 10 / 30, 2)
    assert term_months("一年六个月月") == 18


def test_appeal_items_disposing_of_the_original_are_not_sentences():
    defendants, others, _ = parse_verdict(
        "一、撤销某区人民法院（2019）川0105刑初473号刑事判决，即：被告人董甲犯危险驾驶罪，判处拘役二个月，并处罚金人民币三千元。"
        " 二、上诉人（原审被告人）董甲犯危险驾驶罪，判处拘役二个月，缓刑三个月，并处罚金人民币三千元。",
        ["董甲"],
    )
    (d,) = defendants
    assert (d.prison_months, d.probation_months, d.fine_yuan) == (2, 3, 3000)
    assert others[0].startswith("撤销")


def test_name_without_role_and_a_proceeds_clause_is_not_a_defendant():
    d, _, _ = one("三、薛兵兵犯盗窃罪，判处有期徒刑三年缓刑四年，并处罚金20000元。", ["薛兵兵"])
    assert (d.name, d.prison_months, d.probation_months) == ("薛兵兵", 36, 48)
    defendants, others, _ = parse_verdict("二、被告人张方的犯罪所得人民币一万八千元，依法予以追缴。", ["张方"])
    assert defendants == [] and len(others) == 1


def test_a_charge_containing_crime_proceeds():
    d, _, _ = one("被告人刘某犯掩饰、隐瞒犯罪所得罪，判处拘役四个月，并处罚金人民币一千元。")
    assert d.charges == ("掩饰、隐瞒犯罪所得",)
