import pytest

from steps.j1.extract.laws import canonical_law, law_key


@pytest.mark.parametrize(
    ("raw", "full"),
    [
        ("《刑法》", "《中华人民共和国刑法》"),
        ("刑法", "《中华人民共和国刑法》"),
        ("《民诉法》", "《中华人民共和国民事诉讼法》"),
        ("《中华人民共和国民事诉讼法（2013年）》", "《中华人民共和国民事诉讼法》"),
        ("《中华人民共和国保险法（2015年修正）》", "《中华人民共和国保险法》"),
        ("《著作权法》", "《中华人民共和国著作权法》"),
        ("《民诉法解释》", "《最高人民法院关于适用〈中华人民共和国民事诉讼法〉的解释》"),
        (
            "最高人民法院关于适用《中华人民共和国民事诉讼法》的解释",
            "《最高人民法院关于适用〈中华人民共和国民事诉讼法〉的解释》",
        ),
        (
            "《最高人民法院关于适用＜中华人民共和国民事诉讼法＞的解释》",
            "《最高人民法院关于适用〈中华人民共和国民事诉讼法〉的解释》",
        ),
        (
            "最高人民法院《关于审理民间借贷案件适用法律若干问题的规定》",
            "《最高人民法院关于审理民间借贷案件适用法律若干问题的规定》",
        ),
        ("《陕西省人口与计划生育条例（2009年）》", "《陕西省人口与计划生育条例》"),
        ("《诉讼费用交纳办法》", "《诉讼费用交纳办法》"),
    ],
)
def test_official_full_names(raw, full):
    assert canonical_law(raw) == full


def test_contracts_and_bylaws_are_not_laws():
    assert canonical_law("《股权转让协议书》") is None
    assert canonical_law("《公司章程》") is None


def test_an_interpretation_that_lost_its_inner_title_needs_a_stated_assumption():
    assert canonical_law("《最高人民法院关于适用的解释》") == "《最高人民法院关于适用的解释》"
    assert (
        canonical_law("《最高人民法院关于适用的解释》", empty_inner="民事诉讼法")
        == "《最高人民法院关于适用〈中华人民共和国民事诉讼法〉的解释》"
    )


def test_key_ignores_marks_and_versions():
    assert law_key("《中华人民共和国婚姻法（2001年）》") == law_key("婚姻法") == "中华人民共和国婚姻法"
