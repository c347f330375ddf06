"""Corpus F0.5 of hypothesis vs reference M2 edits, as ChERRANT's `compare_m2_for_evaluation` (spec §6.7)."""

from __future__ import annotations

from dataclasses import dataclass

from steps.lawbench.metrics.proofread.m2 import SentenceEdits

BETA = 0.5


@dataclass(frozen=True)
class EditCounts:
    tp: int
    fp: int
    fn: int


def compare_sentence(hypothesis: SentenceEdits, reference: SentenceEdits) -> EditCounts:
    """TP/FP/FN of one sentence; an edit repeated by several alignments counts once per repetition."""
    ref, hyp = reference.edits, hypothesis.edits
    if len(ref) == 1 and next(iter(ref.values()))[0] == "NA":
        return EditCounts(0, 0, 0)
    tp = fp = fn = 0
    for key, cats in hyp.items():
        if cats[0] == "noop":
            continue
        if key in ref:
            tp += len(ref[key])
        else:
            fp += len(cats)
    for key, cats in ref.items():
        if cats[0] != "noop" and key not in hyp:
            fn += len(cats)
    return EditCounts(tp, fp, fn)


def f_beta(tp: int, fp: int, fn: int, beta: float = BETA) -> float:
    """ERRANT's F-beta: precision (recall) is 1.0 when there is no false positive (negative)."""
    precision = float(tp) / (tp + fp) if fp else 1.0
    recall = float(tp) / (tp + fn) if fn else 1.0
    if precision + recall == 0:
        return 0.0
    return float((1 + beta**2) * precision * recall) / ((beta**2 * precision) + recall)
