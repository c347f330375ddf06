"""Records returned by the judgment parser.

Every field the parser could not read stays None (or empty) and has a matching `Issue`, so an empty value is
never silent: `ParsedCase.issues` says which fields are missing, unparsed, ambiguous or inferred, and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class IssueKind(StrEnum):
    MISSING = "missing"  # the document has no such part (no 判决如下, no case number)
    UNPARSED = "unparsed"  # the part is there but no rule read it
    AMBIGUOUS = "ambiguous"  # several readings; the detail says which one was kept
    INFERRED = "inferred"  # filled from another part of the document (维持原判 → the first-instance sentence)
    CONFLICT = "conflict"  # two parts of the input disagree
    GARBLED = "garbled"  # replacement characters or mojibake in the text
    TRUNCATED = "truncated"  # the text was cut before parsing


class Procedure(StrEnum):
    FIRST_INSTANCE = "first_instance"
    APPEAL = "appeal"
    RETRIAL = "retrial"
    OTHER = "other"


@dataclass(frozen=True)
class Issue:
    """Something the parser could not read: the field, the kind of failure and a short detail."""

    field: str
    kind: IssueKind
    detail: str


@dataclass(frozen=True)
class Statute:
    """One cited provision. `sub_article` is the N of 第X条之N (第一百三十三条之一 → article 133, sub_article 1).

    `source` is the section the citation is in; `basis` is True when it is cited as the ground of the decision
    (依照/根据/依据 … 的规定), False when it is quoted or discussed. `inferred` is True when the law's name was
    completed by rule because the text lost part of it (《最高人民法院关于适用的解释》).
    """

    law: str
    article: int
    sub_article: int | None = None
    paragraph: int | None = None
    item: int | None = None
    source: str = ""
    basis: bool = False
    inferred: bool = False

    def as_dict(self) -> dict:
        return {
            "law": self.law,
            "article": self.article,
            "sub_article": self.sub_article,
            "paragraph": self.paragraph,
            "item": self.item,
            "source": self.source,
            "basis": self.basis,
            "inferred": self.inferred,
        }


@dataclass(frozen=True)
class Header:
    """The document's heading; court and case number are absent from the sectioned civil data."""

    court: str | None = None
    doc_type: str | None = None
    case_number: str | None = None
    year: int | None = None
    procedure: Procedure = Procedure.OTHER
    title: str | None = None


@dataclass(frozen=True)
class CustodyEvent:
    """A coercive measure: kind (刑事拘留, 逮捕, 取保候审, 监视居住, 行政拘留 …) and its ISO date when stated."""

    kind: str
    date: str | None


@dataclass(frozen=True)
class Party:
    """A party or representative with the particulars the document states; absent particulars are None."""

    role: str
    name: str
    entity: str = "person"  # person | organisation
    gender: str | None = None
    ethnicity: str | None = None
    birth_date: str | None = None  # ISO; YYYY-MM or YYYY when the document gives only that
    age: int | None = None
    birthplace: str | None = None
    address: str | None = None
    domicile: str | None = None  # 户籍地
    occupation: str | None = None
    education: str | None = None
    custody: tuple[CustodyEvent, ...] = ()
    custody_status: str | None = None  # the latest measure, or 在押 when the text says so
    prior_records: tuple[str, ...] = ()
    registered_address: str | None = None
    legal_representative: str | None = None
    affiliation: str | None = None  # a lawyer's firm
    represents: str | None = None  # the party a 辩护人 / 代理人 / 法定代表人 acts for
    text: str = ""


@dataclass(frozen=True)
class Sections:
    """The parts of a judgment's body; None where the document has no such part."""

    record: str | None = None  # the procedural paragraph (…一案，本院于…立案…)
    claims: str | None = None  # 诉讼请求
    plaintiff_statement: str | None = None  # 诉称 / 事实与理由
    defence: str | None = None  # 辩称 / 辩护意见
    indictment: str | None = None  # 公诉机关指控
    first_instance: str | None = None  # 原判认定 … in an appeal
    appeal_grounds: str | None = None  # 上诉称
    facts: str | None = None  # 经审理查明
    evidence: str | None = None  # 上述事实…证据证实
    reasoning: str | None = None  # 本院认为
    verdict: str | None = None  # after 判决如下 / 裁定如下
    costs: str | None = None  # 案件受理费…
    appeal_notice: str | None = None  # 如不服本判决…
    signature: str | None = None
    appendix: str | None = None  # 附：相关法律条文


@dataclass(frozen=True)
class ChargeSentence:
    """The sentence for one charge before 数罪并罚."""

    charge: str
    penalty: str | None
    prison_months: float | None
    fine_yuan: float | None


@dataclass(frozen=True)
class DefendantVerdict:
    """The verdict for one defendant.

    `penalty` is the principal penalty (有期徒刑, 拘役, 管制, 无期徒刑, 死刑, 死刑缓期执行, 免予刑事处罚, 单处罚金,
    无罪); under 数罪并罚 it is the 决定执行 penalty. `prison_months` is its term, for 有期徒刑, 拘役 and 管制 only;
    a term with days counts them as days/30 (拘役二个月十五日 → 2.5).
    """

    name: str
    charges: tuple[str, ...]
    penalty: str | None
    prison_months: float | None
    probation_months: float | None
    fine_yuan: float | None
    confiscation: tuple[str, ...] = ()
    counts: tuple[ChargeSentence, ...] = ()
    combined: bool = False
    text: str = ""


@dataclass(frozen=True)
class CostShare:
    party: str
    yuan: float | None


@dataclass(frozen=True)
class Costs:
    """Litigation costs: the fee as assessed, the amount collected after 减半收取, other fees and who pays."""

    fee_yuan: float | None
    collected_yuan: float | None
    other_fees: dict[str, float] = field(default_factory=dict)
    borne_by: tuple[CostShare, ...] = ()
    waived: bool = False
    text: str = ""


@dataclass
class ParsedCase:
    """Everything the parser read from one judgment, and what it could not read.

    `rulings` are the civil judgment items; for a criminal case, the verdict items that are not sentences
    (forfeiture, restitution, the disposal of an earlier judgment, a transfer of jurisdiction).
    """

    kind: str  # criminal | civil
    source_id: str | None
    header: Header
    parties: list[Party]
    sections: Sections
    statutes: list[Statute]
    defendants: list[DefendantVerdict] = field(default_factory=list)
    rulings: list[str] = field(default_factory=list)
    costs: Costs | None = None
    issues: list[Issue] = field(default_factory=list)


@dataclass(frozen=True)
class JudgmentParts:
    """A judgment written as one text (a model's final utterance, or a court's 本院认为 … 判决如下 … body).

    `reasoning` runs from 本院认为 to the rulings, `rulings` from 判决如下 (or 判决：) to the cited-law part, the
    appeal notice or the end; `laws` is a cited-law heading's section, or else the 依照…规定 clause before the
    rulings. A part the text does not have is None.
    """

    text: str
    reasoning: str | None
    rulings: str | None
    laws: str | None

    @property
    def complete(self) -> bool:
        """A final judgment in the J1 sense: reasoning and rulings are both there."""
        return self.reasoning is not None and self.rulings is not None
