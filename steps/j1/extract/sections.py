"""Sections of a judgment body, found from how each paragraph opens.

Chinese judgments follow a fixed order (最高人民法院《法院刑事诉讼文书样式》, 《民事诉讼文书样式》): heading,
parties, the procedural paragraph, the indictment or the plaintiff's claims, the defence, the facts found
(经审理查明), the evidence, 本院认为, the verdict (判决如下), the appeal notice, the signatures and an optional
appendix of provisions. Each paragraph is labelled by its opening words; a paragraph with no recognised opening
continues the section before it (numbered evidence lists, multi-paragraph facts).
"""

from __future__ import annotations

import re
from dataclasses import fields

from steps.j1.extract.model import JudgmentParts, Sections

# Paragraph openings, checked in order; the first match labels the paragraph.
_PROSECUTOR = r"[^，。：:\s]{0,30}?(?:人民检察院|检察院|公诉机关|起诉书|自诉人)"
CRIMINAL_OPENINGS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern))
    for label, pattern in (
        (
            "appeal_notice",
            r"^(?:如不服(?:从)?本(?:判决|裁定)|本(?:判决|裁定)为终审|本(?:判决|裁定)(?:书)?(?:自宣告之日起)?发生法律效力)",
        ),
        (
            "signature",
            r"^(?:审\s*判\s*长|审\s*判\s*员|代理审判员|人民陪审员|陪审员|书\s*记\s*员|法官助理|本件与原本核对无异)",
        ),
        ("appendix", r"^附(?:件|录|注)?[：:\]］]?\s*(?:$|《|[^。]{0,30}(?:法律|条文|法条|法规|条款|规定))"),
        ("appendix", r"^(?:本案|本判决)?[^。，\s]{0,10}?(?:法律条文|法律条款|法条|法律规定|法律法规)[：:]?$"),
        ("reasoning", r"^(?:本院|二审|本庭|合议庭)(?:经审查|审查)?认为"),
        (
            "facts",
            r"^(?:经|本院|二审|经本院|本院经)?(?:依法|二审|一审)?(?:审理|审查|重新审理)?(?:查明|认定|确认)(?:的事实)?",
        ),
        ("facts", r"^另查明"),
        ("first_instance", r"^(?:原判|原审|一审|原审法院|原一审|原判决)(?:判决)?(?:认定|查明|经审理查明|认为|以)"),
        ("appeal_grounds", r"^[^，。：:\s]{0,30}?(?:上诉人|抗诉机关)[^。]{0,40}?(?:上诉|抗诉)(?:称|提出|理由|意见)"),
        ("indictment", rf"^{_PROSECUTOR}[^。]{{0,15}}?(?:指控|认为|建议|诉称)"),
        (
            "evidence",
            r"^(?:上述|以上|前述|认定上述|认定以上|证明上述|证实上述|对上述|针对上述)[^。]{0,20}?(?:事实|证据)",
        ),
        ("evidence", r"^(?:公诉机关|检察机关)?(?:当庭)?(?:提供|出示|提交|宣读)[^。]{0,20}?证据"),
        (
            "defence",
            r"^[^。]{0,40}?(?:辩称|辩解|辩护意见|辩护人提出|辩护人认为|无异议|供认不讳|自愿认罪|没有异议|均无异议|提出异议)",
        ),
    )
)

_RECORD = re.compile(r"提起公诉|审理终结|审理完毕|一案|向本院|本院受理|公开开庭|立案|提出上诉|起诉书")
_VERDICT_START = re.compile(r"(?:判决|裁定|决定)如下[：:]?|判决：(?=\s*[一被上原])")
_CLOSING = {"verdict": 0, "appeal_notice": 1, "signature": 2, "appendix": 3}  # the order after the verdict
_NOTICE_SPLIT = re.compile(r"(?=如不服(?:从)?本(?:判决|裁定)|本(?:判决|裁定)为终审(?:判决|裁定))")


def paragraphs(text: str) -> list[str]:
    """Paragraphs of a full text: the JuDGE texts keep paragraph breaks as spaces, C3RD as newlines."""
    text = re.sub(r"(?<=\d)\s+(?=\d*[年月日号])", "", text)  # a break inside a date (2018 年2月) is not a paragraph
    return [p for p in re.split(r"\s+", text) if p]


def label_paragraph(paragraph: str) -> str | None:
    """The section a paragraph opens, or None if it continues the previous one."""
    for label, pattern in CRIMINAL_OPENINGS:
        if pattern.search(paragraph):
            return label
    return None


def split_criminal_body(body: list[str]) -> Sections:
    """Sections of the paragraphs after the parties: the first is the procedural record.

    The verdict starts after the first 判决如下 / 裁定如下 that follows 本院认为 (an appeal quotes the original
    verdict earlier with 判决：), and runs until the appeal notice or the signatures.
    """
    text = " ".join(body)
    verdict_at = _verdict_start(text)
    before, after = (text[:verdict_at], text[verdict_at:]) if verdict_at is not None else (text, "")
    parts: dict[str, list[str]] = {}
    label = "record"
    for i, paragraph in enumerate(paragraphs(before)):
        label = "record" if i == 0 and is_record(paragraph) else label_paragraph(paragraph) or label
        parts.setdefault(label, []).append(paragraph)
    label = "verdict"
    for paragraph in paragraphs(_NOTICE_SPLIT.sub(" ", after)):
        opening = label_paragraph(paragraph)
        if opening is not None and _CLOSING.get(opening, -1) > _CLOSING[label]:
            label = opening
        parts.setdefault(label, []).append(paragraph)
    joined = {k: " ".join(v) for k, v in parts.items()}
    return Sections(**{f.name: joined.get(f.name) for f in fields(Sections)})


def _verdict_start(text: str) -> int | None:
    reasoning = re.search(r"(?:本院|二审|本庭)(?:经审查|审查)?认为", text)
    start = reasoning.start() if reasoning else 0
    match = _VERDICT_START.search(text, start)
    return match.end() if match else None


def is_record(paragraph: str) -> bool:
    """The procedural paragraph that ends the list of parties (…提起公诉 / …一案 / 本院受理…)."""
    return bool(_RECORD.search(paragraph))


# A judgment written as one text: headings a model may put around its parts ([Court Reasoning], 【判决结果】,
# **法律依据：**) and the markers that open each part.
_DECORATION = r"[\s#*【\[（(]*"
# a heading 【本院认为】 right before the paragraph that repeats it is skipped
_REASONING_START = re.compile(r"本院认为(?![】\]）)*#\s：:]*本院认为)")
_RULINGS_START = re.compile(
    rf"(?:判决|裁定|判)如下[：:]?|{_DECORATION}(?:判决结果|判决主文|判决内容|Court Judgment)[】\]）)*\s*[：:]?"
    r"|判决[：:](?=\s*[一1１被原驳])"
)
_LAWS_HEADING = re.compile(
    rf"{_DECORATION}(?:法律依据|引用法条|援引法条|适用法律|适用法条|所依据的法律(?:条文)?|相关法律条文|法律条文|引用法律"
    r"|Law)[】\]）)*\s*[：:]"
)
_CLOSING_MARKS = re.compile(r"<结束庭审>|如不服本(?:判决|裁定)|本(?:判决|裁定)为终审|审\s*判\s*长\s*[：:]?\s*\S{0,4}$")
_BASIS_CLAUSE = re.compile(r"(?:依照|依据|根据|按照)[^。；]*?第[^。；]*?条[^。；]*?(?:之规定|的规定|规定)")


def _cut(text: str, start: int, *stops: int | None) -> str | None:
    ends = [s for s in stops if s is not None and s > start]
    part = text[start : min(ends) if ends else len(text)].strip(" \n*#】]：:")
    return part or None


def judgment_parts(text: str) -> JudgmentParts:
    """Reasoning, rulings and cited-law parts of a judgment written as one text (spec j1-envs §9.3-19)."""
    reasoning_at = _REASONING_START.search(text)
    after = reasoning_at.start() if reasoning_at else 0
    rulings_at = _RULINGS_START.search(text, after)
    laws_at = _LAWS_HEADING.search(text, after)
    closing = _CLOSING_MARKS.search(text, rulings_at.end() if rulings_at else after)
    close_at = closing.start() if closing else None
    laws_start = laws_at.start() if laws_at else None
    reasoning = (
        _cut(text, reasoning_at.start(), rulings_at.start() if rulings_at else None, laws_start)
        if reasoning_at
        else None
    )
    rulings = _cut(text, rulings_at.end(), laws_start, close_at) if rulings_at else None
    if laws_at:
        after_laws = [m.start() for m in (_RULINGS_START.search(text, laws_at.end()),) if m]
        laws = _cut(text, laws_at.end(), close_at, *after_laws)
    else:
        clauses = _BASIS_CLAUSE.findall(reasoning or "")
        laws = clauses[-1] if clauses else None
    return JudgmentParts(text=text, reasoning=reasoning, rulings=rulings, laws=laws)


def strip_appeal_notice(text: str) -> str:
    """The text before the appeal notice (如不服本判决… / 本判决为终审判决), which no party argues about."""
    return _NOTICE_SPLIT.split(text, maxsplit=1)[0].strip()
