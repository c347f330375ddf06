"""Single-choice tasks 1-2, 2-2, 2-4, 2-8 and 3-6: the substring judge over a fixed option list (spec §4.2)."""

from __future__ import annotations

from collections.abc import Sequence

from steps.lawbench.metrics.result import TaskScore, mean_score, require_items, strip_prefix

LETTERS_ABCD = ("A", "B", "C", "D")
LETTERS_ABCDE = ("A", "B", "C", "D", "E")

DISPUTE_FOCI = (
    "诉讼主体",
    "租金情况",
    "利息",
    "本金争议",
    "责任认定",
    "责任划分",
    "损失认定及处理",
    "原审判决是否适当",
    "合同效力",
    "财产分割",
    "责任承担",
    "鉴定结论采信问题",
    "诉讼时效",
    "违约",
    "合同解除",
    "肇事逃逸",
)

ISSUE_TOPICS = (
    "婚姻家庭",
    "劳动纠纷",
    "交通事故",
    "债权债务",
    "刑事辩护",
    "合同纠纷",
    "房产纠纷",
    "侵权",
    "公司法",
    "医疗纠纷",
    "拆迁安置",
    "行政诉讼",
    "建设工程",
    "知识产权",
    "综合咨询",
    "人身损害",
    "涉外法律",
    "海事海商",
    "消费权益",
    "抵押担保",
)

# Zero-shot 2-2 gold labels include `赔偿`, which is not an option; the official scorer skips those rows
# (they stay in the abstention denominator). Deliberate, for parity.
_SKIPPED_DISPUTE_LABEL = "赔偿"


def judge_single_choice(prediction: str, options: Sequence[str], gold: str) -> tuple[float, bool]:
    """(score, abstained) for one answer: right iff the gold option is the only option found anywhere.

    There is deliberately no answer-span extraction: a second option letter anywhere in the text (an English
    sentence, an echoed option list) makes the answer wrong, exactly as in LawBench.
    """
    present = [o for o in options if o in prediction]
    if not present:
        return 0.0, True
    return (1.0 if present == [gold] else 0.0), False


def _score(task: str, predictions: Sequence[str], golds: Sequence[str | None], options: Sequence[str]) -> TaskScore:
    values: list[float | None] = []
    abstained: list[bool] = []
    for prediction, gold in zip(predictions, golds, strict=True):
        if gold is None:
            values.append(None)
            abstained.append(False)
            continue
        value, abstain = judge_single_choice(prediction, options, gold)
        values.append(value)
        abstained.append(abstain)
    return mean_score(task, values, abstained)


def score_knowledge_qa(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """1-2: the gold letter follows `正确答案：` (full-width colon)."""
    require_items("1-2", predictions, references)
    golds = [strip_prefix("1-2", i, r, "正确答案：")[:1] for i, r in enumerate(references)]
    return _score("1-2", predictions, golds, LETTERS_ABCD)


def score_case_analysis(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """3-6: the gold letter follows `正确答案:` (half-width colon)."""
    require_items("3-6", predictions, references)
    golds = [strip_prefix("3-6", i, r, "正确答案:")[:1] for i, r in enumerate(references)]
    return _score("3-6", predictions, golds, LETTERS_ABCD)


def score_argument_mining(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """2-8: `[正确答案]X<eoa>`, five options A-E."""
    require_items("2-8", predictions, references)
    golds = [strip_prefix("2-8", i, r, "[正确答案]")[:1] for i, r in enumerate(references)]
    return _score("2-8", predictions, golds, LETTERS_ABCDE)


def score_dispute_focus(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """2-2: accuracy (not the paper's F1) over 16 labels; `赔偿` rows are skipped, see above."""
    require_items("2-2", predictions, references)
    labels = [strip_prefix("2-2", i, r, "争议焦点类别：")[:-1] for i, r in enumerate(references)]
    golds = [None if label == _SKIPPED_DISPUTE_LABEL else label for label in labels]
    return _score("2-2", predictions, golds, DISPUTE_FOCI)


def score_issue_topic(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """2-4: the reference is the bare label."""
    require_items("2-4", predictions, references)
    return _score("2-4", predictions, list(references), ISSUE_TOPICS)
