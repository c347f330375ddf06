"""Scripted MILE environment (`scripted/persona`): a client that answers from its profile, and a rule supervisor.

Client: answers the topic of the lawyer's last question from its profile (own particulars, the defendants in
full, the facts, the substantive claims without costs, the costs only when asked, the evidence); it holds back
its `less` detail the first time the lawyer asks for it and gives it when asked again. Asked to revise, it
answers the question again following the supervisor's advice; asked to blur the facts, it retells the first
half of them hesitantly and leaves the rest out.

Supervisor: stage from the topic of the lawyer's question; for a client turn it flags, in order, an empty
reply, `less` given too early or still withheld when asked again, an own particular asked for but not given
correctly, a date that occurs nowhere in the archive, an incomplete defendant answer, and unasked litigation
costs; for a lawyer turn, an empty reply, several questions at once, and a withheld `less` not followed up.
Otherwise `**对话监督者**：回复无误`. The style checker accepts every non-empty reply.
"""

from __future__ import annotations

import re
from typing import Any

from steps.llm import ScriptedRequest, register_policy
from steps.mile.cues import STAGE_OF_TOPIC, asked_fields, asks_own, mentions, topic
from steps.mile.supervisor import STAGE_LABELS

ACCEPT = "**对话监督者**：回复无误"
STYLE_OK, STYLE_EMPTY = "匹配程度：匹配。建议：无", "匹配程度：不匹配。建议：请按人物设定回答律师的问题。"
_REVISION_HEAD = "对话监督者认为你刚才准备说的话需要修改。"
_DATE = re.compile(r"\d{4}年\d{1,2}月\d{1,2}日")
_SAY = {
    "姓名": "我叫{}。",
    "性别": "我是{}的。",
    "出生日期": "我是{}出生的。",
    "民族": "我是{}。",
    "地址": "我住在{}。",
    "公司名称": "我们公司叫{}。",
    "负责人或法定代表人": "我们的法定代表人是{}。",
}
_SAY_COMPANY_ADDRESS = "公司地址在{}。"


# ---------------------------------------------------------------------------- the client
def _defendant_line(record: dict[str, Any]) -> str:
    f = record["fields"]
    if record["kind"] == "company":
        parts = [
            f.get("公司名称", ""),
            f"地址在{f['地址']}" if f.get("地址") else "",
            f"法定代表人是{f['负责人或法定代表人']}" if f.get("负责人或法定代表人") else "",
        ]
    else:
        parts = [
            f.get("姓名", ""),
            f.get("性别", ""),
            f"{f['出生日期']}出生" if f.get("出生日期") else "",
            f.get("民族", ""),
            f"住在{f['地址']}" if f.get("地址") else "",
        ]
    return "，".join(p for p in parts if p)


def _lawyer_lines(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m.get("content") or "") for m in messages if m.get("role") == "user"]


def _own_answer(profile: dict[str, Any], question: str, asked_before: list[str], reveal: bool | None) -> str:
    kind, fields, less = profile["kind"], profile["plaintiff_fields"], profile["less"]
    said = []
    for field in asked_fields(question, kind):
        first_time = not any(asks_own(q, kind, field) for q in asked_before)
        withhold = (first_time if reveal is None else not reveal) and field == less
        if withhold:
            said.append(f"{field}嘛……我一下子想不起来了。")
        elif fields.get(field):
            template = _SAY_COMPANY_ADDRESS if (kind == "company" and field == "地址") else _SAY[field]
            said.append(template.format(fields[field]))
        else:  # the profile has no value (one MILE instance withholds an empty address)
            said.append(f"{field}我确实说不上来。")
    return "".join(said)


def answer(profile: dict[str, Any], question: str, asked_before: list[str], reveal: bool | None = None) -> str:
    """The honest answer to `question`; `reveal` forces (True) or forbids (False) giving `less`."""
    about = topic(question, profile["kind"])
    if about == "plaintiff":
        return _own_answer(profile, question, asked_before, reveal)
    if about == "defendant":
        return "被告的情况是这样的：" + "；".join(_defendant_line(r) for r in profile["defendant_records"]) + "。"
    if about == "costs":
        return profile["costs"]
    if about == "evidence":
        items = profile["evidence"]
        return "我手上有这些证据：" + "；".join(items) if items else "我手上没有什么证据。"
    if about == "claims":
        return profile["claim"]
    if about == "facts":
        return profile["facts"]
    return "这个我不太清楚。" if re.search(r"[？?]", question) else "好的，您问吧。"


def blurred(facts: str) -> str:
    sentences = [s for s in re.split(r"(?<=[。！？；])", facts) if s.strip()]
    kept = "".join(sentences[: (len(sentences) + 1) // 2])
    return f"这个……我记得不是特别清楚了，大概是这样的：{kept}后面的事我一时也说不太清楚了。"


def client(request: ScriptedRequest) -> str:
    profile, meta = request.metadata["profile"], request.metadata
    lines = _lawyer_lines(request.messages)
    question, asked_before = (lines[-1] if lines else ""), lines[:-1]
    if meta.get("purpose") == "revision":
        pending = meta.get("state", {}).get("pending", {})
        if pending.get("mode") == "blur":
            return blurred(profile["facts"])
        question = question.split(_REVISION_HEAD)[0].strip()
        advice = pending.get("advice", "")
        reveal = False if "先不要" in advice else True if "如实" in advice else None
        return answer(profile, question, asked_before, reveal)
    return answer(profile, question, asked_before)


# ---------------------------------------------------------------------------- the supervisor
def _question(history: list[dict[str, str]], reviewed: str) -> tuple[str, list[str]]:
    """The lawyer question the reviewed turn answers (or follows), and the lawyer's earlier questions."""
    lawyer = [i for i, t in enumerate(history) if t["speaker"] == "lawyer"]
    if reviewed == "lawyer":
        last_client = max((i for i, t in enumerate(history) if t["speaker"] == "client"), default=-1)
        lawyer = [i for i in lawyer if i < last_client]
    if not lawyer:
        return "", []
    return history[lawyer[-1]]["text"], [history[i]["text"] for i in lawyer[:-1]]


def _archive_text(profile: dict[str, Any]) -> str:
    return " ".join(str(v) for v in profile.values())


def _client_advice(profile: dict[str, Any], candidate: str, question: str, before: list[str]) -> str | None:
    kind, fields, less = profile["kind"], profile["plaintiff_fields"], profile["less"]
    about = topic(question, kind)
    if not candidate.strip():
        return "请正面回答律师的问题。"
    if about == "plaintiff":
        for field in asked_fields(question, kind):
            value = fields.get(field, "")
            first_time = not any(asks_own(q, kind, field) for q in before)
            if field == less and first_time and value and value in candidate:
                return f"律师是第一次问到{less}，这次先不要说出你的{less}。"
            if field == less and not first_time and value and value not in candidate:
                return f"律师已经再次问到{less}，请如实说出你的{less}。"
            if field != less and value and value not in candidate:
                return f"你的{field}是{value}，请按设定如实回答。"
    archive = _archive_text(profile)
    wrong = [d for d in _DATE.findall(candidate) if d not in archive]
    if wrong:
        return f"你说的日期“{wrong[0]}”与案件档案不符，请改正。"
    if about == "defendant":
        missing = [v for r in profile["defendant_records"] for v in r["fields"].values() if v and v not in candidate]
        if missing:
            return "请完整提供被告的信息，还缺少：" + "、".join(missing[:5]) + "。"
    if about != "costs" and "诉讼费" in candidate and "诉讼费" not in profile["claim"]:
        return "律师没有问诉讼费用，回答时不要主动提诉讼费用。"
    return None


def _lawyer_advice(profile: dict[str, Any], candidate: str, history: list[dict[str, str]]) -> str | None:
    kind, less, value = profile["kind"], profile["less"], profile["plaintiff_fields"].get(profile["less"], "")
    if not candidate.strip():
        return "请回应原告，并继续询问还没有了解的信息。"
    if len(re.findall(r"[？?]", candidate)) > 1:
        return "每次只问一个问题，其他问题留到下一轮再问。"
    question, _ = _question(history, "lawyer")
    last_client = next((t["text"] for t in reversed(history) if t["speaker"] == "client"), "")
    if asks_own(question, kind, less) and value and value not in last_client and not mentions(candidate, less):
        return f"原告还没有说出{less}，请追问。"
    return None


def supervisor(request: ScriptedRequest) -> str:
    meta = request.metadata
    profile, purpose, reviewed = meta["profile"], meta["purpose"], meta["reviewed"]
    history, candidate = meta["history"], meta["candidate"]
    question, before = _question(history, reviewed)
    if purpose == "stage":
        about = topic(question, profile["kind"])
        return STAGE_LABELS[STAGE_OF_TOPIC[about]] if about else "无法判断"
    if purpose == "style":
        return STYLE_OK if candidate.strip() else STYLE_EMPTY
    if reviewed == "client":
        advice = _client_advice(profile, candidate, question, before)
    else:
        advice = _lawyer_advice(profile, candidate, history)
    return f"**对话监督者**：{advice}" if advice else ACCEPT


def persona(request: ScriptedRequest) -> str:
    role = request.metadata.get("role")
    if role == "client":
        return client(request)
    if role == "supervisor":
        return supervisor(request)
    raise ValueError(f"scripted/persona plays no role '{role}' in MILE")


register_policy("persona", "MILE", persona)
