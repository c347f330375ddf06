"""The complaint and defence templates the drafting lawyer is given (spec j1-envs §5.5, our wording).

Their section labels are protocol tokens: II-1 checks them verbatim and in order.
"""

COMPLAINT_TEMPLATE = """民事起诉状

原告：姓名，性别，XXXX年XX月XX日生，X族，住……（原告是法人或其他组织的，写明名称、住所，以及法定代表人或主要负责人的姓名、职务）
被告：（写法同原告；有多个被告的，逐一列明）
诉讼请求：
1. ……
2. ……
事实和理由：
……
证据和证据来源，证人姓名和住所：
1. ……

此致
XXXX人民法院

具状人：XXX
XXXX年XX月XX日"""

DEFENCE_TEMPLATE = """民事答辩状

答辩人：姓名，性别，XXXX年XX月XX日生，X族，住……（答辩人是法人或其他组织的，写明名称、住所，以及法定代表人或主要负责人的姓名、职务）
对XXXX人民法院（XXXX）……民初……号……（写明当事人和案由）一案的起诉，答辩如下：
……（写明答辩意见）
证据和证据来源，证人姓名和住所：
1. ……

此致
XXXX人民法院

答辩人：XXX
XXXX年XX月XX日"""

COMPLAINT_LABELS = ("原告：", "被告：", "诉讼请求：", "事实和理由：", "证据和证据来源，证人姓名和住所：")


def render_complaint(
    plaintiffs: list[str], defendants: list[str], claims: list[str], facts: str, evidence: list[str]
) -> str:
    """The plaintiff's complaint as the DD lawyer receives it, in the template's layout, from the case's own
    parts (the party lines as the judgment states them; the evidence section only when the case lists any)."""
    lines = ["民事起诉状", ""]
    lines += [f"原告：{p}" for p in plaintiffs] + [f"被告：{d}" for d in defendants]
    lines += ["诉讼请求："] + [f"{i}. {c}" for i, c in enumerate(claims, 1)]
    lines += ["事实和理由：", facts]
    if evidence:
        lines += [COMPLAINT_LABELS[-1]] + [f"{i}. {e}" for i, e in enumerate(evidence, 1)]
    return "\n".join(lines)
