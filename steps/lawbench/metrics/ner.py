"""Task 2-6 named-entity extraction: soft F1 over entity types with rc-F1 per value (spec §5, 2-6)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from steps.lawbench.metrics.rcf1 import rc_f1
from steps.lawbench.metrics.result import ScoringError, TaskScore, mean_score, require_items

ENTITY_TYPES = (
    "犯罪嫌疑人",
    "受害人",
    "被盗货币",
    "物品价值",
    "盗窃获利",
    "被盗物品",
    "作案工具",
    "时间",
    "地点",
    "组织机构",
)
_ABSENT_VALUES = ("无", "未提及")
_VALUE_END = re.compile(r"[\n ]")


def reference_entities(task_idx: int, reference: str) -> dict[str, str]:
    """`type:value;type:value…` -> {type: value}; an empty reference has no entities."""
    if reference.strip() == "":
        return {}
    entities: dict[str, str] = {}
    for segment in reference.split(";"):
        parts = segment.split(":")
        if len(parts) < 2:
            raise ScoringError(f"task 2-6 item {task_idx}: reference segment {segment!r} has no ':'")
        entities[parts[0]] = parts[1]
    return entities


def predicted_entities(prediction: str) -> dict[str, str]:
    """Entity values as the official scorer reads them from free text.

    A value is whatever follows `type:`/`type：` up to the first newline or ASCII space, so several pairs on
    one line swallow each other; the last valid occurrence wins and occurrences ending within the last two
    characters are ignored. All deliberate, for parity.
    """
    entities: dict[str, str] = {}
    for entity_type in ENTITY_TYPES:
        for match in re.finditer(re.escape(entity_type), prediction):
            end = match.end()
            if end >= len(prediction) - 2 or prediction[end] not in ":：":
                continue
            value = _VALUE_END.split(prediction[end + 1 :].strip(), maxsplit=1)[0].strip()
            if value not in _ABSENT_VALUES:
                entities[entity_type] = value
    return entities


def entity_soft_f1(reference: dict[str, str], predicted: dict[str, str]) -> float:
    """Per-item soft F1; an item without gold entities scores 1 only if nothing was extracted."""
    if not reference:
        return 1.0 if not predicted else 0.0
    matched = sum(rc_f1(reference[t], predicted[t]) for t in predicted if t in reference)
    precision = matched / len(predicted) if predicted else 0
    recall = matched / len(reference)
    return 2 * precision * recall / (precision + recall + 1e-10)


def score_entity_extraction(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """2-6: mean soft F1. The abstention rate is reported as 0, like results.csv.

    The official scorer counts abstentions but returns them under a misspelled key, so they were never
    written; we keep them in `detail["uncounted_abstentions"]` and report 0 for parity.
    """
    require_items("2-6", predictions, references)
    values: list[float | None] = []
    uncounted = 0
    for idx, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        gold, found = reference_entities(idx, reference), predicted_entities(prediction)
        uncounted += bool(gold) and not found
        values.append(entity_soft_f1(gold, found))
    return mean_score("2-6", values, detail={"uncounted_abstentions": uncounted})
