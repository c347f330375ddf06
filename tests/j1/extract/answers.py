"""Model answers for the crafted texts in `texts.py`: valid, agreeing with the parser and copied from the text,
so that a test can change one value and see exactly one issue."""

import copy
import json

CRIMINAL_ANSWER = {
    "defendants": [
        {
            "name": "张甲",
            "birth_date": "1975年4月16日",
            "charges": ["盗窃罪"],
            "prison_months": 18,
            "probation_months": None,
            "fine_yuan": 20000,
        },
        {
            "name": "王丙",
            "birth_date": "1990-05",
            "charges": ["盗窃罪"],
            "prison_months": 3,
            "probation_months": 6,
            "fine_yuan": 15000,
        },
    ],
    "statutes": [{"law": "中华人民共和国刑法", "article": a} for a in (264, 25, 67, 72, 52, 53)],
    "case_details": "2017年4月，被告人张甲、王丙在某商场窃取财物价值人民币二万元。",
    "procurator_charges": ["盗窃罪"],
    "procurator_opinion": None,
    "evidence": [
        {"party": "court", "item": "被害人陈述", "proves": None},
        {"party": "court", "item": "监控录像", "proves": "2017年4月，被告人张甲、王丙在某商场窃取财物"},
    ],
    "pleas": [{"side": "defendant", "party": "张甲", "text": "被告人张甲辩称其系初犯。"}],
    "court_findings": "2017年4月，被告人张甲、王丙在某商场窃取财物价值人民币二万元。",
    "court_reasoning": "本院认为，被告人张甲、王丙以非法占有为目的，秘密窃取他人财物，数额较大，其行为均已构成盗窃罪。",
}

CIVIL_ANSWER = {
    "parties": [
        {"role": "原告", "name": "甲公司"},
        {"role": "被告", "name": "李乙"},
        {"role": "第三人", "name": "王丙"},
    ],
    "statutes": [{"law": "合同法", "article": 109}, {"law": "中华人民共和国民事诉讼法", "article": 144}],
    "case_details": "原、被告签订买卖合同，被告拖欠货款。",
    "claims": ["判令被告支付货款4万元", "诉讼费由被告承担"],
    "defence": ["货物存在质量问题。"],
    "evidence": [
        {"party": "court", "item": "买卖合同", "proves": None},
        {"party": "court", "item": "送货单", "proves": None},
    ],
    "cross_exam": [],
    "other_statements": [],
    "court_findings": "2019年原、被告签订买卖合同，被告尚欠货款4万元。",
    "court_reasoning": "本院认为，买卖合同合法有效。",
}


def answer(kind: str, **changes) -> dict:
    """A deep copy of the valid answer with top-level keys replaced (a value of `...` deletes the key)."""
    out = copy.deepcopy(CRIMINAL_ANSWER if kind == "criminal" else CIVIL_ANSWER)
    for key, value in changes.items():
        if value is ...:
            out.pop(key)
        else:
            out[key] = value
    return out


def as_text(value: dict) -> str:
    return json.dumps(value, ensure_ascii=False)
