"""T2 (PCA) rubrics: four dimension blocks of free text with point markers, parsed into items.

Each block's maximum is the data's `points` (spec plawbench.md §2.1, §6.3). Inside a block every point
marker that begins a segment opens an item, and the text up to the next item belongs to it. A smaller marker
right after a bigger one is a sub-point of it while the sub-points fit (`（+10分）第一步 … (+2.5分) …`):
the step is the unit the judge scores, the sub-points are its rows. A marker on the block's header line
(`【案情简述得分】（25分）`) is the block's own total line, compared with `points` (the data wins).
Inline deductions (`（未提及X扣2分）`), no-deduction notes (`未分析不扣分`) and alternative statutes
(`可替代法条：…`) become rows of their item; the judge reads them in the item's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from steps.plawbench.items import Parsed, ParseIssue, RubricRow, fmt_points
from steps.plawbench.marks import Mark, deduction_clauses, find_marks, remove_marks, strip_deduction_notes

CATEGORY = "case_analysis"
CODES = {"conclusion": "C", "facts": "F", "reasoning": "R", "statute": "S"}
# the data's tags and the synonyms that appear in questions, prompts and judge answers (spec §2.1, §6.11)
_SYNONYMS = (
    ("conclusion", ("结论",)),
    ("facts", ("案情简述", "案件事实", "案情简介", "案情", "事实")),
    ("reasoning", ("分析过程", "推理过程", "分析", "推理")),
    ("statute", ("法条依据", "依据法条", "法条", "法律依据")),
)
_STEP = re.compile(r"第[一二三四五六七八九十]+步")
_ALTERNATIVE = re.compile(r"可替代法条|替代法条|替代条款|或者引用|或引用")
_HEADER = re.compile(r"【[^】]*】|[一二三四五六七八九十]+、|得分点?|[:：\s\[\]［］]")
_SENTENCE_END = tuple('。；;）)」”"')


def dimension_of(tag: str) -> str | None:
    """`案情简述得分` -> facts; None for a tag that names no known dimension."""
    name = tag.replace("得分", "").strip("【】 ")
    for dim, words in _SYNONYMS:
        if any(name == w or name.startswith(w) for w in words):
            return dim
    return None


@dataclass
class _Draft:
    points: float
    segments: list[str]  # original text, the opening marker included
    own_mark: Mark
    parent: int | None = None
    children: list[int] = field(default_factory=list)
    extra: list[float] = field(default_factory=list)


def parse_case_analysis(item_id: str, blocks: list[dict]) -> Parsed:
    """`blocks` are the task's `rubrics` as ingest keeps them: dicts with tag, criterion, points."""
    out = Parsed()
    for k, block in enumerate(blocks):
        dim = dimension_of(str(block["tag"]))
        code = CODES.get(dim or "", f"X{k}")
        if dim is None:
            out.issues.append(
                ParseIssue(
                    item_id, CATEGORY, code, "unknown_tag", f"tag {block['tag']!r}", "kept as its own dimension 'other'"
                )
            )
        _parse_block(out, item_id, code, dim or "other", str(block["criterion"]), float(block["points"]))
        out.max_points += float(block["points"])
    return out


def segments(text: str) -> list[tuple[str, list[Mark]]]:
    """Split a block into segments: lines, cut again where a second item begins within a line."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        marks = find_marks(line)
        starts = sorted(
            {m.start for m in marks} | ({s.start() for s in _STEP.finditer(line)} if len(marks) > 1 else set())
        )
        cuts, open_mark = [0], False
        for pos in starts:
            is_mark = any(m.start == pos for m in marks)
            if not is_mark:  # a step label: a new item starts here when a marker follows
                if any(m.start > pos for m in marks) and pos > cuts[-1]:
                    cuts.append(pos)
                    open_mark = False
                continue
            before = line[cuts[-1] : pos].rstrip()
            mark = next(m for m in marks if m.start == pos)
            after = line[mark.end :].strip(" 。.;；:：")
            if open_mark and after and before.endswith(_SENTENCE_END):
                cuts.append(pos)
            open_mark = True
        for a, b in zip(cuts, [*cuts[1:], len(line)], strict=True):
            piece = line[a:b]
            if piece.strip():
                out.append((piece.strip(), find_marks(piece.strip())))
    return out


def _is_header(text: str, mark: Mark) -> bool:
    """`【结论】（5分）`: a block's heading with its total (no plus sign: a `+N` always credits an item)."""
    if "+" in text[mark.start : mark.end] or "＋" in text[mark.start : mark.end]:
        return False
    return ("【" in text or "得分" in text) and len(_HEADER.sub("", remove_marks(text, [mark]))) <= 6


def marks_lead_lines(text: str) -> str:
    """Blocks whose first `+N` ends the heading line put each marker at the end of the line BEFORE its item
    (`【案情简述得分】30分 （+5分）\n关键事实1：… （+5分）\n关键事实2：…`): move each such marker to the
    start of the next line."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if find_marks(line)), None)
    if first is None:
        return text
    line, mark = lines[first], find_marks(lines[first])[0]
    head, tail, sign = line[: mark.start], line[mark.end :], line[mark.start : mark.end].replace("＋", "+")
    if not (("【" in head or "得分" in head) and not tail.strip() and "+" in sign):
        return text
    out, carry = [], ""
    for line in lines:
        marks = find_marks(line)
        last = marks[-1] if marks else None
        moved = last if last is not None and not line[last.end :].strip() else None  # a mark ending the line
        body = line[: moved.start].rstrip() if moved else line
        out.append(f"{carry}{body}" if body.strip() or not carry else carry)
        carry = line[moved.start : moved.end] if moved else ""
    return "\n".join(out + ([carry] if carry else []))


def _parse_block(out: Parsed, item_id: str, code: str, dim: str, text: str, points: float) -> None:
    preamble: list[str] = []
    drafts: list[_Draft] = []
    open_parent: int | None = None
    for seg, marks in segments(marks_lead_lines(text)):
        if not marks:
            (drafts[-1].segments if drafts else preamble).append(seg)
            continue
        first = marks[0]
        if not drafts and _is_header(seg, first):
            preamble.append(seg)
            if first.points != points:
                out.issues.append(
                    _issue(
                        item_id,
                        code,
                        "total_mismatch",
                        f"block total line says {fmt_points(first.points)}, points field {fmt_points(points)}",
                        f"maximum = {fmt_points(points)} (the data wins)",
                    )
                )
            continue
        draft = _Draft(first.points, [seg], first, extra=[m.points for m in marks[1:]])
        if open_parent is not None:
            parent = drafts[open_parent]
            used = sum(drafts[c].points for c in parent.children)
            if first.points < parent.points and used + first.points <= parent.points:
                draft.parent = open_parent
                parent.children.append(len(drafts))
            if draft.parent is None or used + first.points >= parent.points:
                open_parent = None
        drafts.append(draft)
        if draft.parent is None:
            open_parent = len(drafts) - 1
    _emit(out, item_id, code, dim, points, preamble, drafts)


def _emit(
    out: Parsed, item_id: str, code: str, dim: str, points: float, preamble: list[str], drafts: list[_Draft]
) -> None:
    rows = out.rows
    section_text = "\n".join(preamble) if drafts else ""
    rows.append(RubricRow(item_id, CATEGORY, code, None, len(rows), "section", dim, section_text, points))
    _notes(out, item_id, code, dim, section_text)
    if not drafts:
        body = "\n".join(preamble)
        rid = f"{code}1"
        rows.append(
            RubricRow(
                item_id,
                CATEGORY,
                rid,
                code,
                len(rows),
                "award",
                dim,
                body,
                points,
                judged=True,
                award_text=strip_deduction_notes(body),
            )
        )
        out.issues.append(
            _issue(
                item_id,
                code,
                "no_markers",
                "no point marker in the block",
                f"scored as one item worth the block's {fmt_points(points)}",
            )
        )
        return
    top = [i for i, d in enumerate(drafts) if d.parent is None]
    for n, i in enumerate(top, 1):
        d, rid = drafts[i], f"{code}{n}"
        own = remove_marks(d.segments[0], [d.own_mark]).strip(" ：:，,。")
        body = "\n".join([own, *d.segments[1:], *("\n".join(drafts[c].segments) for c in d.children)]).strip()
        if not body:
            out.issues.append(
                _issue(
                    item_id,
                    rid,
                    "marker_without_text",
                    "a marker with no text",
                    "the judge sees the item's points only",
                )
            )
        rows.append(
            RubricRow(
                item_id,
                CATEGORY,
                rid,
                code,
                len(rows),
                "award",
                dim,
                body,
                d.points,
                judged=True,
                award_text=remove_marks_all(strip_deduction_notes(body)),
            )
        )
        if d.extra:
            out.issues.append(
                _issue(
                    item_id,
                    rid,
                    "extra_marker",
                    f"further marker(s) {', '.join(fmt_points(x) for x in d.extra)} inside the item",
                    f"scored as one item worth {fmt_points(d.points)}",
                )
            )
        for m, c in enumerate(d.children, 1):
            sub = remove_marks_all("\n".join(drafts[c].segments))
            rows.append(RubricRow(item_id, CATEGORY, f"{rid}.{m}", rid, len(rows), "award", dim, sub, drafts[c].points))
        if d.children:
            got = sum(drafts[c].points for c in d.children)
            if got != d.points:
                out.issues.append(
                    _issue(
                        item_id,
                        rid,
                        "nested_sum",
                        f"sub-points add up to {fmt_points(got)} of {fmt_points(d.points)}",
                        "the judge scores the whole step, sub-points are its guidance",
                    )
                )
        _notes(out, item_id, rid, dim, body)
    total = sum(drafts[i].points for i in top)
    if total != points:
        code_ = "sum_exceeds" if total > points else "sum_short"
        effect = (
            f"the dimension is clamped to {fmt_points(points)}"
            if total > points
            else f"at most {fmt_points(total)} of {fmt_points(points)} can be earned"
        )
        out.issues.append(
            _issue(
                item_id, code, code_, f"items add up to {fmt_points(total)}, points field {fmt_points(points)}", effect
            )
        )


def remove_marks_all(text: str) -> str:
    return "\n".join(remove_marks(line, find_marks(line)).strip() for line in text.splitlines()).strip()


def _notes(out: Parsed, item_id: str, parent: str, dim: str, text: str) -> None:
    """Deduction, no-deduction and alternative-statute rows of one item (or of a block's preamble)."""
    rows = out.rows
    for k, ded in enumerate(deduction_clauses(text), 1):
        rows.append(
            RubricRow(
                item_id,
                CATEGORY,
                f"{parent}-d{k}",
                parent,
                len(rows),
                "deduction",
                dim,
                ded.text,
                ded.points,
                max_times=ded.max_times,
            )
        )
    optional = [c.strip() for c in re.split(r"[；;。\n]", text) if "不扣分" in c]
    for k, clause in enumerate(optional, 1):
        rows.append(
            RubricRow(
                item_id,
                CATEGORY,
                f"{parent}-o{k}",
                parent,
                len(rows),
                "optional",
                dim,
                clause.strip(" （()）"),
                None,
                max_times=None,
            )
        )
    alternatives = [ln.strip() for ln in text.splitlines() if _ALTERNATIVE.search(ln)]
    for k, line in enumerate(alternatives, 1):
        rows.append(
            RubricRow(
                item_id, CATEGORY, f"{parent}-a{k}", parent, len(rows), "alternative", dim, line, None, max_times=None
            )
        )


def _issue(item_id: str, rid: str, code: str, detail: str, effect: str) -> ParseIssue:
    return ParseIssue(item_id, CATEGORY, rid, code, detail, effect)
