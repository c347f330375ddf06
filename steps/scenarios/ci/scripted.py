"""Scripted policies for CI and CR: parties that answer from their briefs, and an oracle judge.

The oracle judge runs the whole procedure one action per turn with correct control sentences, then gives
the ground-truth judgment (本院认为 reasoning, rulings, cited law) and the end marker. Party policies answer
what they are asked from their profile: identity, recusal, rights, statements, one evidence item per
request, cross-examination, debate, mediation (refused), and the defendant's plea in the criminal court.
"""

from __future__ import annotations

from steps.llm import ScriptedRequest, register_policy
from steps.scenarios.ci.scenario import END, TO_DEFENDANT, TO_PLAINTIFF
from steps.scenarios.cr.scenario import TO_DEFENCE, TO_PROCURATOR
from steps.scenarios.cr.scenario import TO_DEFENDANT as TO_ACCUSED

P, D = TO_PLAINTIFF, TO_DEFENDANT
CIVIL_PROCEDURE = (
    "现在开庭。",
    P + "请核实你方当事人的身份信息。",
    D + "请核实你方当事人的身份信息。",
    P + "本庭由审判员一人独任审理，适用简易程序。",
    P + "依法告知你方享有的诉讼权利和应当履行的诉讼义务，是否清楚？",
    D + "依法告知你方享有的诉讼权利和应当履行的诉讼义务，是否清楚？",
    P + "你方是否申请审判人员回避？",
    D + "你方是否申请审判人员回避？",
    P + "是否清楚缺席审理的法律后果？",
    D + "是否清楚缺席审理的法律后果？",
    "下面进行法庭调查。",
    P + "请陈述诉讼请求和事实理由。",
    D + "请针对原告的诉讼请求进行答辩。",
    P + "请出示证据。",
    D + "请对原告的证据发表质证意见。",
    D + "请出示证据。",
    P + "请对被告的证据发表质证意见。",
    P + "对案件事实还有什么需要说明的？",
    D + "对案件事实还有什么需要说明的？",
    "下面进行法庭辩论。",
    P + "请围绕争议焦点发表辩论意见。",
    D + "请围绕争议焦点发表辩论意见。",
    P + "有无补充意见？",
    D + "有无补充意见？",
    P + "是否同意调解？",
    D + "是否同意调解？",
)
CRIMINAL_PROCEDURE = (
    "现在开庭。",
    TO_ACCUSED + "请核实你的身份信息。",
    TO_ACCUSED + "你以前是否受过刑事处罚？",
    TO_ACCUSED + "本庭依法适用普通程序公开审理本案。",
    TO_PROCURATOR + "请宣读起诉书，明确指控的罪名。",
    TO_ACCUSED + "依法告知你享有的诉讼权利，是否清楚？",
    TO_ACCUSED + "是否申请回避？",
    TO_ACCUSED + "你是否认罪认罚？",
    TO_ACCUSED + "请陈述案件经过。",
    TO_PROCURATOR + "请出示证据。",
    TO_DEFENCE + "请发表辩护意见。",
)


def _judgment(gt: dict) -> str:
    rulings = "\n".join(gt["rulings"])
    laws = "、".join(f"《{x['law']}》第{x['article']}条" for x in gt["laws"])
    reasoning = gt["reasoning"].removeprefix("本院认为").lstrip("，,：: ")
    basis = f"依照{laws}的规定，" if laws else ""
    return f"本院认为，{reasoning}\n{basis}判决如下：\n{rulings}\n{END}"


def oracle_judge(request: ScriptedRequest) -> str:
    procedure = CIVIL_PROCEDURE if request.scenario == "CI" else CRIMINAL_PROCEDURE
    step = request.metadata["own_turns"]
    return procedure[step] if step < len(procedure) else _judgment(request.metadata["ground_truth"])


def _next_evidence(request: ScriptedRequest, items: list[str]) -> str:
    shown = sum(
        "证据" in m["content"] and m["role"] == "assistant" and "出示" in m["content"] for m in request.messages
    )
    return f"出示证据：{items[shown]}" if shown < len(items) else "我方证据已经出示完毕。"


def party(request: ScriptedRequest) -> str:
    profile, asked = request.metadata["profile"], request.last_user
    rules = (
        (("身份",), lambda: profile.get("client_info") or profile.get("defendant_info") or "已确认"),
        (("回避",), lambda: "不申请回避。"),
        (("诉讼权利", "法律后果"), lambda: "清楚。"),
        (("刑事处罚", "前科"), lambda: "没有。"),
        (("认罪",), lambda: profile.get("plea", "没有意见。")),
        (("调解",), lambda: "拒绝调解。"),
        (
            ("出示证据", "举证"),
            lambda: _next_evidence(request, profile.get("evidences") or profile.get("evidence", [])),
        ),
        (("质证",), lambda: profile.get("refute", "没有意见。")),
        (("起诉书", "罪名"), lambda: profile.get("charges", "")),
        (("辩护",), lambda: profile.get("plea", "")),
        (
            ("诉讼请求", "事实理由"),
            lambda: f"{profile.get('facts_and_reasons', '')} 诉讼请求：" + "；".join(profile.get("claims", [])),
        ),
        (("答辩",), lambda: profile.get("claims", "")),
        (("经过",), lambda: profile.get("case_details", "")),
        (("辩论", "补充", "说明"), lambda: profile.get("other_statement") or profile.get("opinion") or "没有补充。"),
    )
    for cues, answer in rules:
        if any(c in asked for c in cues):
            text = answer()
            if text:
                return text if isinstance(text, str) else "；".join(text)
    return "好的。"


for _scenario in ("CI", "CR"):
    register_policy("oracle", _scenario, oracle_judge)
    register_policy("persona", _scenario, party)
