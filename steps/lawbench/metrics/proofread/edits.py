"""ChERRANT's merger at character granularity: one cheapest path -> a list of span edits (spec §6.4)."""

from __future__ import annotations

import string
from collections.abc import Sequence
from itertools import groupby

from steps.lawbench.metrics.proofread.align import Op

# The merger's own punctuation string (differs from the aligner's: includes `.`, lacks ﹏); it is tested
# with substring semantics (`text in MERGER_PUNCTUATION`), as in ChERRANT.
MERGER_PUNCTUATION = (
    string.punctuation
    + "！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》"
    + "「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟–—‘'‛“”„‟…‧."
)


def _span(ops: Sequence[Op], label: str) -> Op:
    return (label, ops[0][1], ops[-1][2], ops[0][3], ops[-1][4])


def _merge_run(run: list[Op]) -> list[Op]:
    """Collapse one run of M ops, or of mixed S/I/D ops, the way ChERRANT does at character level."""
    if len(run) <= 1:
        return run
    kinds = {op[0] for op in run}
    if kinds in ({"D"}, {"I"}, {"M"}, {"S"}):
        return [_span(run, kinds.pop())]
    if kinds == {"D", "I"}:
        return run
    return [_span(run, "S")]


def _within_one_edit(a: str, b: str) -> bool:
    """Levenshtein(a, b) <= 1."""
    if len(a) < len(b):
        a, b = b, a
    if len(a) - len(b) > 1:
        return False
    k = 0
    while k < len(b) and a[k] == b[k]:
        k += 1
    if len(a) == len(b):
        return a[k + 1 :] == b[k + 1 :]
    return a[k + 1 :] == b[k:]


def _is_move(edits: Sequence[Op], i: int, source: str, target: str) -> bool:
    """Whether edits i..i+2 (`S M S`, `D M I` or `I M D`) form one word-order edit."""
    first, middle, last = edits[i], edits[i + 1], edits[i + 2]
    kinds = first[0][0] + middle[0][0] + last[0][0]
    if kinds == "SMS":
        w1, w2 = source[first[1] : first[2]], target[first[3] : first[4]]
        w3, w4 = source[last[1] : last[2]], target[last[3] : last[4]]
        if min(len(w1), len(w2), len(w3), len(w4)) == 1:
            return w1 == w4 and w2 == w3
        return _within_one_edit(w1, w4) and _within_one_edit(w2, w3)
    if kinds not in ("DMI", "DTI", "IMD", "ITD"):
        return False
    deleted, inserted = (first, last) if kinds[0] == "D" else (last, first)
    a, b = source[deleted[1] : deleted[2]], target[inserted[3] : inserted[4]]
    if len(a) < len(b):
        a, b = b, a
    if a in MERGER_PUNCTUATION or b in MERGER_PUNCTUATION or len(a) - len(b) > 1:
        return False
    if len(b) == 1:
        return a == b
    return _within_one_edit(a, b) or (len(a) == len(b) and b in a + a)


def _trim_substitution(edit: Op, source: str, target: str) -> Op:
    """Shrink an S edit by the characters its two sides share at the start and at the end."""
    _, s0, s1, t0, t1 = edit
    tgt = target[t0:t1]
    prefix = 0
    while s0 + prefix < s1 and tgt.startswith(source[s0 : s0 + prefix + 1]):
        prefix += 1
    new_s0, new_t0 = s0 + prefix, t0 + prefix
    suffix = 0
    while new_s0 < s1 - suffix and tgt.endswith(source[s1 - suffix - 1 : s1]):
        suffix += 1
    new_s1, new_t1 = s1, t1
    # The suffix is only taken if the target span left after the prefix is long enough to hold it.
    if suffix and t1 - suffix >= new_t0:
        new_s1, new_t1 = s1 - suffix, t1 - suffix
    if (new_s0, new_s1) == (s0, s1):
        return edit
    if new_s0 == new_s1:
        return ("I", new_s0, new_s1, new_t0, new_t1)
    if new_t0 == new_t1:
        return ("D", new_s0, new_s1, new_t0, new_t1)
    return ("S", new_s0, new_s1, new_t0, new_t1)


def group_path(path: Sequence[Op]) -> list[Op]:
    """Step 1: collapse runs of M ops and runs of S/I/D ops; T ops stay as they are."""
    edits: list[Op] = []
    for key, group in groupby(path, lambda op: op[0][0] if op[0][0] in "MT" else ""):
        run = list(group)
        edits.extend(run if key == "T" else _merge_run(run))
    return edits


def merge_path(path: Sequence[Op], source: str, target: str) -> tuple[Op, ...]:
    """The edit list ChERRANT derives from one cheapest alignment path (steps 1-3 of spec §6.4)."""
    return finish_edits(group_path(path), source, target)


def finish_edits(edits: Sequence[Op], source: str, target: str) -> tuple[Op, ...]:
    """Steps 2-3: join word-order patterns into T spans, drop M spans and no-change edits, trim S edits."""
    merged: list[Op] = []
    i = 0
    while i < len(edits):
        if i < len(edits) - 2 and _is_move(edits, i, source, target):
            merged.append(_span(edits[i : i + 3], f"T{edits[i + 2][2] - edits[i][1]}"))
            i += 3
            continue
        if edits[i][0] != "M":
            merged.append(edits[i])
        i += 1
    out = []
    for edit in merged:
        if source[edit[1] : edit[2]] == target[edit[3] : edit[4]]:
            continue
        out.append(_trim_substitution(edit, source, target) if edit[0] == "S" else edit)
    return tuple(out)
