"""Per-sentence M2 edits of ChERRANT's char-level `parallel_to_m2` with all cheapest alignments (spec §6.5)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from opencc import OpenCC

from steps.lawbench.metrics.proofread.align_kernel import fill_costs_compiled
from steps.lawbench.metrics.proofread.edits import finish_edits, group_path
from steps.lawbench.metrics.proofread.lexicon import CharLexicon
from steps.lawbench.metrics.proofread.paths import count_paths, enumerate_paths, followed_ops, grouped_paths

# An M2 edit as the comparer keys it: (source start, source end, correction without spaces).
EditKey = tuple[int, int, str]
NOOP_KEY: EditKey = (-1, -1, "-NONE-")
NO_ERROR_TARGET = "没有错误"
NOT_ANNOTATABLE_TARGET = "无法标注"
# What a target that could not be annotated in time is replaced by before the second pass (LawBench's rule).
TIMED_OUT_TARGET = "无"


@dataclass(frozen=True)
class SentenceEdits:
    """Edit keys of one M2 block with their categories, one entry per alternative alignment producing it.

    `timed_out` marks targets that the deterministic path-count rule replaced by `无`.
    """

    edits: dict[EditKey, list[str]]
    timed_out: bool = False


@cache
def _t2s() -> OpenCC:
    return OpenCC("t2s")


def to_simplified(text: str) -> str:
    """OpenCC `t2s`, applied to targets only (never to the source)."""
    return _t2s().convert(text)


def _category(op: str) -> str:
    return {"D": "R", "I": "M", "S": "S"}.get(op, "W")


def _annotate(source: str, target: str, lexicon: CharLexicon, max_paths: int | None):
    """Edit map of one (source, target) pair, or None if it has more than `max_paths` cheapest paths."""
    if target in (source, NO_ERROR_TARGET):
        return {NOOP_KEY: ["noop"]}
    if target == NOT_ANNOTATABLE_TARGET:
        return {NOOP_KEY: ["NA"]}
    table = fill_costs_compiled(source, target, lexicon)
    ops = followed_ops(table)
    if max_paths is not None and count_paths(ops) > max_paths:
        return None
    edits: dict[EditKey, list[str]] = {}
    seen: set[tuple] = set()
    grouped = (group_path(p) for p in enumerate_paths(ops)) if table.first_path_only else grouped_paths(ops)
    for units in grouped:
        edit_list = finish_edits(units, source, target)
        if edit_list in seen:
            continue
        seen.add(edit_list)
        for op, s0, s1, t0, t1 in edit_list:
            correction = "-NONE-" if op == "D" else target[t0:t1]
            edits.setdefault((s0, s1, correction), []).append(_category(op))
    return edits or {NOOP_KEY: ["noop"]}


def sentence_edits(source: str, target: str, lexicon: CharLexicon, max_paths: int | None) -> SentenceEdits:
    """All distinct edit lists of the cheapest alignments, written under one annotator as ChERRANT does.

    Whitespace is removed from both sentences and the target is converted to simplified Chinese. A target
    that is empty after that, or whose alignment has more than `max_paths` cheapest paths, is replaced by
    `无`: the official scorer does this for rows that fail or exceed its 10-second timeout, and the path
    count is the deterministic stand-in for that timeout.
    """
    source = "".join(source.split())
    target = to_simplified("".join(target.split()))
    if target:
        edits = _annotate(source, target, lexicon, max_paths)
        if edits is not None:
            return SentenceEdits(edits)
    return SentenceEdits(_annotate(source, TIMED_OUT_TARGET, lexicon, None), timed_out=True)
