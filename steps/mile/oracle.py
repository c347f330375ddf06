"""`scripted/oracle` as the MILE lawyer: asks for every template field, then writes the reference complaint.

It asks one question per turn, in the agenda's order: the plaintiff's particulars one by one (and the withheld
`less` detail a second time, right after the client holds it back), the defendants, the facts, the claims,
the litigation costs, the evidence; then it ends with `<询问结束>`. Its complaint is the ground truth written
in the STA template's format (被告 without a numeral when there is one defendant, 被告一、被告二… otherwise):
it bounds CLI, DEF and STA from above. It reads the ground truth from the call metadata, which real models
never see.
"""

from __future__ import annotations

from typing import Any

from steps.llm import ScriptedRequest, register_policy

END = "<询问结束>"
_NUMERALS = "一二三四五六七八九十"
ASK = {
    "姓名": "请问您的姓名是什么？",
    "性别": "请问您的性别是？",
    "出生日期": "请问您的出生日期是哪一天？",
    "民族": "请问您是什么民族？",
    "地址": "请问您现在的住址在哪里？",
    "公司名称": "请问贵公司的全称是什么？",
    "负责人或法定代表人": "请问贵公司的法定代表人是哪一位？",
}
ASK_COMPANY_ADDRESS = "请问贵公司的地址在哪里？"
AGENDA = (
    "接下来请您告诉我被告的基本信息：被告是个人的，请说姓名、性别、出生日期、民族和住址；是公司的，请说公司名称、地址和法定代表人。",
    "请您按时间顺序讲一讲事情发生的经过好吗？",
    "您希望通过这次诉讼达到什么目的，向法院提出哪些请求？",
    "本案的诉讼费用，您是否要求由被告承担？",
    "您手上有哪些证据可以证明这些事实？",
)
CLOSING = "好的，写起诉状需要的信息都已经了解清楚了，我这就为您起草起诉状。" + END
PERSON = ("姓名", "性别", "出生日期", "民族", "地址")
COMPANY = ("公司名称", "地址", "负责人或法定代表人")


def plan(truth: dict[str, Any]) -> list[str]:
    """The oracle's questions in order (the closing line not included)."""
    questions = []
    for field in COMPANY if truth["kind"] == "company" else PERSON:
        ask = ASK_COMPANY_ADDRESS if (truth["kind"] == "company" and field == "地址") else ASK[field]
        questions.append(ask)
        if field == truth["less"]:
            questions.append(f"刚才您没有说到{field}，起诉状里必须写明这一项，请您再想一想，告诉我{field}好吗？")
    return questions + list(AGENDA)


def _particulars(kind: str, f: dict[str, str]) -> str:
    if kind == "company":
        parts = [
            f.get("公司名称", ""),
            f"地址：{f['地址']}" if f.get("地址") else "",
            f"负责人或法定代表人：{f['负责人或法定代表人']}" if f.get("负责人或法定代表人") else "",
        ]
    else:
        parts = [
            f.get("姓名", ""),
            f.get("性别", ""),
            f"{f['出生日期']}生" if f.get("出生日期") else "",
            f.get("民族", ""),
            f"地址：{f['地址']}" if f.get("地址") else "",
        ]
    return "，".join(p for p in parts if p) + "。"


def reference_complaint(truth: dict[str, Any]) -> str:
    """The ground truth as a complaint in the STA template's format."""
    lines = ["起诉状", "", "原告：" + _particulars(truth["kind"], truth["plaintiff_fields"])]
    defendants = truth["defendant_records"]
    for i, d in enumerate(defendants):
        label = "被告" if len(defendants) == 1 else f"被告{_numeral(i + 1)}"
        lines.append(f"{label}：" + _particulars(d["kind"], d["fields"]))
    lines += ["诉讼请求：", f"1. {truth['claim']}", f"2. {truth['costs']}", "事实和理由：", truth["facts"]]
    lines.append("证据和证据来源，证人姓名和住所：")
    evidence = [" ".join(e.split()) for e in truth["evidence"]]
    lines += [f"{i}. {e}" for i, e in enumerate(evidence, 1)] or ["无"]
    return "\n".join(lines)


def _numeral(n: int) -> str:
    if n <= 10:
        return _NUMERALS[n - 1]
    return ("" if n < 20 else _NUMERALS[n // 10 - 1]) + "十" + (_NUMERALS[n % 10 - 1] if n % 10 else "")


def oracle_lawyer(request: ScriptedRequest) -> str:
    meta = request.metadata
    truth = meta["ground_truth"]
    if meta.get("purpose") == "deliverable":
        return reference_complaint(truth)
    questions = plan(truth)
    index = meta["own_turns"] - 1  # its first turn is the fixed greeting
    return questions[index] if 0 <= index < len(questions) else CLOSING


register_policy("oracle", "MILE", oracle_lawyer)
