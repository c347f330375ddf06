"""The court's own judgment written out as one text, for the scripted oracle judge (CI, CR).

本院认为 + the court's reasoning (without its trailing 依照…判决如下), the provisions it applies, and the rulings:
the court's own rulings, led (in a criminal case whose source lost the sentence) by the sentence composed
from the extracted charge, penalty, term and fine.
"""

from __future__ import annotations

import re
from typing import Any

import cn2an

_TAIL = re.compile(r"[，,。]?\s*(?:依照|依据|根据)[^。]*?(?:之规定|的规定|规定)[，,]?\s*(?:判决|裁定)如下[：:]?\s*$")
_VERDICT_LEAD = re.compile(r"[，,。]?\s*(?:判决|裁定)如下[：:]?\s*$")
_NUMERALS = "一二三四五六七八九十"
_SENTENCED = re.compile(r"判处|免予刑事处罚|单处罚金")


def to_chinese_number(n: int) -> str:
    return cn2an.an2cn(int(n))


def _term(months: float) -> str:
    years, rest = divmod(round(months), 12)
    return (f"{to_chinese_number(years)}年" if years else "") + (f"{to_chinese_number(rest)}个月" if rest else "")


def sentence_of(gt: dict[str, Any]) -> str:
    """被告人X犯Y罪，判处有期徒刑…，并处罚金人民币…元。 from the extracted sentence."""
    charges = "、".join(f"{c.removesuffix('罪')}罪" for c in gt["charges"])
    parts = [f"被告人{gt['defendant']}犯{charges}"]
    if gt["penalty"] in ("有期徒刑", "拘役", "管制") and gt.get("prison_months"):
        parts.append(f"判处{gt['penalty']}{_term(gt['prison_months'])}")
    elif gt["penalty"]:
        parts.append(gt["penalty"])
    if gt.get("fine_yuan"):
        parts.append(f"并处罚金人民币{int(gt['fine_yuan'])}元")
    return "，".join(parts) + "。"


def judgment_text(scenario: str, gt: dict[str, Any]) -> str:
    reasoning = gt["reasoning"].strip()
    reasoning = _TAIL.sub("。", reasoning) if _TAIL.search(reasoning) else _VERDICT_LEAD.sub("。", reasoning)
    reasoning = re.sub(r"^本院(?:经审查)?认为[，,：:]?\s*", "", reasoning).rstrip("，,")
    laws = "、".join(
        f"《{x['law']}》第{to_chinese_number(x['article'])}条"
        + (f"之{to_chinese_number(x['sub_article'])}" if x.get("sub_article") else "")
        for x in gt["laws"]
    )
    rulings = list(gt["rulings"])
    if scenario == "CR" and not any(_SENTENCED.search(r) for r in rulings):
        rulings = [sentence_of(gt), *rulings]  # the source kept no sentence: compose it from the extracted one
    numbered = (
        [f"{_NUMERALS[i] if i < 10 else i + 1}、{r}" for i, r in enumerate(rulings)] if len(rulings) > 1 else rulings
    )
    basis = f"依照{laws}的规定，" if laws else ""
    return f"本院认为，{reasoning}\n{basis}判决如下：\n" + "\n".join(numbered)
