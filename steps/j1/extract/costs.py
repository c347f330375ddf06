"""Litigation costs (案件受理费…由…负担) under the 《诉讼费用交纳办法》.

The sentence states the assessed fee, an optional reduction (减半收取 for summary procedure), other fees
(公告费, 保全费, 鉴定费) and who bears them, with or without amounts: 由被告负担 / 由原告负担640元，被告负担1200元
/ 由原、被告各负担一半. A single payer without an amount bears everything that was collected; a fee that is
waived or refunded (免收, 退还) has no payer.
"""

from __future__ import annotations

import re

from steps.j1.extract.model import Costs, CostShare, Issue, IssueKind
from steps.j1.extract.numerals import NUMBER, to_yuan

_AMOUNT = rf"(?:人民币)?\s*(?P<n>{NUMBER})\s*元"
# 案件受理费1180元 / 受理费收取56元 / 案件受理费减半收取25元 (only the halved amount is stated)
_FEE = re.compile(rf"(?:受理费|诉讼费)(?:用)?(?P<mid>[^\d，,。；;]{{0,14}}?){_AMOUNT}")
_REDUCED = re.compile(rf"(?:减半收取|减半交纳|减半计收|减半缴纳|减半)(?:计|为)?{_AMOUNT}")
_OTHER = re.compile(rf"(?P<kind>公告费|保全费|鉴定费|评估费|诉讼保全费|财产保全费|邮寄费|执行费)(?:用)?{_AMOUNT}")
_PAYER = re.compile(
    r"(?P<party>[^，,。；;：:由]{1,40}?)(?:共同|各自|各|自行|分别)?(?:负担|承担|交纳|缴纳)(?!连带)"
    rf"(?:{_AMOUNT})?"
)
_PARTY_WORD = re.compile(r"原告|被告|第三人|申请人|被申请人|上诉人|双方|各方|一方|公司|[\u4e00-\u9fa5]{2,4}$")
_WAIVED = re.compile(r"免收|免交|免予收取|不予收取|退还|免于收取")


def parse_costs(text: str) -> tuple[Costs | None, list[Issue]]:
    """The cost allocation stated in `text`, or None with an issue when no fee is stated."""
    plain = re.sub(r"[（(][^（）()]*[）)]", "", text)  # (原告已预交) and (投资人：…) are not payers
    fee = _FEE.search(plain)
    if not fee:
        return None, [Issue("costs", IssueKind.UNPARSED, f"no 受理费 amount in: {text[:40]}")]
    issues: list[Issue] = []
    amount = to_yuan(fee["n"] + "元")
    if "减半" in fee["mid"]:
        fee_yuan, collected = None, amount
        issues.append(Issue("costs.fee_yuan", IssueKind.MISSING, "only the halved fee is stated"))
    else:
        reduced = _REDUCED.search(plain, fee.end())
        fee_yuan, collected = amount, to_yuan(reduced["n"] + "元") if reduced else amount
    others = {m["kind"]: v for m in _OTHER.finditer(plain) if (v := to_yuan(m["n"] + "元")) is not None}
    shares = []
    for m in _PAYER.finditer(plain[plain.find("由") :] if "由" in plain else plain[fee.end() :]):
        party = re.sub(r"^(?:由|其中|，|,)", "", m["party"]).strip()
        if party and _PARTY_WORD.search(party) and "受理费" not in party and not _WAIVED.search(party):
            shares.append(CostShare(party=party, yuan=to_yuan(m["n"] + "元") if m["n"] else None))
    if len(shares) == 1 and shares[0].yuan is None and collected is not None:
        shares = [CostShare(shares[0].party, round(collected + sum(others.values()), 2))]
    waived = bool(_WAIVED.search(plain)) and not shares
    if not shares and not waived:
        issues.append(Issue("costs.borne_by", IssueKind.UNPARSED, f"payer not read: {text[:60]}"))
    elif any(s.yuan is None for s in shares):
        issues.append(Issue("costs.borne_by", IssueKind.AMBIGUOUS, "several payers, not every share has an amount"))
    return Costs(fee_yuan, collected, others, tuple(shares), waived, text), issues
