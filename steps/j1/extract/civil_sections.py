"""Sub-sections of the sectioned civil cases (C3RD): claims, statement, defence, facts, evidence; rulings,
costs and notices.

C3RD keeps a judgment's body as `accusation` (诉讼请求 … 辩称 … 经审理查明 …), `reason` (本院认为 … 判决如下)
and `result` (the items, the costs and the appeal notice), with the original line breaks. Lines are labelled by
their opening like the criminal paragraphs (`sections.py`); a line without a recognised opening continues the one
before. The 民事诉讼文书样式 (2016) puts 事实和理由 after the claims in the same line, so that line is split.
"""

from __future__ import annotations

import re

_PARTY = r"[^。；：:\n]{0,40}?"
_ENUM = r"(?:[一二三四五六七八九十]+、|[（(][一二三四五六七八九十]+[）)])?"
ACCUSATION_OPENINGS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern))
    for label, pattern in (
        (
            "defence",
            rf"^{_ENUM}{_PARTY}(?:辩称|答辩称|答辩意见|未(?:作|做|提交|提供|发表|进行|提出)?(?:书面)?答辩|没有提出答辩|"
            r"未到庭|未出庭|经本院(?:合法)?传(?:唤|票传唤))",
        ),
        (
            "evidence",
            r"^(?:上述|以上|前述)(?:事实|证据)|围绕诉讼请求|^[^。]{0,40}?为(?:支持|证明|证实)|^[^。]{0,40}?质证",
        ),
        ("evidence", r"^[^。]{0,30}?(?:提交|提供|举示|出示)了?(?:以下|如下|下列)?证据"),
        ("facts", rf"^{_ENUM}(?:本院|本案)?(?:经)?(?:本院)?(?:依法)?(?:审理|审查)?[，,]?(?:本院)?(?:查明|认定|确认)"),
        ("facts", r"^根据[^。]{0,40}?本院(?:认定|确认|查明)"),
        ("facts", r"^(?:另查明|再查明|又查明|案件事实|本院所确认|经审理)"),
        ("claims", rf"^{_ENUM}{_PARTY}(?<!围绕)诉讼请求[：:，,为]?|^{_PARTY}(?:向本院)?(?:起诉|诉请|请求)[：:]"),
        ("plaintiff_statement", rf"^{_ENUM}{_PARTY}(?:诉称|起诉称|诉请称)"),
        ("plaintiff_statement", rf"^{_ENUM}事实(?:与|和|及)理由"),
    )
)
_STATEMENT_SPLIT = re.compile(r"(?:事实(?:与|和|及)理由|事实、理由)[：:，,]?")
_EMBEDDED_CLAIMS = re.compile(
    r"(?:请求|诉请|要求)(?:人民法院|法院|本院)?(?:依法)?(?:判(?:令|决)[：:]?|[：:](?=\s*[1１一(（]))"
)
_EVIDENCE_SPLIT = re.compile(r"(?=(?:以上|上述)(?:事实|查明的事实)[，,]?(?:有|由|系)|认定上述事实的证据)")


def _label(line: str) -> str | None:
    for label, pattern in ACCUSATION_OPENINGS:
        if pattern.search(line):
            return label
    return None


def split_accusation(text: str) -> dict[str, str]:
    """claims, plaintiff_statement, defence, facts and evidence of a C3RD `accusation` field."""
    parts: dict[str, list[str]] = {}
    label = "plaintiff_statement"
    for raw in (x.strip() for x in text.splitlines()):
        if not raw:
            continue
        for line in (x for x in _EVIDENCE_SPLIT.split(raw) if x):
            label = _label(line) or label
            if label == "claims" and (m := _STATEMENT_SPLIT.search(line)):
                parts.setdefault("claims", []).append(line[: m.start()].rstrip("。；，, "))
                parts.setdefault("plaintiff_statement", []).append(line[m.end() :])
                label = "plaintiff_statement"
                continue
            parts.setdefault(label, []).append(line)
    joined = {k: "\n".join(v) for k, v in parts.items()}
    statement = joined.get("plaintiff_statement", "")
    if "claims" not in joined and (m := _EMBEDDED_CLAIMS.search(statement)):
        joined["claims"] = statement[m.end() :].strip()
    return joined


_NOTICE = re.compile(r"^(?:如不服|本(?:判决|裁定)为终审|本裁定一经作出|当事人上诉的|本(?:判决|裁定)(?:书)?送达后)")
_LATE_PAYMENT = re.compile(r"^(?:如果|如|若)[^。]{0,10}?未按[^。]{0,20}?(?:期间|期限)履行")
_COSTS = re.compile(r"(?:受理费|诉讼费|公告费|保全费|鉴定费)[^。]*?(?:负担|承担|交纳|收取|缴纳|免收|免交)")


def split_result(text: str) -> dict[str, str]:
    """verdict (the rulings and the late-payment notice), costs and appeal_notice of a C3RD `result` field."""
    parts: dict[str, list[str]] = {}
    label = "verdict"
    for line in (x.strip() for x in text.splitlines()):
        if not line:
            continue
        if _NOTICE.search(line):
            label = "appeal_notice"
        elif _COSTS.search(line) and not re.match(r"^[一二三四五六七八九十]+、", line):
            label = "costs"
        elif label != "appeal_notice" and (_LATE_PAYMENT.search(line) or label == "verdict"):
            label = "verdict"
        parts.setdefault(label, []).append(line)
    return {k: "\n".join(v) for k, v in parts.items()}


def rulings(verdict: str) -> list[str]:
    """The judgment items: numbered (一、…二、…) or one per line; the late-payment notice is not a ruling."""
    lines = [x.strip() for x in verdict.splitlines() if x.strip() and not _LATE_PAYMENT.search(x.strip())]
    text = "\n".join(lines)
    if re.search(r"(?:^|\n|；)[一二三四五六七八九十]+、", text):
        items = re.split(r"(?:^|\n|(?<=；))\s*[一二三四五六七八九十]+、", text)
        return [i.strip().rstrip("；;。") for i in items if i.strip()]
    return [line.rstrip("；;。") for line in lines]
