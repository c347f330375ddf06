"""II-2 exact-match party fields: normalised containment, persons and entities, date formats."""

from __future__ import annotations

import pytest

from steps.j1.eval.metrics import PartyFacts, party_fields
from steps.j1.eval.metrics.parties import normalise
from steps.j1.extract.model import Party

PERSON = PartyFacts("person", "张三", "男", "汉族", "1980-01-05", "住湖南省长沙市岳麓区麓山路1号")
ENTITY = PartyFacts(
    "entity", "长沙某某贸易有限公司", address="湖南省长沙市天心区书院路8号", legal_representative="李四"
)


@pytest.mark.parametrize(
    "block",
    [
        "张三，男，1980年1月5日生，汉族，住湖南省长沙市岳麓区麓山路1号。",
        "张三，男性，1980-01-05出生，汉族，住址：湖南省长沙市岳麓区麓山路 1 号",
        "姓名：张三；性别：男；民族：汉族；出生日期：一九八〇年一月五日；住所：湖南省长沙市岳麓区麓山路１号",
    ],
)
def test_every_person_field_found_whatever_the_date_and_punctuation(block):
    result = party_fields(block, PERSON)
    assert result.value == 1.0 and result.missed == ()


def test_iso_truth_and_chinese_block_dates_meet_both_ways():
    chinese_truth = PartyFacts("person", "张三", birth_date="1980年1月5日")
    assert party_fields("张三，1980-01-05生", chinese_truth).matched == ("name", "birth_date")
    month_only = PartyFacts("person", "张三", birth_date="1980-01")
    assert party_fields("张三，1980年1月5日生", month_only).value == 1.0


def test_wrong_fields_are_missed_and_empty_truth_fields_skipped():
    truth = PartyFacts("person", "张三", "男", "汉", None, "湖南省长沙市岳麓区麓山路1号")
    result = party_fields("张三，女，汉族，住湖南省长沙市岳麓区。", truth)
    assert result.matched == ("name", "ethnicity")  # 汉 is read as 汉族
    assert result.missed == ("gender", "address")
    assert result.skipped == ("birth_date",)
    assert result.value == pytest.approx(2 / 4)


def test_a_wrong_birth_day_is_a_miss():
    assert party_fields("张三，男，1980年1月15日生，汉族，住湖南省长沙市岳麓区麓山路1号", PERSON).missed == (
        "birth_date",
    )


def test_entity_fields():
    block = "长沙某某贸易有限公司，住所地：湖南省长沙市天心区书院路8号，法定代表人：李四，总经理。"
    assert party_fields(block, ENTITY).value == 1.0
    partial = party_fields("长沙某某贸易有限公司，法定代表人王五。", ENTITY)
    assert (partial.matched, partial.missed) == (("name",), ("address", "legal_representative"))
    assert partial.value == pytest.approx(1 / 3)


def test_entity_is_not_scored_on_person_fields():
    assert ENTITY.fields == ("name", "address", "legal_representative")
    assert party_fields("长沙某某贸易有限公司，男，汉族", ENTITY).skipped == ()


def test_missing_block_scores_zero_and_empty_truth_is_unscored():
    assert party_fields(None, PERSON).value == 0.0
    assert party_fields("张三", PartyFacts("person")).value is None


def test_from_parsed_parties():
    person = Party(role="原告", name="张三", gender="男", ethnicity="汉族", birth_date="1980-01-05", domicile="长沙市")
    assert PartyFacts.from_party(person) == PartyFacts("person", "张三", "男", "汉族", "1980-01-05", "长沙市")
    company = Party(
        role="被告", name="某公司", entity="organisation", registered_address="长沙市", legal_representative="李四"
    )
    assert PartyFacts.from_party(company) == PartyFacts(
        "entity", "某公司", address="长沙市", legal_representative="李四"
    )


def test_normalise():
    assert normalise("1980年1月5日 生，住：长沙") == "19800105生住长沙"
    assert normalise("ＡＢ １２") == "ab12"
