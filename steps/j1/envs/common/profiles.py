"""What each J1 role is given and what the metrics compare against, as typed records (spec j1-envs §2, §3.6).

One pydantic model per (scenario, role) profile and one per scenario's ground truth; each environment's
registration (`steps/j1/envs/<code>/env.py`) names its own. They are the scenario's
instance schema: a profile that lacks a mandatory field, or carries a field its role is not given, does not
validate. The Parquet table stores them as typed structs (`steps.j1.envs.schemas`), and the engine receives
`model_dump()` of the validated model as the role's template context.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Text = Annotated[str, StringConstraints(min_length=1)]
Texts = Annotated[list[Text], Field(min_length=1)]
Kind = Literal["person", "entity"]


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ---------------------------------------------------------------- profiles (template contexts)
class KQClient(_Record):
    occupation: Text
    legal_role: Text
    theme: Text
    style: Text
    topics: Texts


class KQAgent(_Record):
    legal_role: Text
    occupation: Text


class LCClient(_Record):
    name: Text
    background: Text
    style: Text
    topics: Texts


class LCAgent(_Record):
    """The LC lawyer is given nothing about the case: it must ask (spec §2.3)."""


class CDPlaintiff(_Record):
    kind: Kind
    basic_info: Text
    defendant_info: Text
    case_details: Text
    claims: Texts
    evidences: Texts
    style: Text


class CDLawyer(_Record):
    template: Text


class DDDefendant(_Record):
    kind: Kind
    basic_info: Text
    defence: Text
    evidences: list[Text]
    style: Text


class DDLawyer(_Record):
    template: Text
    complaint: Text  # the plaintiff's complaint, rendered from the case with the complaint template
    court: str | None = None
    case_number: str | None = None


class CIJudge(_Record):
    plaintiff_info: Text
    defendant_info: Text
    findings: Text


class CIPlaintiffLawyer(_Record):
    client_info: Text
    defendant_info: Text
    facts_and_reasons: Text
    claims: Texts
    evidences: list[Text]
    refute: str | None = None
    other_statement: str | None = None


class CIDefendantLawyer(_Record):
    client_info: Text
    plaintiff_info: Text
    claims: Text  # the defence arguments
    evidences: list[Text]
    refute: str | None = None
    other_statement: str | None = None


class CRJudge(_Record):
    defendant_info: Text
    findings: Text


class CRDefendant(_Record):
    defendant_info: Text
    case_details: Text
    plea: Text


class CRDefence(_Record):
    client_info: Text
    plea: Text


class CRProcurator(_Record):
    defendant_info: Text
    charges: Text
    facts: Text  # the facts as charged
    opinion: str | None = None
    evidence: list[Text]


# ---------------------------------------------------------------- ground truth (what the metrics compare)
class StatuteRef(_Record):
    law: Text
    article: int
    sub_article: int | None = None


class TopicTruth(_Record):
    topic: Text
    kind: Literal["binary", "open_statute", "open_phrase"]
    answer: Text
    statutes: list[StatuteRef] = []


class TopicsTruth(_Record):
    theme: Text
    derivation: Text
    topics: Annotated[list[TopicTruth], Field(min_length=1)]


class PartyTruth(_Record):
    """A party's particulars as the judgment states them (II-2 PLA/DEF/RES); None where it states none."""

    kind: Kind
    name: Text
    gender: str | None = None
    ethnicity: str | None = None
    birth_date: str | None = None
    address: str | None = None
    legal_representative: str | None = None


class CDTruth(_Record):
    cause: str | None = None
    plaintiffs: Annotated[list[PartyTruth], Field(min_length=1)]
    defendants: Annotated[list[PartyTruth], Field(min_length=1)]
    claims: Texts
    case_details: Text
    evidence: Texts


class DDTruth(_Record):
    cause: str | None = None
    respondent: PartyTruth
    defence: Text
    evidence: list[Text]


class CITruth(_Record):
    cause: str | None = None
    rulings: Texts
    reasoning: Text
    laws: list[StatuteRef]


class CRTruth(_Record):
    defendant: Text  # the accused's name, to read the sentence the agent gives
    charges: Texts
    penalty: Text  # principal penalty: 有期徒刑, 拘役, 管制, 单处罚金, 免予刑事处罚 …
    prison_months: float | None = None
    probation_months: float | None = None
    fine_yuan: float | None = None
    rulings: list[Text]  # empty when the source lost its verdict text; the sentence fields above remain
    reasoning: Text
    laws: list[StatuteRef]
