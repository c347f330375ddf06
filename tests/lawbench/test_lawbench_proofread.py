"""Task 2-1: sentences, lexicon costs, the fast aligner against a naive one, the merger and F0.5."""

from __future__ import annotations

import json

import pytest

from steps.lawbench.metrics.proofread import score_proofreading
from steps.lawbench.metrics.proofread.align import fill_costs
from steps.lawbench.metrics.proofread.align_kernel import fill_costs_compiled
from steps.lawbench.metrics.proofread.edits import _within_one_edit, finish_edits, group_path, merge_path
from steps.lawbench.metrics.proofread.fscore import compare_sentence, f_beta
from steps.lawbench.metrics.proofread.lexicon import CharLexicon, read_cilin_tree, substitution_cost
from steps.lawbench.metrics.proofread.m2 import NOOP_KEY, SentenceEdits, sentence_edits
from steps.lawbench.metrics.proofread.paths import count_paths, enumerate_paths, followed_ops, grouped_paths
from steps.lawbench.metrics.proofread.sentences import hypothesis_sentence, source_sentence
from tests.lawbench.cherrant_oracle import naive_alignment, naive_paths

EMPTY = CharLexicon()
LEXICON = CharLexicon(
    semantic_classes={"京": ("C", "b", "25"), "城": ("C", "b", "25"), "都": ("C", "b", "08"), "爱": ("G", "a", "12")},
    confusions={"己": frozenset({"已", "巳"})},
)
PAIRS = [
    ("我爱北京天安门", "我爱北京天安门。"),
    ("他今天去了学校", "他去了学校今天"),
    ("我北京爱", "我爱北京"),
    ("abcabc", "cbacba"),
    ("经审理查明，被告人于2016年盗窃", "经审查明，被告人在2016年窃取了"),
    ("自己已经知道", "自已己经知到"),
    ("京城的首都", "首都的京城了吧"),
    ("，。、；", "。，；、"),
    ("原告张三诉称被告李四欠款", "原告张三称被告李四欠原告款项未还清楚请求法院判决"),
]


def test_source_keeps_the_template_tail_on_the_sentence_line():
    prompt = "<|im_start|>user\n请改正。句子：\n我爱北京<|im_end|>\n<|im_start|>assistant\n"
    assert source_sentence(0, prompt) == "我爱北京<|im_end|>"


def test_hypothesis_is_cut_to_reference_length_plus_five():
    assert hypothesis_sentence("我爱北京天安门\n，我爱中国共产党", "我爱北京天安门") == "我爱北京天安门，我爱中国"
    assert hypothesis_sentence("\n\t", "参考") == "无内容"
    assert hypothesis_sentence(" ", "参考") == " "  # not empty here; the M2 builder turns it into 无


def test_substitution_cost_parts_and_order():
    # Unknown Cilin class 4/6, different pinyin 0.5, neither punctuation 0.25.
    assert substitution_cost("我", "你", EMPTY) == 4 / 6.0 + 0.5 + 0.25
    assert substitution_cost("在", "再", EMPTY) == 4 / 6.0 + 0 + 0.25  # shared reading zai
    assert substitution_cost("，", "。", EMPTY) == 4 / 6.0 + 0.5 + 0.499  # 。 is not in ChERRANT's list
    assert substitution_cost("，", "；", EMPTY) == 4 / 6.0 + 0.5 + 0.0
    assert substitution_cost("京", "城", LEXICON) == 0 / 6.0 + 0.5 + 0.25
    assert substitution_cost("京", "都", LEXICON) == 2 / 6.0 + 0.5 + 0.25
    assert substitution_cost("京", "爱", LEXICON) == 6 / 6.0 + 0.5 + 0.25
    assert substitution_cost("已", "己", LEXICON) == 4 / 6.0 + 0 + 0.25  # confusion set, either direction


def test_cilin_tree_reader_keeps_the_last_code(tmp_path):
    tree = {
        "A": {
            "tag": "",
            "sub": {
                "a": {
                    "tag": "",
                    "sub": {"01": {"tag": "", "sub": {"A": {"tag": "", "sub": {"01=": ["人", "士"], "02=": ["士"]}}}}},
                }
            },
        }
    }
    path = tmp_path / "cilin_tree.json"
    path.write_text(json.dumps(tree, ensure_ascii=False), encoding="utf-8")
    assert read_cilin_tree(path) == {"人": ("A", "a", "01"), "士": ("A", "a", "01")}


@pytest.mark.parametrize(("source", "target"), PAIRS)
@pytest.mark.parametrize("lexicon", [EMPTY, LEXICON], ids=["no-files", "toy-lexicon"])
def test_fast_alignment_equals_the_naive_loop(source, target, lexicon):
    cost, ops = naive_alignment(source, target, lexicon)
    table = fill_costs(source, target, lexicon)
    for i in range(len(source) + 1):
        for j in range(len(target) + 1):
            if i + j:
                assert table.cost[i][j] == cost[i][j], (i, j)
                assert tuple(op[0] for op in table.ops(i, j)) == ops[i][j], (i, j)
    first_only = abs(len(source) - len(target)) > 10
    brute = naive_paths(ops, len(source), len(target), first_only)
    followed = followed_ops(table)
    assert count_paths(followed) == len(brute)
    assert sorted(enumerate_paths(followed)) == sorted(brute)
    distinct = {merge_path(p, source, target) for p in brute}
    assert {finish_edits(units, source, target) for units in grouped_paths(followed)} == distinct


def _same_table(a, b) -> bool:
    return (a.cost.tolist(), a.substitution.tolist(), a.transpositions) == (
        b.cost.tolist(),
        b.substitution.tolist(),
        b.transpositions,
    )


@pytest.mark.parametrize("lexicon", [EMPTY, LEXICON], ids=["no-files", "toy-lexicon"])
def test_compiled_alignment_equals_the_python_loop(lexicon):
    for source, target in [*PAIRS, ("", "甲"), ("甲", ""), ("甲乙", "甲乙")]:
        assert _same_table(fill_costs_compiled(source, target, lexicon), fill_costs(source, target, lexicon))


def test_compiled_alignment_equals_the_python_loop_on_mirrored_predictions(mirror):
    """Every (source, hypothesis) pair of two mirrored models, incl. one whose source carries a template tail."""
    from steps.lawbench.metrics.proofread.m2 import to_simplified

    pairs = set()
    for model in ("GPT4", "qwen-7b-chat-hf"):
        path = mirror / "lawbench/predictions/zero_shot" / model / "2-1.json"
        for idx, rec in json.loads(path.read_text(encoding="utf-8")).items():
            prompt = rec["origin_prompt"]
            prompt = prompt if isinstance(prompt, str) else prompt[0]["prompt"]
            source = "".join(source_sentence(int(idx), prompt).split())
            for target in (hypothesis_sentence(rec["prediction"], rec["refr"]), rec["refr"]):
                pairs.add((source, to_simplified("".join(target.split()))))
    assert len(pairs) > 900
    for source, target in sorted(pairs)[::3]:
        assert _same_table(fill_costs_compiled(source, target, EMPTY), fill_costs(source, target, EMPTY)), source


def test_merger_joins_word_order_patterns():
    # S M S with single characters swapped around a match: 甲乙丙 -> 丙乙甲 becomes one W (T3) span.
    path = [("S", 0, 1, 0, 1), ("M", 1, 2, 1, 2), ("S", 2, 3, 2, 3)]
    assert merge_path(path, "甲乙丙", "丙乙甲") == (("T3", 0, 3, 0, 3),)
    # D M I moving one character: 张李王 -> 李王张.
    path = [("D", 0, 1, 0, 0), ("M", 1, 2, 0, 1), ("M", 2, 3, 1, 2), ("I", 3, 3, 2, 3)]
    assert merge_path(path, "张李王", "李王张") == (("T3", 0, 3, 0, 3),)
    # ... but never for punctuation.
    path = [("D", 0, 1, 0, 0), ("M", 1, 2, 0, 1), ("M", 2, 3, 1, 2), ("I", 3, 3, 2, 3)]
    assert merge_path(path, "，李王", "李王，") == (("D", 0, 1, 0, 0), ("I", 3, 3, 2, 3))


def test_merger_collapses_runs_and_trims_substitutions():
    assert group_path([("S", 0, 1, 0, 1), ("I", 1, 1, 1, 2), ("S", 1, 2, 2, 3)]) == [("S", 0, 2, 0, 3)]
    assert group_path([("D", 0, 1, 0, 0), ("D", 1, 2, 0, 0)]) == [("D", 0, 2, 0, 0)]
    # S over 甲乙丙 -> 甲丙 shares 甲 and 丙: only the deletion of 乙 is left.
    assert finish_edits([("S", 0, 3, 0, 2)], "甲乙丙", "甲丙") == (("D", 1, 2, 1, 1),)
    assert finish_edits([("M", 0, 2, 0, 2)], "甲乙", "甲乙") == ()


def test_within_one_edit():
    assert _within_one_edit("abc", "abc")
    assert _within_one_edit("abc", "abd")
    assert _within_one_edit("abc", "ac")
    assert _within_one_edit("ab", "cab")
    assert not _within_one_edit("abc", "bca")
    assert not _within_one_edit("abcd", "ab")


def test_sentence_edits_noop_empty_target_and_path_limit():
    assert sentence_edits("我爱北京", "我爱北京", EMPTY, 100).edits == {NOOP_KEY: ["noop"]}
    assert sentence_edits("我爱北京", "我爱北京。", EMPTY, 100).edits == {(4, 4, "。"): ["M"]}
    blank = sentence_edits("我爱北京", " ", EMPTY, 100)
    assert blank.timed_out and blank.edits == sentence_edits("我爱北京", "无", EMPTY, 100).edits
    # A matching cell only allows M, so 甲甲乙 -> 甲乙 has one cheapest path (delete the first 甲).
    assert count_paths(followed_ops(fill_costs("甲甲乙", "甲乙", EMPTY))) == 1
    # 甲乙甲 -> 乙甲乙: delete 甲 in front and insert 乙 at the end, or the other way round; both lists kept.
    assert count_paths(followed_ops(fill_costs("甲乙甲", "乙甲乙", EMPTY))) == 2
    assert sentence_edits("甲乙甲", "乙甲乙", EMPTY, 2).edits == {
        (0, 1, "-NONE-"): ["R"],
        (3, 3, "乙"): ["M"],
        (0, 0, "乙"): ["M"],
        (2, 3, "-NONE-"): ["R"],
    }
    assert sentence_edits("甲乙甲", "乙甲乙", EMPTY, 1).timed_out
    # 甲甲 -> 乙: two paths (D S or S D) that merge to the same edit list, which is kept once.
    assert count_paths(followed_ops(fill_costs("甲甲", "乙", EMPTY))) == 2
    assert sentence_edits("甲甲", "乙", EMPTY, 2).edits == {(0, 2, "乙"): ["S"]}


def test_repeated_edits_count_once_per_alternative_alignment():
    hyp = SentenceEdits({(0, 1, "乙"): ["S", "S"], (2, 2, "。"): ["M"]})
    ref = SentenceEdits({(0, 1, "乙"): ["S"], (5, 6, "-NONE-"): ["R", "R"]})
    counts = compare_sentence(hyp, ref)
    assert (counts.tp, counts.fp, counts.fn) == (1, 1, 2)


def test_f_beta_hand_values():
    assert f_beta(1, 1, 1) == pytest.approx(0.5)
    assert f_beta(2, 0, 2) == pytest.approx(1.25 * 0.5 / 0.75)
    assert f_beta(0, 0, 0) == 1.0  # no false positive and no false negative: P = R = 1
    assert f_beta(0, 3, 2) == 0.0


def test_proofreading_score_on_tiny_items():
    prompt = "请修改下面句子中的错误。句子：\n我爱北京天安门\n"
    refs = ["我爱北京天安门。", "我爱北京天安门。"]
    exact = score_proofreading(refs, refs, [prompt, prompt])
    assert (exact.score, exact.detail["tp"], exact.detail["fp"], exact.detail["fn"]) == (1.0, 2, 0, 0)
    unchanged = score_proofreading(["我爱北京天安门", ""], refs, [prompt, prompt])
    assert unchanged.detail["tp"] == 0 and unchanged.detail["fn"] == 2
    assert unchanged.score == 0.0
    half = score_proofreading(["我爱北京天安门。", "我爱北京天安门"], refs, [prompt, prompt])
    # TP 1, FP 0, FN 1: P = 1, R = 0.5 -> F0.5 = 0.625 / 0.75, rounded to 4 decimals.
    assert half.score == round(1.25 * 0.5 / 0.75, 4) == 0.8333
