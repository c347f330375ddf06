"""`scripted/judge` for MILE's judge kinds: deterministic proxies on the paper's 1–10 scale.

Registered for the MILE scenario; any other judge kind falls through to the generic proxy judge. They order an
oracle above a null agent and exercise every code path; they do not measure legal quality, and every number
they produce is labelled proxy.
- `mile.section` (F&R, CLA, EVID) and `mile.professional` (PROF): 1 + 9 × character-bigram F1 with the reference;
- `mile.standard` (STA): 1 + 9 × the share of six format rules of the STA template the complaint keeps (title,
  plaintiff line, defendant numbering, the three labels in order, numbered claims, no markdown headings,
  bullets or bold labels);
- `mile.interaction`: INT from asking exactly one question (several at once or none score low, markup lower),
  PROF from legal terms used (referring the client elsewhere scores low), LOGI low for repeating an earlier
  question verbatim; an empty reply scores 1 on all three;
- `mile.consistency`: 1 + 9 × the share of non-empty client statements in the first person.
"""

from __future__ import annotations

import json
import re
from typing import Any

from steps.judges.scripted import overlap, proxy_judge
from steps.llm import ScriptedRequest, register_policy
from steps.mile.sections import CLAIMS, EVIDENCE, FACTS, normalise

LEGAL_TERMS = (
    "诉讼",
    "起诉",
    "原告",
    "被告",
    "证据",
    "法院",
    "法律",
    "民法典",
    "合同",
    "权利",
    "义务",
    "责任",
    "赔偿",
    "违约",
    "判决",
    "法定代表人",
    "利息",
    "诉讼请求",
)
REFERRALS = ("咨询专业律师", "咨询律师", "法律援助", "寻求专业", "找律师")
_QUESTION = re.compile(r"[？?]")
_MARKUP = re.compile(r"[*#]|\n")
# markdown in a document: a line opened by markup, or a heading or label in bold (not * inside a licence plate)
_MARKDOWN = re.compile(r"(?m)^\s*(?:[#>]|[*-]\s)|\*\*\s*(?:民事)?(?:起诉状|原告|被告|诉讼请求|事实和理由|证据)")


def _grade(share: float) -> int:
    return 1 + round(9 * max(0.0, min(1.0, share)))


def _answer(**grades: Any) -> str:
    return json.dumps({**grades, "解释": "代理评分（规则）"}, ensure_ascii=False)


def standard_rules(complaint: str) -> list[bool]:
    lines = [line.strip() for line in normalise(complaint).splitlines() if line.strip()]
    text = "\n".join(lines)
    defendants = [line for line in lines if re.match(r"^被告[一二三四五六七八九十]*[：:]", line)]
    numbered = all(re.match(r"^被告[一二三四五六七八九十]+[：:]", d) for d in defendants)
    positions = [text.find(label) for label in (CLAIMS, FACTS, EVIDENCE)]
    claims = text.split(CLAIMS, 1)[1].split(FACTS, 1)[0] if CLAIMS in text else ""
    return [
        bool(lines) and lines[0] in ("起诉状", "民事起诉状"),
        any(line.startswith(("原告：", "原告:")) for line in lines),
        bool(defendants) and (numbered if len(defendants) > 1 else defendants[0].startswith(("被告：", "被告:"))),
        all(p >= 0 for p in positions) and positions == sorted(positions),
        bool(re.search(r"(?m)^1[.．、]", claims)),
        bool(lines) and not _MARKDOWN.search(text),
    ]


def _interaction(meta: dict[str, Any]) -> str:
    response = meta["response"].replace("<询问结束>", "").strip()
    if not response:
        return _answer(互动性=1, 专业性=1, 逻辑性=1)
    questions = len(_QUESTION.findall(response))
    interactivity = 8 if questions == 1 else 6 if "<询问结束>" in meta["response"] else 4 if questions == 0 else 3
    if _MARKUP.search(response):
        interactivity = min(interactivity, 4)
    terms = sum(t in response for t in LEGAL_TERMS)
    professionalism = 3 if any(r in response for r in REFERRALS) else min(9, 5 + terms)
    earlier = [t["text"] for t in meta["history"] if t["speaker"] == "lawyer"]
    logic = 3 if response in earlier else 8
    return _answer(互动性=interactivity, 专业性=professionalism, 逻辑性=logic)


def mile_proxy(request: ScriptedRequest) -> str:
    meta = request.metadata
    kind = meta.get("judge_kind")
    if kind == "mile.section":
        return _answer(分数=_grade(overlap(meta["reference"], meta["candidate"])))
    if kind == "mile.professional":
        return _answer(专业性=_grade(overlap(meta["reference"], meta["complaint"])))
    if kind == "mile.standard":
        rules = standard_rules(meta["complaint"])
        return _answer(规范性=_grade(sum(rules) / len(rules)))
    if kind == "mile.interaction":
        return _interaction(meta)
    if kind == "mile.consistency":
        statements = meta["statements"]
        share = sum(bool(s.strip()) and "我" in s for s in statements) / len(statements) if statements else 0.0
        return _answer(分数=_grade(share))
    return proxy_judge(request)


register_policy("judge", "MILE", mile_proxy)
