"""Scripted policies for CI and CR: parties that answer from their briefs, and an oracle judge.

The oracle judge runs the whole procedure one action per turn, every turn after the opening with a correct
control sentence (spec j1-envs §5.7): it asks for evidence again while a party still has some (up to a bound
that keeps the trial within the paper's turn cap), then gives the court's own judgment (本院认为 reasoning,
rulings, cited provisions) and the end marker. Party policies answer what they are asked from their profile:
identity, recusal, rights, statements, one evidence item per request, cross-examination, debate, mediation
(refused, as J1's lawyers must), and the defendant's plea in the criminal court.
"""

from __future__ import annotations

from steps.j1.envs.ci.scenario import END, TO_DEFENDANT, TO_PLAINTIFF
from steps.j1.envs.common.oracle_judgment import judgment_text
from steps.j1.envs.cr.scenario import TO_DEFENCE, TO_PROCURATOR
from steps.j1.envs.cr.scenario import TO_DEFENDANT as TO_ACCUSED
from steps.llm import ScriptedRequest, register_policy

P, D = TO_PLAINTIFF, TO_DEFENDANT
MORE = "出示证据："  # how a party presents one item; the oracle asks again while items keep coming
CIVIL_PROCEDURE: tuple[tuple[str, int], ...] = (  # (utterance, how often it may be repeated for more evidence)
    ("现在开庭。", 0),
    (P + "请核实你方当事人的身份信息。", 0),
    (D + "请核实你方当事人的身份信息。", 0),
    (P + "本案由审判员一人独任审理。", 0),
    (D + "本案适用简易程序审理。", 0),
    (P + "依法告知你方享有的诉讼权利和应当履行的诉讼义务，是否清楚？", 0),
    (D + "依法告知你方享有的诉讼权利和应当履行的诉讼义务，是否清楚？", 0),
    (P + "你方是否申请审判人员回避？", 0),
    (D + "你方是否申请审判人员回避？", 0),
    (P + "是否清楚缺席审理的法律后果？", 0),
    (D + "是否清楚缺席审理的法律后果？", 0),
    (P + "下面进行法庭调查。请陈述诉讼请求和事实理由。", 0),
    (D + "请针对原告的诉讼请求进行答辩。", 0),
    (P + "请出示证据。", 6),
    (D + "请对原告的证据发表质证意见。", 0),
    (D + "请出示证据。", 6),
    (P + "请对被告的证据发表质证意见。", 0),
    (P + "本庭就案件事实向你方发问：请说明争议事实的具体经过。", 0),
    (D + "本庭就案件事实向你方发问：请说明争议事实的具体经过。", 0),
    (P + "下面进行法庭辩论。本案的争议焦点是原告的诉讼请求有无事实和法律依据，请围绕争议焦点发表辩论意见。", 0),
    (D + "请围绕争议焦点发表辩论意见。", 0),
    (P + "辩论结束，请作最后陈述。", 0),
    (D + "请作最后陈述。", 0),
    (P + "是否同意调解？", 0),
    (D + "是否同意调解？", 0),
    (P + "调解不成，本庭将依法作出判决，现在休庭。", 0),
)
CRIMINAL_PROCEDURE: tuple[tuple[str, int], ...] = (
    ("现在开庭。", 0),
    (TO_ACCUSED + "请核实你的身份信息。", 0),
    (TO_ACCUSED + "你以前是否受过刑事处罚？", 0),
    (TO_ACCUSED + "本庭依法适用普通程序公开审理本案。", 0),
    (TO_PROCURATOR + "请宣读起诉书，明确指控的罪名。", 0),
    (TO_ACCUSED + "依法告知你享有的诉讼权利，是否清楚？", 0),
    (TO_ACCUSED + "是否申请回避？", 0),
    (TO_ACCUSED + "你是否认罪认罚？", 0),
    (TO_ACCUSED + "下面进行法庭调查。请陈述案件经过。", 0),
    (TO_PROCURATOR + "请出示证据。", 8),
    (TO_DEFENCE + "请发表辩护意见。", 0),
)


def _next_step(request: ScriptedRequest, procedure: tuple[tuple[str, int], ...]) -> str | None:
    """The next utterance, from the judge's own past turns: a repeatable step is asked again while the reply
    to it presented an item and its bound allows; None once the procedure is done."""
    said = [m for m in request.messages if m["role"] == "assistant"]
    step = repeats = 0
    for i in range(len(said)):
        bound = procedure[step][1]
        if bound and repeats < bound and _answered_with_item(request, i + 1):
            repeats += 1
        else:
            step, repeats = step + 1, 0
        if step >= len(procedure):
            return None
    return procedure[step][0]


def _answered_with_item(request: ScriptedRequest, own_turns: int) -> bool:
    """Whether the party's reply after the judge's `own_turns`-th utterance presented an evidence item."""
    seen = 0
    for m in request.messages:
        if m["role"] == "assistant":
            seen += 1
        elif seen == own_turns and MORE in m["content"]:
            return True
    return False


def oracle_judge(request: ScriptedRequest) -> str:
    procedure = CIVIL_PROCEDURE if request.scenario == "CI" else CRIMINAL_PROCEDURE
    step = _next_step(request, procedure)
    if step is not None:
        return step
    return judgment_text(request.scenario, request.metadata["ground_truth"]) + f"\n{END}"


def _next_evidence(request: ScriptedRequest, items: list[str]) -> str:
    shown = sum(m["role"] == "assistant" and m["content"].startswith(MORE) for m in request.messages)
    return f"{MORE}{items[shown]}" if shown < len(items) else "我方证据已经出示完毕。"


def _evidence(profile: dict) -> list[str]:
    return profile.get("evidences") or profile.get("evidence") or []


def party(request: ScriptedRequest) -> str:
    profile, asked = request.metadata["profile"], request.last_user
    rules = (
        (("身份",), lambda: profile.get("client_info") or profile.get("defendant_info")),
        (("回避",), lambda: "不申请回避。"),
        (("诉讼权利", "法律后果"), lambda: "清楚。"),
        (("刑事处罚", "前科"), lambda: "这个我记不清了。"),
        (("认罪",), lambda: profile.get("plea")),
        (("调解",), lambda: "拒绝调解。"),
        (("出示证据", "举证"), lambda: _next_evidence(request, _evidence(profile))),
        (("质证",), lambda: profile.get("refute") or "对对方证据的真实性没有异议，但对其证明目的有异议。"),
        (("起诉书", "罪名"), lambda: f"公诉机关指控：{profile.get('facts')} 指控罪名：{profile.get('charges')}"),
        (("辩护",), lambda: profile.get("plea")),
        (("答辩",), lambda: profile.get("claims") if isinstance(profile.get("claims"), str) else None),
        (
            ("诉讼请求", "事实理由"),
            lambda: f"{profile.get('facts_and_reasons', '')} 诉讼请求：" + "；".join(profile.get("claims") or []),
        ),
        (("经过",), lambda: profile.get("case_details")),
        (
            ("辩论", "最后陈述", "说明"),
            lambda: profile.get("other_statement") or profile.get("opinion") or "坚持我方的意见，请法庭依法裁判。",
        ),
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
