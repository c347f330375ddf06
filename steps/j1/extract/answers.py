"""The JSON the extraction model returns, one key per field, each validated on its own.

Field content follows J1-ENVS (spec j1-envs §3.2, §3.3, §3.6 and §9.3 item 23: court reasoning, 质证意见 and
other statements, the plea of the defendant and of the defence lawyer, the procurator's charges and opinion)
and MASER (maser-mile §1.1: claims including costs, the plaintiff's 事实与理由 as the case details, evidence).
Every key is required, so a missing key is an error for that field only; an absent part of the document is
null or an empty list. The keys the parser also reads (`defendants`, `parties`, `statutes`) are asked for so
that the cross-check can compare them; they are never stored as the case's values.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    create_model,
)


def _blank_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


def _drop_blank_items(value: Any) -> Any:
    return [v for v in value if not (isinstance(v, str) and not v.strip())] if isinstance(value, list) else value


Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
OptText = Annotated[Text | None, BeforeValidator(_blank_to_none)]
TextList = Annotated[list[Text], BeforeValidator(_drop_blank_items)]
Amount = Annotated[float | None, Field(ge=0)]


class _Item(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Evidence(_Item):
    """One piece of evidence: who offered it (court: listed by the court without naming who offered it)."""

    party: Literal["plaintiff", "defendant", "third_party", "procurator", "defence", "court"]
    item: Text
    proves: OptText = None


class Statement(_Item):
    """What one side said: a plea, a defence lawyer's opinion, a 质证意见 or another statement."""

    side: Literal["plaintiff", "defendant", "third_party", "defence_lawyer"]
    party: OptText = None
    text: Text


class CitedStatute(_Item):
    law: Text
    article: int = Field(ge=1)


class CriminalDefendant(_Item):
    name: Text
    birth_date: OptText = None
    charges: TextList = Field(default_factory=list)
    prison_months: Amount = None
    probation_months: Amount = None
    fine_yuan: Amount = None


class CivilParty(_Item):
    role: Text
    name: Text


CRIMINAL: dict[str, Any] = {
    "defendants": list[CriminalDefendant],
    "statutes": list[CitedStatute],
    "case_details": OptText,
    "procurator_charges": TextList,
    "procurator_opinion": OptText,
    "evidence": list[Evidence],
    "pleas": list[Statement],
    "court_findings": OptText,
    "court_reasoning": OptText,
}
CIVIL: dict[str, Any] = {
    "parties": list[CivilParty],
    "statutes": list[CitedStatute],
    "case_details": OptText,
    "claims": TextList,
    "defence": TextList,
    "evidence": list[Evidence],
    "cross_exam": list[Statement],
    "other_statements": list[Statement],
    "court_findings": OptText,
    "court_reasoning": OptText,
}
FIELDS = {"criminal": CRIMINAL, "civil": CIVIL}
CHECKED = ("defendants", "parties", "statutes")  # compared with the parser, never stored
# The stored LLM columns, in table order; a kind's fields that the other kind lacks stay empty.
LLM_COLUMNS = (
    "case_details",
    "claims",
    "defence",
    "evidence",
    "procurator_charges",
    "procurator_opinion",
    "pleas",
    "cross_exam",
    "other_statements",
    "court_findings",
    "court_reasoning",
)


@cache
def answer_model(kind: str) -> type[BaseModel]:
    """The whole answer of one `kind` as one pydantic model: every key required (what constrained output asks
    for; the answer is still validated field by field, `validate_field`)."""
    fields: dict[str, Any] = {name: (t, ...) for name, t in FIELDS[kind].items()}
    return create_model(f"{kind.title()}Fields", __config__=ConfigDict(extra="ignore"), **fields)


_ADAPTERS = {kind: {name: TypeAdapter(t) for name, t in fields.items()} for kind, fields in FIELDS.items()}


def validate_field(kind: str, name: str, value: Any) -> Any:
    """The validated value of one field (pydantic models as plain dicts); raises ValueError with a short reason."""
    try:
        valid = _ADAPTERS[kind][name].validate_python(value)
    except ValidationError as e:
        raise ValueError(
            "; ".join(f"{'.'.join(map(str, err['loc'])) or name}: {err['msg']}" for err in e.errors()[:3])
        ) from None
    if isinstance(valid, list):
        return [v.model_dump() if isinstance(v, BaseModel) else v for v in valid]
    return valid


def mandatory(kind: str, doc_type: str | None, procedure: str) -> tuple[str, ...]:
    """LLM fields that must not be empty: the elements J1 lists (spec j1-envs §3.2, §3.3) plus the reasoning
    (§9.3 item 23). Defence and evidence are not among them: an absent defendant leaves none, and many criminal
    judgments restate only the charge, not the charged facts. A ruling (裁定书) only has to give its reasons."""
    if isinstance(doc_type, str) and "裁定" in doc_type:
        return ("court_reasoning",)
    if kind == "civil":
        return ("case_details", "claims", "court_findings", "court_reasoning")
    if procedure == "appeal":
        return ("pleas", "court_findings", "court_reasoning")
    return ("procurator_charges", "pleas", "court_findings", "court_reasoning")
