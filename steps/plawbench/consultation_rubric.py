"""T1 (PLC) rubrics: `k.(+X分) <a question the lawyer should ask>` lines under an optional `总分：N分`.

The maximum is the sum of the items (spec plawbench.md §6.3): the header is missing in ids 12–16 and the
`score` field is empty everywhere; where a header disagrees with the items (id 17: 12 vs 13) the items win
and the disagreement is reported. Items are numbered by their order (id 12 numbers three items "10.").
"""

from __future__ import annotations

import re

from steps.plawbench.items import Parsed, ParseIssue, RubricRow, fmt_points
from steps.plawbench.marks import NUMBER, TOTAL_LINE

CATEGORY = "consultation"
_ITEM = re.compile(rf"^\s*(\d+)\s*[.．、]?\s*[（(]\s*[+＋]\s*{NUMBER}\s*分\s*[)）]\s*(.*)$")


def parse_consultation(item_id: str, rubric: str) -> Parsed:
    out = Parsed()
    declared: float | None = None
    seen: dict[str, int] = {}
    for line in rubric.splitlines():
        if not line.strip():
            continue
        total = TOTAL_LINE.search(line)
        if total and not _ITEM.match(line):
            declared = float(total.group(1))
            continue
        m = _ITEM.match(line)
        if not m:
            out.issues.append(
                _issue(item_id, "", "unparsed_line", f"not an item: {line.strip()[:80]}", "left out of the rubric")
            )
            continue
        number, points, text = m.group(1), float(m.group(2)), m.group(3).strip()
        rid = f"Q{len(out.rows) + 1}"
        if number in seen:
            out.issues.append(
                _issue(
                    item_id,
                    rid,
                    "duplicate_number",
                    f"item number {number}. used again (first for Q{seen[number]})",
                    f"numbered {rid} by its position",
                )
            )
        seen.setdefault(number, len(out.rows) + 1)
        out.rows.append(
            RubricRow(
                item_id, CATEGORY, rid, None, len(out.rows), "award", "", text, points, judged=True, award_text=text
            )
        )
    out.max_points = sum(r.points or 0.0 for r in out.rows)
    if declared is None:
        out.issues.append(
            _issue(item_id, "", "no_total_line", "no 总分 line", f"maximum = item sum {fmt_points(out.max_points)}")
        )
    elif declared != out.max_points:
        out.issues.append(
            _issue(
                item_id,
                "",
                "total_mismatch",
                f"总分 says {fmt_points(declared)}, items add up to {fmt_points(out.max_points)}",
                f"maximum = item sum {fmt_points(out.max_points)} (the data wins)",
            )
        )
    if not out.rows:
        out.issues.append(_issue(item_id, "", "no_items", "no rubric item parsed", "task cannot be scored"))
    return out


def _issue(item_id: str, rid: str, code: str, detail: str, effect: str) -> ParseIssue:
    return ParseIssue(item_id, CATEGORY, rid, code, detail, effect)
