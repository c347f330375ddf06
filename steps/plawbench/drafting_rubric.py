"""T3 (LDG) rubrics: parts `一、…（N分）`, sub-items `1.1 …（N分）` / `（一）…（N分）` (nested `1.1.1`), and in
each sub-item 得分点 / 扣分点 / 不及格 blocks, tiers (优秀档, 完全充分（5分）…) and notes (评分依据), then the
统一扣分项 that apply to the whole document (spec plawbench.md §2.3).

The judge scores each leaf sub-item (or part without sub-items) as a unit, applying its 扣分点; each
不及格 condition is a check of its own that zeroes its unit (or its part when it says 本大题), and each
统一扣分项 is counted. The maximum is the record's `score` (spec §6.3); where the parts add up to something
else (plaintiff 5: 95 of 100) or the header disagrees, the disagreement is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from steps.plawbench.items import Parsed, ParseIssue, RubricRow, fmt_points
from steps.plawbench.marks import DEDUCT, NUMBER, REPEAT, TOTAL_LINE, deduction_clauses, stated_count

CATEGORY = "drafting"
_PART = re.compile(r"^([一二三四五六七八九十]+)\s*[、.．]\s*(.+)$")
_SUB = re.compile(r"^(?:(\d+(?:\.\d+)+)|[（(]([一二三四五六七八九十]+)[)）])\s*(.+)$")
_POINTS = re.compile(rf"[（(]\s*(?:占\s*)?{NUMBER}\s*分\s*[)）]")
_EARN = re.compile(rf"得\s*{NUMBER}\s*分(?!\s*[)）])")
_CAP = re.compile(rf"最高得\s*{NUMBER}\s*分")
_EXTRA = re.compile(rf"倒扣\s*{NUMBER}\s*分")
_MODES = {
    "得分点": "award",
    "优秀档": "award",
    "完全正确": "award",
    "完全充分": "award",
    "扣分点": "deduction",
    "合格档": "deduction",
    "不足档": "deduction",
    "不及格": "fail",
    "不合格": "fail",
    "部分充分": "level",
    "瑕疵列举": "level",
    "错误列举": "level",
    "评分依据": "note",
}
_MODE_HEAD = re.compile(rf"^({'|'.join(_MODES)})\s*(?:[（(][^)）]*[)）])?\s*[：:]?\s*(.*)$")
_MODE_TAIL = re.compile(rf"({'|'.join(k for k in _MODES if k.endswith('档'))})\s*[：:]\s*$")
_LABEL_ONLY = re.compile(r"^[^，。；;,]{1,10}[：:]\s*$")
_UNIFORM = "统一扣分项"
_CN = {c: i for i, c in enumerate("零一二三四五六七八九十")}


@dataclass
class _Node:
    rid: str
    title: str
    points: float | None
    note: str
    part: str  # the part's title (the rows' dimension)
    parent: str | None
    lines: list[str] = field(default_factory=list)  # body without fail lines, as the judge reads it
    awards: list[tuple[str, float | None]] = field(default_factory=list)
    deductions: list[tuple[str, float, int | None]] = field(default_factory=list)
    fails: list[str] = field(default_factory=list)
    levels: list[tuple[str, float | None]] = field(default_factory=list)
    children: list[str] = field(default_factory=list)


def _split_points(text: str) -> tuple[str, float | None, str]:
    """`诉讼主体（10分）注意：…` -> ('诉讼主体', 10.0, '注意：…')."""
    m = _POINTS.search(text)
    if not m:
        return text.strip(" ：:"), None, ""
    return text[: m.start()].strip(" ：:"), float(m.group(1)), text[m.end() :].strip(" ：:")


def parse_drafting(item_id: str, rubric: str, score: float) -> Parsed:
    out = Parsed(max_points=score)
    nodes: dict[str, _Node] = {}
    parts: list[str] = []
    penalties: list[list] = []  # [text, points, max_times]
    declared, part, unit, mode, uniform, label = None, None, None, "award", False, ""
    for raw in rubric.splitlines():
        line = raw.strip()
        if not line:
            continue
        if (total := TOTAL_LINE.search(line)) and part is None:
            declared = float(total.group(1))
            continue
        if m := _PART.match(line):
            title, points, note = _split_points(m.group(2))
            uniform = _UNIFORM in line
            if uniform:
                part = unit = None
                continue
            rid = f"P{_CN.get(m.group(1), len(parts) + 1)}"
            nodes[rid] = _Node(rid, title, points, note, title, None)
            parts.append(rid)
            part = unit = rid
            mode = "award"
            continue
        if uniform:
            _penalty_line(line, penalties, label_holder := [label])
            label = label_holder[0]
            continue
        if part is None:
            out.issues.append(_issue(item_id, "", "unparsed_line", f"outside any part: {line[:60]}", "ignored"))
            continue
        if (m := _SUB.match(line)) and _POINTS.search(line):
            number = m.group(1) or f"{part[1:]}.{_CN.get(m.group(2), 0)}"
            title, points, note = _split_points(m.group(3))
            parent = number.rsplit(".", 1)[0] if number.count(".") > 1 and number.rsplit(".", 1)[0] in nodes else part
            nodes[number] = _Node(number, title, points, note, nodes[part].title, parent)
            nodes[parent].children.append(number)
            unit, mode = number, "award"
            continue
        node = nodes[unit or part]
        if tail := _MODE_TAIL.search(line):  # `…的逻辑边界优秀档：` — a tier begins at the end of the line
            node.lines.append(line[: tail.start()])
            mode = _MODES[tail.group(1)]
            continue
        if head := _MODE_HEAD.match(line):
            mode = _MODES[head.group(1)]
            if mode == "level":
                node.levels.append((line, _first_points(line)))
            if mode != "fail":
                node.lines.append(line)
            rest = head.group(2).strip()
            if rest and mode in ("award", "deduction", "fail"):
                _content(node, mode, rest)
            continue
        if mode != "fail":
            node.lines.append(line)
        _content(node, mode, line)
    _emit(out, item_id, nodes, parts, penalties)
    _check_totals(out, item_id, nodes, parts, declared, score)
    return out


def _first_points(text: str) -> float | None:
    m = _POINTS.search(text)
    return float(m.group(1)) if m else None


def _content(node: _Node, mode: str, text: str) -> None:
    if mode == "award":
        node.awards.extend(_elements(text))
    elif mode == "deduction":
        for d in deduction_clauses(text):
            node.deductions.append((d.text, d.points, d.max_times))
        if (cap := _CAP.search(text)) and node.points is not None and not DEDUCT.search(text):
            node.deductions.append((text.strip(), node.points - float(cap.group(1)), 1))
    elif mode == "fail":
        node.fails.append(text)


def _elements(text: str) -> list[tuple[str, float | None]]:
    """Split an award line at each `（N分）` / `得 N 分`; a piece without points is kept without points."""
    out: list[tuple[str, float | None]] = []
    start = 0
    marks = sorted([*_POINTS.finditer(text), *_EARN.finditer(text)], key=lambda m: m.start())
    for m in marks:
        piece = text[start : m.start()].strip(" ，,；;。:：")
        if piece:  # an empty piece restates a total (`…（4分）。（10 分）`)
            out.append((piece, float(m.group(1))))
        start = m.end()
    rest = text[start:].strip(" ，,；;。:：")
    if len(rest) > 2:
        out.append((rest, None))
    return out


def _penalty_line(line: str, penalties: list[list], label: list[str]) -> None:
    if line.startswith("说明"):
        return
    if _LABEL_ONLY.match(line):
        label[0] = line
        return
    m = DEDUCT.search(line)
    if m is None:
        if penalties:
            penalties[-1][0] += "\n" + line
        return
    repeat = bool(REPEAT.search(line))
    times = stated_count(line) if repeat else 1
    penalties.append([f"{label[0]}{line}", float(m.group(1)), times])
    label[0] = ""


def _emit(out: Parsed, item_id: str, nodes: dict[str, _Node], parts: list[str], penalties: list[list]) -> None:
    rows = out.rows

    def add(**kw) -> None:
        rows.append(RubricRow(item_id=item_id, category=CATEGORY, order=len(rows), **kw))

    def walk(rid: str) -> None:
        n = nodes[rid]
        heading = n.title + (f"（{n.note}）" if n.note else "")
        if n.children:
            add(rubric_id=rid, parent_id=n.parent, kind="section", dimension=n.part, text=heading, points=n.points)
            for c in n.children:
                walk(c)
            return
        award_text = "\n".join(t for t, _ in n.awards) or heading
        add(
            rubric_id=rid,
            parent_id=n.parent,
            kind="award",
            dimension=n.part,
            text="\n".join([heading, *n.lines]).strip(),
            points=n.points,
            judged=True,
            award_text=award_text,
        )
        for k, (text, pts) in enumerate(n.awards, 1):
            add(rubric_id=f"{rid}-e{k}", parent_id=rid, kind="award", dimension=n.part, text=text, points=pts)
        for k, (text, pts) in enumerate(n.levels, 1):
            add(rubric_id=f"{rid}-l{k}", parent_id=rid, kind="level", dimension=n.part, text=text, points=pts)
        for k, (text, pts, times) in enumerate(n.deductions, 1):
            add(
                rubric_id=f"{rid}-d{k}",
                parent_id=rid,
                kind="deduction",
                dimension=n.part,
                text=text,
                points=pts,
                max_times=times,
            )
        for k, text in enumerate(n.fails, 1):
            extra = _EXTRA.search(text)
            target = n.parent if "本大题" in text and n.parent else rid
            add(
                rubric_id=f"{rid}-f{k}",
                parent_id=target,
                kind="fail",
                dimension=n.part,
                text=text,
                points=float(extra.group(1)) if extra else 0.0,
                judged=True,
            )
        if n.points is None:
            out.issues.append(
                _issue(item_id, rid, "no_points", f"no points for {n.title[:30]}", "the unit cannot be scored")
            )

    for rid in parts:
        walk(rid)
    for k, (text, pts, times) in enumerate(penalties, 1):
        add(
            rubric_id=f"U{k}",
            parent_id=None,
            kind="deduction",
            dimension=_UNIFORM,
            text=text,
            points=pts,
            max_times=times,
            judged=True,
        )


def _check_totals(
    out: Parsed, item_id: str, nodes: dict[str, _Node], parts: list[str], declared: float | None, score: float
) -> None:
    if declared is not None and declared != score:
        out.issues.append(
            _issue(
                item_id,
                "",
                "total_mismatch",
                f"总分 says {fmt_points(declared)}, score field {fmt_points(score)}",
                f"maximum = score {fmt_points(score)}",
            )
        )
    part_sum = sum(nodes[p].points or 0.0 for p in parts)
    if part_sum != score:
        out.issues.append(
            _issue(
                item_id,
                "",
                "sum_short" if part_sum < score else "sum_exceeds",
                f"parts add up to {fmt_points(part_sum)}, score field {fmt_points(score)}",
                f"maximum = score {fmt_points(score)} (the data wins)",
            )
        )
    for n in nodes.values():
        if n.children:
            got = sum(nodes[c].points or 0.0 for c in n.children)
            if n.points is not None and got != n.points:
                out.issues.append(
                    _issue(
                        item_id,
                        n.rid,
                        "sum_exceeds" if got > n.points else "sum_short",
                        f"sub-items add up to {fmt_points(got)} of {fmt_points(n.points)}",
                        f"the part is clamped to {fmt_points(n.points)}"
                        if got > n.points
                        else f"at most {fmt_points(got)} can be earned",
                    )
                )
            continue
        pointed = [p for _, p in n.awards if p is not None]
        if pointed and n.points is not None and sum(pointed) != n.points:
            unpointed = sum(p is None for _, p in n.awards)
            out.issues.append(
                _issue(
                    item_id,
                    n.rid,
                    "elements_sum",
                    f"得分点 give {fmt_points(sum(pointed))} of {fmt_points(n.points)}"
                    + (f" ({unpointed} without points)" if unpointed else ""),
                    "the judge scores the sub-item as a whole out of its stated points",
                )
            )


def _issue(item_id: str, rid: str, code: str, detail: str, effect: str) -> ParseIssue:
    return ParseIssue(item_id, CATEGORY, rid, code, detail, effect)
