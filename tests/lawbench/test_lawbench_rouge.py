"""ROUGE-L (1-1, 2-7, 3-2, 3-8): hand cases, the bit-parallel LCS, and parity with rouge-chinese itself."""

from __future__ import annotations

import random

import pytest
from rouge_chinese import Rouge

from steps.lawbench.metrics import rouge


def _naive_lcs(a, b) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev_diag = 0
        for j, y in enumerate(b, start=1):
            prev_diag, row[j] = row[j], prev_diag + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def test_bit_parallel_lcs_equals_the_textbook_dp():
    rng = random.Random(7)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 40))]
        b = [rng.choice("abcdef") for _ in range(rng.randint(0, 40))]
        assert rouge.lcs_length(a, b) == _naive_lcs(a, b)


def test_sentence_cut_inserts_empty_words_that_count():
    # Spec §4.5 example: h words [你好, 。, "", 再见] against r words [你好, 。, 再见]: P = 3/4, R = 1.
    assert rouge.rouge_words(rouge.segment("你好。\n再见")) == ["你好", "。", "", "再见"]
    assert rouge.rouge_l("你好。\n再见", "你好。再见") == 2.0 * ((0.75 * 1.0) / (0.75 + 1.0 + 1e-8))


def test_empty_and_blank_hypotheses_become_the_placeholder():
    # The placeholder is one unsegmented word; jieba splits a reference 无内容 into 无 / 内容, so it never
    # matches: an empty output always scores 0.
    assert rouge.rouge_words(rouge.EMPTY_HYPOTHESIS) == ["无内容"]
    assert rouge.rouge_l("", "无内容") == 0.0
    assert rouge.rouge_l(" \n ", "本院认为") == 0.0
    assert rouge.rouge_l_f(["无内容"], ["无内容"]) == 2.0 * (1.0 / (2.0 + 1e-8))


def test_identical_texts_score_just_below_one():
    assert rouge.rouge_l("本院认为，被告人构成盗窃罪。", "本院认为，被告人构成盗窃罪。") == 2.0 * (1.0 / (2.0 + 1e-8))


def test_article_recitation_strips_the_prefix_from_the_reference_only():
    result = rouge.score_article_recitation(
        ["农民专业合作社设理事长一名", "答案:农民专业合作社设理事长一名"], ["答案:农民专业合作社设理事长一名"] * 2
    )
    assert result.item_scores[0] == pytest.approx(1.0, abs=1e-8)
    assert result.item_scores[1] < result.item_scores[0]


def test_consultation_keeps_the_answer_prefix_in_the_reference():
    result = rouge.score_consultation(["可以起诉"], ["回答:可以起诉"])
    assert result.score < 0.99


TEXTS = [
    "根据《中华人民共和国刑法》第二百六十四条，盗窃公私财物，数额较大的……处三年以下有期徒刑。",
    "你好。\n\n再见！“好的。”他说？\r\n是的......然后",
    "   ",
    "English words and 中文 mixed, 1234 numbers.",
    "……省略……\n\t制表符",
]


@pytest.mark.parametrize("hypothesis", TEXTS)
@pytest.mark.parametrize("reference", TEXTS[:2] + TEXTS[3:])
def test_matches_rouge_chinese_exactly(hypothesis, reference):
    joined = rouge.segment(hypothesis)
    joined = joined if joined.strip() else rouge.EMPTY_HYPOTHESIS
    expected = Rouge().get_scores(joined, rouge.segment(reference))[0]["rouge-l"]["f"]
    assert rouge.rouge_l(hypothesis, reference) == expected
