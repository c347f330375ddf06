"""Set F1 (spec §4.3) and the option-label tasks built on it: 2-3 marital disputes, 2-9 event detection."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from steps.lawbench.metrics.result import TaskScore, mean_score, require_items, strip_prefix

# `婚后分局` (not 婚后分居) is the spelling in the task's instruction and gold labels.
MARITAL_LABELS = (
    "婚后有子女",
    "限制行为能力子女抚养",
    "有夫妻共同财产",
    "支付抚养费",
    "不动产分割",
    "婚后分局",
    "二次起诉离婚",
    "按月给付抚养费",
    "准予离婚",
    "有夫妻共同债务",
    "婚前个人财产",
    "法定离婚",
    "不履行家庭义务",
    "存在非婚生子",
    "适当帮助",
    "不履行离婚协议",
    "损害赔偿",
    "感情不和分居满二年",
    "子女随非抚养权人生活",
    "婚后个人财产",
)

# Matched as whole strings including the slash: `支付` alone does not match `支付/给付`.
EVENT_TYPES = (
    "支付/给付",
    "欺骗",
    "搜查/扣押",
    "要求/请求",
    "卖出",
    "买入",
    "获利",
    "拘捕",
    "鉴定",
    "同意/接受",
    "供述",
    "联络",
    "帮助/救助",
    "租用/借用",
    "受伤",
    "伪造",
    "卖淫",
    "伤害人身",
    "赔偿",
    "归还/偿还",
)


def set_f1(gold: Collection[object], predicted: Collection[object]) -> float:
    """F1 of two sets; 0 when either is empty or they share nothing."""
    gold_set, pred_set = set(gold), set(predicted)
    common = len(gold_set & pred_set)
    precision = common / len(pred_set) if pred_set else 0
    recall = common / len(gold_set) if gold_set else 0
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0


def options_in(prediction: str, options: Sequence[str]) -> set[str]:
    """Every option occurring as a substring of the prediction (nested options all count)."""
    return {o for o in options if o in prediction}


def score_label_sets(task: str, predictions: Sequence[str], golds: Sequence[Collection[str]], options: Sequence[str]):
    """Mean set F1 of the options found in each prediction; abstention = no option found."""
    values: list[float | None] = []
    abstained: list[bool] = []
    for prediction, gold in zip(predictions, golds, strict=True):
        found = options_in(prediction, options)
        values.append(float(set_f1(gold, found)))
        abstained.append(not found)
    return mean_score(task, values, abstained)


def score_marital_disputes(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """2-3: gold labels are `类别:l1、l2。` without the final full stop."""
    require_items("2-3", predictions, references)
    golds = [strip_prefix("2-3", i, r, "类别:")[:-1].split("、") for i, r in enumerate(references)]
    return score_label_sets("2-3", predictions, golds, MARITAL_LABELS)


def score_event_detection(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """2-9: gold event types joined by ASCII `;`."""
    require_items("2-9", predictions, references)
    return score_label_sets("2-9", predictions, [r.split(";") for r in references], EVENT_TYPES)
