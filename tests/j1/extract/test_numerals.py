import pytest

from steps.j1.extract.dates import dates_in, parse_date
from steps.j1.extract.numerals import to_int, to_months, to_yuan


@pytest.mark.parametrize(
    ("text", "value"),
    [("二百六十四", 264), ("一百零七", 107), ("十", 10), ("一百三十三", 133), ("（三）", 3), ("264", 264), ("两", 2)],
)
def test_article_numerals(text, value):
    assert to_int(text) == value


def test_not_a_number():
    assert to_int("第某") is None


@pytest.mark.parametrize(
    ("text", "months"),
    [
        ("一年六个月", 18),
        ("一年零六个月", 18),
        ("一年又六个月", 18),
        ("1年6个月", 18),
        ("三个月", 3),
        ("二年", 24),
        ("十五年", 180),
        ("六个", 6),  # 决定执行有期徒刑六个；— the 月 was dropped
    ],
)
def test_terms_in_months(text, months):
    assert to_months(text) == months


def test_unreadable_term():
    assert to_months("若干") is None


@pytest.mark.parametrize(
    ("text", "yuan"),
    [
        ("罚金人民币二万元", 20000),
        ("罚金1.5万元", 15000),
        ("人民币一万五千元", 15000),
        ("5,000元", 5000),
        ("30，000元", 30000),
        ("人民币贰仟元", 2000),
        ("１５００元", 1500),
        ("人民币10万元", 100000),
        ("五十万零一千元", 501000),
        ("244.75万元", 2447500),
    ],
)
def test_amounts_in_yuan(text, yuan):
    assert to_yuan(text) == yuan


def test_birth_dates_full_and_partial():
    assert parse_date("1975年4月16日出生") == "1975-04-16"
    assert parse_date("一九七五年四月十六日生") == "1975-04-16"
    assert parse_date("1975年4月出生") == "1975-04"
    assert parse_date("1975年出生") == "1975"
    assert parse_date("出生于某地") is None


def test_relative_dates_take_the_missing_parts_from_the_date_before():
    dated = [d for _, d in dates_in("2016年9月5日被刑事拘留，同年9月13日被逮捕，同月20日，次日，行政拘留五日")]
    assert dated == ["2016-09-05", "2016-09-13", "2016-09-20", "2016-09-21"]
