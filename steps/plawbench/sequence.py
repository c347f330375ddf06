"""Whether a PCA reasoning rubric requires its steps in order (spec plawbench.md §2.1, §3.5, §6.12).

No field records it; the 分析过程 text says it: "按照第一步、第二步顺序推理才可得分" (order required),
"第一步和第二步顺序可以互换" (partly), "无论证顺序要求" (none), or only step labels (第一步…), which the paper
uses for sequential rubrics. Classes: sequential, partial, unspecified_steps, nonsequential, and
contradictory (both an order clause and a no-order clause, lines 235 and 246). The binary split used by the
report counts every class but nonsequential as sequential.
"""

from __future__ import annotations

import re

_ORDER = re.compile(
    r"顺序[^。；;\n]{0,20}(?:才可得分|方可得分|才能得分|才得分|不得分|不可调换|不能调换|不可颠倒)"
    r"|(?:不按|未按|调换)[^。；;\n]{0,6}顺序[^。；;\n]{0,10}不得分|(?<!无需)(?<!不需)按(?:照)?[^。；;\n]{0,30}顺序推理"
)
# some steps may swap: "第一步和第二步顺序可以互换", "第一步、第二步之间无顺序要求，顺序调换亦可得分"
_SWAP = re.compile(r"(?:可以|可)(?:互换|调换|交换)|顺序可以|步之间无(?:论证)?顺序要求|调换亦可得分")
_NO_ORDER = re.compile(r"无(?:论证)?顺序要求|不要求顺序|顺序不限|无需按照?顺序")
_STEPS = re.compile(r"第[一二三四五六七八九十]+步")
CLASSES = ("sequential", "partial", "unspecified_steps", "nonsequential", "contradictory")


def seq_class(reasoning_text: str) -> str:
    order, no_order = bool(_ORDER.search(reasoning_text)), bool(_NO_ORDER.search(reasoning_text))
    swap = bool(_SWAP.search(reasoning_text))
    if order and swap:
        return "partial"
    if order and no_order:
        return "contradictory"
    if order:
        return "sequential"
    if no_order:
        return "nonsequential"
    return "unspecified_steps" if _STEPS.search(reasoning_text) else "nonsequential"
