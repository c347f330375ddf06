from steps.j1.extract.grounding import Grounding, normalise

DOC = (
    "经审理查明：2017年4月，被告人张甲、王丙在某商场窃取财物价值人民币二万元。"
    "上述事实，有被害人陈述、监控录像等证据证实。"
)


def test_normalise_keeps_letters_and_digits_only():
    assert normalise("２０１７年 4月，“张甲”！") == "2017年4月张甲"


def test_a_verbatim_copy_is_grounded_despite_punctuation_and_width():
    g = Grounding(DOC)
    match = g.check("２０１７年４月 被告人张甲、王丙在某商场窃取财物")
    assert match.grounded and match.span >= 10


def test_a_short_item_must_occur_whole():
    g = Grounding(DOC)
    assert g.check("监控录像").grounded
    assert not g.check("银行流水").grounded


def test_an_invented_item_is_not_grounded_even_if_it_shares_a_few_characters():
    match = Grounding(DOC).check("被告人张甲的银行转账记录三份")
    assert not match.grounded and match.span < 10
    assert "needs ≥ 10" in match.reason()


def test_a_long_text_needs_most_of_it_copied_not_one_phrase():
    copied = "2017年4月，被告人张甲、王丙在某商场窃取财物价值人民币二万元"
    invented = "此后二人又多次前往外地继续作案，并将赃物以低价出售给他人牟利，所得款项用于挥霍和偿还赌债"
    g = Grounding(DOC)
    assert g.check(copied).grounded
    mixed = g.check(copied + invented)
    assert mixed.span >= 10 and not mixed.grounded and mixed.coverage < 0.6


def test_a_value_without_letters_is_not_grounded():
    match = Grounding(DOC).check("××、……")
    assert not match.grounded and "no letters" in match.reason()
