"""The scripted environment model's extraction policy: answer with copies of the parsed sections.

Offline, `scripted/persona` answers an extraction call from the call metadata (`prompts.scripted_context`): the
values the parser reads are returned as read (so the cross-check agrees), and each LLM-only field is the text
of the section it comes from, cut into items by `copying.py`. Importing this module registers the policy.
"""

from __future__ import annotations

import json
import re
from typing import Any

from steps.j1.extract.copying import (
    CROSS_EXAM,
    OTHER,
    after_label,
    evidence,
    first_name,
    numbered,
    sentences,
    statements,
)
from steps.j1.extract.laws import official_name
from steps.j1.extract.prompts import SCENARIO
from steps.llm import ScriptedRequest, register_policy

_CHARGE = re.compile(r"(?:犯|构成)([\u4e00-\u9fa5]{1,20}?罪(?:、[\u4e00-\u9fa5]{1,20}?罪)*)")
_OPINION = re.compile(r"(?:公诉机关|检察院|公诉人|检察员)[^。]{0,30}?(?:认为|建议|提请|要求|请求)")
_LAWYER = re.compile(r"辩护人[^。]{0,30}?(?:提出|认为|辩护意见|辩称|请求|建议)")
_DEFENDANT = re.compile(
    r"(?:被告人|上诉人|被告单位)[^。]{0,30}?(?:辩称|辩解|供认|无异议|没有异议|认罪|承认|上诉称|提出|异议|请求)"
)
_PLEA_SECTIONS = ("indictment", "defence", "appeal_grounds", "facts", "evidence", "reasoning")
# facts stated inside the evidence paragraph: …本院根据当事人提供的证据查明事实如下：…
_FINDINGS = re.compile(r"(?:查明|认定|确认)[^。：:]{0,12}?(?:事实|如下)[^。：:]{0,4}[：:]")


def scripted_extraction(request: ScriptedRequest) -> str:
    meta = request.metadata
    answer = criminal_answer(meta) if meta["kind"] == "criminal" else civil_answer(meta)
    return json.dumps(answer, ensure_ascii=False)


def court_statutes(meta: dict[str, Any]) -> list[dict]:
    """The (law, article) pairs the parser read in the court's basis, in order, once each."""
    pairs = [
        (official_name(s["law"]), s["article"]) for s in meta["statutes"] if s["basis"] and s["source"] == "reasoning"
    ]
    return [{"law": law, "article": article} for law, article in dict.fromkeys(pairs)]


def criminal_answer(meta: dict[str, Any]) -> dict[str, Any]:
    s = meta["sections"]
    births = {p["name"]: p["birth_date"] for p in meta["parties"]}
    indictment = after_label(s.get("indictment"), "指控")
    findings = s.get("facts") or (s.get("indictment") if s.get("evidence") else None) or s.get("first_instance")
    return {
        "defendants": [
            {**d, "birth_date": births.get(d["name"]), "charges": [f"{c}罪" for c in d["charges"]]}
            for d in meta["defendants"]
        ],
        "statutes": court_statutes(meta),
        "case_details": indictment,
        "procurator_charges": procurator_charges(s),
        "procurator_opinion": "".join(x for x in _sentences_in(s, ("indictment", "evidence")) if _OPINION.search(x))
        or None,
        "evidence": evidence(s.get("evidence"), _criminal_offerer(s.get("evidence") or "")),
        "pleas": pleas(s, meta["parties"]),
        "court_findings": findings,
        "court_reasoning": s.get("reasoning"),
    }


def procurator_charges(sections: dict[str, str]) -> list[str]:
    """Charges named where the procurator accuses (指控 …犯…罪 / 其行为已构成…罪)."""
    found: list[str] = []
    for sentence in _sentences_in(sections, ("record", "indictment")):
        if re.search(r"指控|公诉|起诉|认为", sentence):
            found += [c for m in _CHARGE.finditer(sentence) for c in m.group(1).split("、")]
    return list(dict.fromkeys(found))


def _criminal_offerer(text: str) -> str:
    return "procurator" if re.search(r"公诉机关[^。]{0,12}(?:提供|出示|提交|宣读|举示)", text) else "court"


def pleas(sections: dict[str, str], parties: list[dict]) -> list[dict]:
    """Sentences in which a defendant or the defence lawyer states a position on the accusation."""
    lawyers = [p["name"] for p in parties if "辩护人" in p["role"]]
    defendants = [p["name"] for p in parties if "辩护人" not in p["role"] and "公诉" not in p["role"]]
    out: list[dict] = []
    for sentence in dict.fromkeys(_sentences_in(sections, _PLEA_SECTIONS)):
        if _LAWYER.search(sentence):
            out.append({"side": "defence_lawyer", "party": first_name(sentence, lawyers), "text": sentence})
        elif _DEFENDANT.search(sentence) and not re.search(r"指控被告人|^上述事实，(?:有|经)|供述与辩解：", sentence):
            out.append({"side": "defendant", "party": first_name(sentence, defendants), "text": sentence})
    return out


def _sentences_in(sections: dict[str, str], names: tuple[str, ...]) -> list[str]:
    return [x for name in names for x in sentences(sections.get(name))]


def civil_answer(meta: dict[str, Any]) -> dict[str, Any]:
    s = meta["sections"]
    names = [p["name"] for p in meta["parties"]]
    return {
        "parties": [
            {"role": p["role"], "name": p["name"]} for p in meta["parties"] if p["role"] in ("原告", "被告", "第三人")
        ],
        "statutes": court_statutes(meta),
        "case_details": s.get("plaintiff_statement"),
        "claims": numbered(after_label(s.get("claims"), "诉讼请求")),
        "defence": sentences(s.get("defence")),
        "evidence": evidence(s.get("evidence"), "court"),
        "cross_exam": statements(s.get("evidence"), CROSS_EXAM, names),
        "other_statements": statements(s.get("evidence"), OTHER, names, exclude=CROSS_EXAM),
        "court_findings": s.get("facts") or _embedded_findings(s.get("evidence")),
        "court_reasoning": s.get("reasoning"),
    }


def _embedded_findings(text: str | None) -> str | None:
    if not text or not (m := _FINDINGS.search(text)):
        return None
    return text[m.end() :].strip() or None


register_policy("persona", SCENARIO, scripted_extraction)
