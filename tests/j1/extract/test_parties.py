from steps.j1.extract.model import CustodyEvent
from steps.j1.extract.parties import parse_parties


def test_defendant_particulars_custody_and_priors():
    (prosecutor, defendant, counsel), issues = parse_parties(
        [
            "公诉机关上海市奉贤区人民检察院。",
            "被告人张甲（曾用名张乙，绰号小张），男，1975年4月16日出生于河北省怀安县，汉族，高中文化，农民，"
            "户籍地上海市奉贤区，住上海市闵行区。2010年3月因犯盗窃罪被本院判处有期徒刑一年，2011年3月刑满释放。"
            "因涉嫌犯诈骗罪于2016年9月5日被刑事拘留，同年9月13日被逮捕。现羁押于奉贤区看守所。",
            "辩护人李丙，上海某律师事务所律师。",
        ]
    )
    assert issues == []
    assert (prosecutor.role, prosecutor.name, prosecutor.entity) == (
        "公诉机关",
        "上海市奉贤区人民检察院",
        "organisation",
    )
    assert (defendant.name, defendant.gender, defendant.birth_date, defendant.birthplace) == (
        "张甲",
        "男",
        "1975-04-16",
        "河北省怀安县",
    )
    assert (defendant.ethnicity, defendant.education, defendant.occupation) == ("汉族", "高中", "农民")
    assert (defendant.domicile, defendant.address) == ("上海市奉贤区", "上海市闵行区")
    assert defendant.custody == (CustodyEvent("刑事拘留", "2016-09-05"), CustodyEvent("逮捕", "2016-09-13"))
    assert defendant.custody_status == "在押"
    assert defendant.prior_records == ("2010年3月因犯盗窃罪被本院判处有期徒刑一年，2011年3月刑满释放",)
    assert (counsel.role, counsel.name, counsel.affiliation, counsel.represents) == (
        "辩护人",
        "李丙",
        "上海某律师事务所律师",
        "张甲",
    )


def test_partial_birth_date_and_bail():
    (defendant,), _ = parse_parties(["被告人王丙，女，1990年5月出生，回族。因涉嫌犯盗窃罪于2017年4月28日被取保候审。"])
    assert defendant.birth_date == "1990-05"
    assert defendant.custody_status == "取保候审"


def test_appellant_and_two_counsel_in_one_paragraph():
    (appellant, first, second), _ = parse_parties(
        ["上诉人（原审被告人）董甲，男，汉族。", "辩护人王某、刘某，四川发现律师事务所律师。"]
    )
    assert appellant.role == "上诉人（原审被告人）"
    assert [(p.name, p.represents) for p in (first, second)] == [("王某", "董甲"), ("刘某", "董甲")]


def test_organisation_with_legal_representative():
    (company, rep), _ = parse_parties(
        ["被告单位某某贸易有限公司，住所地浙江省杭州市西湖区。", "诉讼代表人陈某，该公司经理。"]
    )
    assert (company.entity, company.registered_address, company.legal_representative) == (
        "organisation",
        "浙江省杭州市西湖区",
        "陈某",
    )
    assert rep.represents == "某某贸易有限公司"
