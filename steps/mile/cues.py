"""What a lawyer's question asks about, read from cue words (used by the scripted client and supervisor).

Topics are tried in order: litigation costs, evidence, the defendant, the plaintiff's own particulars,
claims, facts — so 被告的地址 is about the defendant and 诉讼费用 is about costs, not claims.
"""

from __future__ import annotations

from steps.mile.parties import COMPANY_FIELDS, PERSON_FIELDS

FIELD_CUES = {
    "姓名": ("姓名", "名字", "叫什么", "称呼", "贵姓"),
    "性别": ("性别", "男性还是女性", "男士还是女士", "男还是女"),
    "出生日期": ("出生", "生日", "年龄", "多大"),
    "民族": ("民族", "什么族"),
    "地址": ("地址", "住址", "住在", "住所", "居住", "住哪"),
    "公司名称": ("公司名称", "公司全称", "公司的全称", "公司的名称", "单位名称", "全称", "叫什么公司"),
    "负责人或法定代表人": ("法定代表人", "负责人", "法人代表"),
}
TOPIC_CUES = (
    ("costs", ("诉讼费",)),
    ("evidence", ("证据", "证明材料", "凭证")),
    ("defendant", ("被告", "对方", "起诉谁", "告谁")),
    ("plaintiff", ()),  # decided by FIELD_CUES
    ("claims", ("诉讼请求", "诉求", "请求", "希望法院", "赔偿", "要求对方", "目的")),
    ("facts", ("经过", "事实", "怎么回事", "发生", "情况")),
)
STAGE_OF_TOPIC = {
    "plaintiff": "plaintiff",
    "defendant": "defendant",
    "facts": "facts",
    "claims": "claims",
    "costs": "claims",
    "evidence": "evidence",
}


def asked_fields(question: str, kind: str) -> list[str]:
    """The plaintiff's own fields a question asks for (person or company fields)."""
    own = COMPANY_FIELDS if kind == "company" else PERSON_FIELDS
    return [f for f in own if any(c in question for c in FIELD_CUES[f])]


def topic(question: str, kind: str) -> str | None:
    """The first topic whose cues the question contains (None: no recognisable question)."""
    for name, cues in TOPIC_CUES:
        if name == "plaintiff":
            if asked_fields(question, kind):
                return name
        elif any(c in question for c in cues):
            return name
    return None


def mentions(text: str, field: str) -> bool:
    return any(c in text for c in FIELD_CUES.get(field, (field,)))


def asks_own(question: str, kind: str, field: str) -> bool:
    """Whether a question asks for the plaintiff's own `field` (not, say, the defendant's address)."""
    return topic(question, kind) == "plaintiff" and field in asked_fields(question, kind)
