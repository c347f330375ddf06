"""Parties and their particulars from the paragraphs between the heading and the procedural record.

Each party paragraph opens with a role (公诉机关, 被告人, 上诉人（原审被告人）, 辩护人 …) and a name; the first
sentence lists particulars separated by commas in a customary order (gender, birth, ethnicity, education,
occupation, address), and later sentences give prior records (曾因…被判处…) and the coercive measures of this
case (…被刑事拘留，同年…被逮捕。现羁押于…). Each clause is read by what it says, not by its position, since
courts vary the order.
"""

from __future__ import annotations

import re
from dataclasses import replace

from steps.j1.extract.dates import dates_in, parse_date
from steps.j1.extract.model import CustodyEvent, Issue, IssueKind, Party

ROLES = (
    "附带民事诉讼原告人",
    "附带民事诉讼被告人",
    "附带民事诉讼代理人",
    "委托诉讼代理人",
    "原审附带民事诉讼原告人",
    "原审被告单位",
    "原审被告人",
    "原公诉机关",
    "抗诉机关",
    "公诉机关",
    "自诉人",
    "被告单位",
    "被告人",
    "被上诉人",
    "上诉人",
    "申诉人",
    "指定辩护人",
    "委托辩护人",
    "辩护人",
    "诉讼代理人",
    "委托代理人",
    "法定代理人",
    "法定代表人",
    "诉讼代表人",
    "负责人",
    "被害人",
    "原告人",
    "原告",
    "被告",
    "第三人",
)
ROLE = re.compile(
    rf"^(?P<role>{'|'.join(sorted(ROLES, key=len, reverse=True))}|公诉关)(?:[（(](?P<origin>[^）)]{{1,24}})[）)])?"
)
REPRESENTATIVES = {"辩护人", "指定辩护人", "委托辩护人", "诉讼代理人", "委托诉讼代理人", "委托代理人", "法定代理人"}
ORG_REPRESENTATIVES = {"法定代表人", "诉讼代表人", "负责人"}
ORGANISATION_ROLES = {"公诉机关", "原公诉机关", "抗诉机关", "被告单位", "原审被告单位"}
ORG_NAME = re.compile(r"(公司|厂|中心|银行|委员会|局|院|社|店|所|部|合作社|集团|协会|学校|医院|处|站|馆|会|行|场)$")
EDUCATION = re.compile(r"文盲|半文盲|小学|初中|高中|中专|职高|技校|高职|大专|专科|本科|大学|研究生|硕士|博士")
OCCUPATION = re.compile(
    r"农民|无业|无职业|无固定职业|个体|工人|务工|务农|职员|员工|司机|学生|经理|干部|教师|医生|自由职业|经商|打工|"
    r"厨师|保安|商人|工$|村民|退休|工作人员|公务员|会计|出纳|店主|老板|主任|书记|船员|渔民|工程师|销售|业务员|个体户"
)
CUSTODY_KINDS = (
    "指定居所监视居住",
    "监视居住",
    "取保候审",
    "刑事拘留",
    "行政拘留",
    "逮捕",
    "羁押",
    "抓获",
    "投案",
)
_CUSTODY = re.compile("|".join(CUSTODY_KINDS))
_IN_CUSTODY = re.compile(r"现(?:羁押|押|在押|关押|被羁押)|在押|现(?:在)?[^。，]{0,12}看守所")
_PRIOR = re.compile(r"判处|刑满|释放|行政拘留|劳动教养|强制(?:隔离)?戒毒|罚款|免予刑事处罚|单处罚金|被判")
_CURRENT = re.compile(r"涉嫌|本案|此案|因该案")


def is_party_paragraph(paragraph: str) -> bool:
    """A paragraph that introduces a party or representative."""
    return bool(ROLE.match(paragraph))


def parse_party_paragraph(paragraph: str, principal: str | None) -> tuple[list[Party], list[Issue]]:
    """The parties one paragraph introduces (辩护人张某、李某 introduces two)."""
    m = ROLE.match(paragraph)
    if not m:
        return [], [Issue("parties", IssueKind.UNPARSED, f"no role at start: {paragraph[:30]}")]
    role = "公诉机关" if m["role"] == "公诉关" else m["role"]
    rest = paragraph[m.end() :].lstrip("：: ")
    if role in ORGANISATION_ROLES and role != "被告单位" and role != "原审被告单位":
        name = re.split(r"[。，,]", rest, maxsplit=1)[0]
        return [Party(role=role, name=name, entity="organisation", text=paragraph)], []
    names, tail = _names(rest)
    if not names:
        return [], [Issue("parties", IssueKind.UNPARSED, f"no name after {role}: {paragraph[:30]}")]
    full_role = f"{role}（{m['origin']}）" if m["origin"] else role
    if role in REPRESENTATIVES or role in ORG_REPRESENTATIVES:
        affiliation = tail.strip("，,。 ") or None
        return [
            Party(role=full_role, name=n, affiliation=affiliation, represents=principal, text=paragraph) for n in names
        ], []
    return [_principal(full_role, names[0], tail, paragraph)], []


_NAMES = re.compile(r"(?:自报)?(?P<names>[^，,。；;（(]*)(?:[（(][^）)]*[）)])?[，,。；;]?")


def _names(rest: str) -> tuple[list[str], str]:
    """Names up to the first comma; a bracket right after a name (（曾用名…，绰号…）) is skipped whole."""
    m = _NAMES.match(rest)
    if m is None:  # never: the pattern also matches nothing
        return [], rest
    names = [n.strip() for n in re.split(r"[、]", m["names"]) if n.strip()]
    return names, rest[m.end() :]


def _principal(role: str, name: str, tail: str, paragraph: str) -> Party:
    sentences = [s for s in re.split(r"[。；;]", tail) if s]
    first = re.split(r"[，,]", sentences[0]) if sentences else []
    attrs: dict[str, str | int | None] = {}
    later = [c for s in sentences[1:] if not (_CUSTODY.search(s) or _PRIOR.search(s)) for c in re.split(r"[，,]", s)]
    for clause in first + later:
        _read_clause(clause.strip(), attrs)
    organisation = role in ("被告单位", "原审被告单位") or bool(ORG_NAME.search(name))
    if organisation:
        attrs["registered_address"] = attrs.pop("registered_address", None) or attrs.pop("address", None)
        if rep := re.search(r"(?:法定代表人|负责人|诉讼代表人)[：:]?([^，,。；（(]+)", tail):
            attrs["legal_representative"] = rep.group(1)
    custody, status = _custody(tail)
    priors = tuple(s for s in re.split(r"[。；;]", tail) if _PRIOR.search(s) and not _CURRENT.search(s))
    return Party(
        role=role,
        name=name,
        entity="organisation" if organisation else "person",
        custody=custody,
        custody_status=status,
        prior_records=priors,
        text=paragraph,
        # the particulars read, by field name: all `str | None` but `age` (an int), which mypy cannot pair up
        **{k: v for k, v in attrs.items() if k in _ATTRS},  # type: ignore[arg-type]
    )


_ATTRS = {
    "gender",
    "ethnicity",
    "birth_date",
    "age",
    "birthplace",
    "address",
    "domicile",
    "occupation",
    "education",
    "registered_address",
    "legal_representative",
}
_ADDRESS = re.compile(r"^(?:现住址|现住|住址|家住|租住|暂住地|暂住|居住地|经常居住地|现居住地|住所|住)[：:为在于]?")
_DOMICILE = re.compile(r"^(?:户籍所在地|户籍地址|户籍地|户口所在地|户籍|户籍所在)[：:为在于]?")
_REGISTERED = re.compile(r"^(?:住所地|注册地|住所地址|营业场所|地址)[：:为在于]?")


def _read_clause(clause: str, attrs: dict) -> None:
    def put(key: str, value: str | int | None) -> None:
        if value not in (None, "") and attrs.get(key) is None:
            attrs[key] = value

    if clause in ("男", "女", "男性", "女性"):
        put("gender", clause[0])
    elif re.fullmatch(r"[\u4e00-\u9fa5]{1,6}族", clause):
        put("ethnicity", clause)
    elif re.search(r"\d{4}年|[〇零一二三四五六七八九]{4}年", clause) and re.search(r"出生|生$|生于", clause):
        put("birth_date", parse_date(clause))
        if place := re.search(r"出生于(.+)$|生于(.+)$", clause):
            put("birthplace", place.group(1) or place.group(2))
    elif age := re.fullmatch(r"(\d{1,3})(?:周)?岁", clause):
        put("age", int(age.group(1)))
    elif m := _REGISTERED.match(clause):
        put("registered_address", clause[m.end() :])
    elif m := _DOMICILE.match(clause):
        put("domicile", clause[m.end() :])
    elif m := _ADDRESS.match(clause):
        put("address", clause[m.end() :])
    elif re.search(r"文化|学历|文盲|肄业|毕业", clause):
        level = EDUCATION.search(clause)
        put("education", level.group(0) if level else clause)
    elif m := re.match(r"(?:籍贯|出生地)[：:]?(.+)", clause):
        put("birthplace", m.group(1))
    elif re.fullmatch(r"[\u4e00-\u9fa5]{2,20}(?:省|市|县|区|州|旗)[\u4e00-\u9fa5]{0,10}人", clause):
        put("birthplace", clause[:-1])
    elif m := re.match(r"(?:案发前系|原系|系|职业[：:]?|任)(.+)", clause):
        put("occupation", m.group(1))
    elif OCCUPATION.search(clause) and len(clause) <= 30:
        put("occupation", clause)


def _custody(text: str) -> tuple[tuple[CustodyEvent, ...], str | None]:
    """Coercive measures of this case in order, with dates, and the custody status at the time of the judgment."""
    events: list[CustodyEvent] = []
    previous: str | None = None
    for chunk in re.split(r"[。；;]", text):
        if not _CUSTODY.search(chunk) or (_PRIOR.search(chunk) and not _CURRENT.search(chunk)):
            continue
        dated = dates_in(chunk, previous)
        for m in _CUSTODY.finditer(chunk):
            if "现" in chunk[max(0, m.start() - 2) : m.start()]:
                continue  # 现羁押于… states where the defendant is, not a new measure
            before = [d for pos, d in dated if pos < m.start()]
            when = before[-1] if before else None
            previous = when or previous
            event = CustodyEvent(kind=m.group(0), date=when)
            if not events or events[-1] != event:
                events.append(event)
    status = "在押" if _IN_CUSTODY.search(text) else (events[-1].kind if events else None)
    return tuple(events), status


def parse_parties(paragraphs: list[str]) -> tuple[list[Party], list[Issue]]:
    """Parties from the paragraphs between the heading and the procedural record; representatives are linked to
    the principal party introduced before them."""
    parties: list[Party] = []
    issues: list[Issue] = []
    principal: str | None = None
    for paragraph in paragraphs:
        found, problems = parse_party_paragraph(paragraph, principal)
        issues += problems
        for party in found:
            base_role = re.sub(r"（.*", "", party.role)
            if base_role in ORG_REPRESENTATIVES and parties and parties[-1].entity == "organisation":
                org = parties[-1]
                if org.legal_representative is None:
                    parties[-1] = replace(org, legal_representative=party.name)
                party = replace(party, represents=org.name)
            elif base_role not in REPRESENTATIVES and base_role not in ORG_REPRESENTATIVES:
                principal = party.name
            parties.append(party)
    return parties, issues
