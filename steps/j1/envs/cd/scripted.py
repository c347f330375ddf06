"""Scripted policies for CD and DD: a client answering from its profile, and an oracle lawyer.

The client answers the question asked from the matching profile field (identity, the other side, facts,
claims, evidence — one item per answer), and says it does not know anything else. The oracle lawyer asks one
question per template section, then writes the ground-truth document with the template's labels.
"""

from __future__ import annotations

from steps.j1.envs.cd.scenario import END
from steps.llm import ScriptedRequest, register_policy

_ASK = {
    "CD": [
        "请问您的姓名、性别、出生日期、民族和住址是什么？",
        "您要起诉的对方是谁？请说一下对方的基本情况。",
        "请您讲一讲事情的经过。",
        "您希望法院支持您哪些诉讼请求？",
        "您手上有哪些证据可以证明这些事实？",
    ],
    "DD": ["请问您的基本信息是什么？", "对于原告的起诉，您的答辩意见是什么？", "您有哪些证据支持您的答辩意见？"],
}
_TOPICS = (
    (("证据", "材料", "凭证"), "evidences"),
    (("请求", "诉求", "要求法院", "希望法院"), "claims"),
    (("答辩", "意见", "怎么看"), "defence"),
    (("对方", "被告是", "起诉的"), "defendant_info"),
    (("经过", "事实", "怎么回事", "情况"), "case_details"),
    (("姓名", "名字", "基本信息", "身份", "性别", "出生", "住址", "民族"), "basic_info"),
)


def client(request: ScriptedRequest) -> str:
    profile, question = request.metadata["profile"], request.last_user
    for cues, field in _TOPICS:
        if any(c in question for c in cues) and profile.get(field):
            value = profile[field]
            if isinstance(value, list):
                return "；".join(value) if value else "这个我手上没有。"
            return str(value)
    return "这个我不太清楚，记不清楚了。"


def party_line(p: dict) -> str:
    """A party's particulars as a complaint writes them (person: name, sex, birth date, ethnicity, address)."""
    if p.get("kind") == "entity":
        parts = [p["name"]] + [
            f"{label}{p[k]}"
            for k, label in (("address", "住所："), ("legal_representative", "法定代表人："))
            if p.get(k)
        ]
    else:
        parts = [p["name"]] + [
            f"{label}{p[k]}" if label else p[k]
            for k, label in (("gender", ""), ("birth_date", "出生日期："), ("ethnicity", ""), ("address", "住址："))
            if p.get(k)
        ]
    return "，".join(parts)


def _complaint(gt: dict) -> list[str]:
    lines = ["民事起诉状"] + [f"原告：{party_line(p)}" for p in gt["plaintiffs"]]
    lines += [f"被告：{party_line(p)}" for p in gt["defendants"]]
    lines += ["诉讼请求："] + [f"{i}. {c}" for i, c in enumerate(gt["claims"], 1)]
    return [*lines, "事实和理由：", gt["case_details"], "证据和证据来源，证人姓名和住所："]


def _defence(gt: dict, profile: dict) -> list[str]:
    court = profile.get("court") or "受诉人民法院"
    number = f"{profile['case_number']}" if profile.get("case_number") else ""
    cause = gt.get("cause") or "纠纷"
    return [
        "民事答辩状",
        f"答辩人：{party_line(gt['respondent'])}",
        f"对{court}受理的{number}{cause}一案的起诉，答辩如下：",
        gt["defence"],
        "证据和证据来源，证人姓名和住所：",
    ]


def oracle_lawyer(request: ScriptedRequest) -> str:
    """Asks one question per template section, then writes the case's own document with the template's labels."""
    scenario, gt = request.scenario, request.metadata["ground_truth"]
    asked = request.metadata["own_turns"]
    if asked < len(_ASK[scenario]):
        return _ASK[scenario][asked]
    lines = _complaint(gt) if scenario == "CD" else _defence(gt, request.metadata["profile"])
    lines += [f"{i}. {e}" for i, e in enumerate(gt["evidence"], 1)] or ["无"]
    return "\n".join(lines) + f"\n{END}"


for _scenario in ("CD", "DD"):
    register_policy("persona", _scenario, client)
    register_policy("oracle", _scenario, oracle_lawyer)
