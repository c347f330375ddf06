"""Criminal verdict items: charges, principal penalty, term, probation, fine and confiscation per defendant.

The 判决如下 part is drafted as numbered items (一、被告人甲犯盗窃罪，判处有期徒刑一年，缓刑二年，并处罚金人民币
二千元。二、…). Rules, after the 刑法 (第四十五条, 第六十九条, 第七十二条) and the 刑事诉讼文书样式:
- an item that begins with 撤销/维持/驳回/准许 disposes of an earlier judgment; in an appeal the new sentence is
  in its own item, so these items are not read as sentences;
- one defendant may have several counts (犯甲罪，判处…；犯乙罪，判处…); the 决定执行 term is the principal
  penalty (数罪并罚). A sentence of an earlier judgment that is only combined with this one (与前罪…并罚,
  原犯…罪被判处…) is not a current charge;
- fines of several counts without a combined amount are added up (刑法第六十九条第三款);
- notes in brackets (刑期从判决执行之日起计算…) are execution details, not sentences.
"""

from __future__ import annotations

import itertools
import re

from steps.j1.extract.model import ChargeSentence, DefendantVerdict, Issue, IssueKind
from steps.j1.extract.numerals import NUMBER, to_months, to_number, to_yuan

_NOTE = re.compile(
    r"[（(][^（）()]*?(?:刑期|折抵|考验期|缴纳|缴清|交纳|缴交|执行之日|确定之日|计算|已缴|预缴|上缴)[^（）()]*[）)]"
)
_ITEM = re.compile(r"(?:^|(?<=[\s；;。]))([一二三四五六七八九十]+)[、.．]")
_DISPOSAL = re.compile(r"^(?:撤销|维持|驳回|准许|准予|发回)")
ROLE_PREFIX = r"(?:原审上诉人|上诉人|原审被告人|被告人|被告单位|原审被告单位|罪犯)(?:[（(][^）)]{0,14}[）)])?"
# a charge ends at the 罪 that is not part of 犯罪所得 (掩饰、隐瞒犯罪所得罪)
_CHARGE = re.compile(r"犯(?P<charge>[\u4e00-\u9fa5、]{1,30}?)罪(?!所得|收益)(?P<more>(?:、[\u4e00-\u9fa5]{1,20}?罪)*)")
_TERM = r"[\d零〇一二两三四五六七八九十又个年月日天]+"
_PRINCIPAL = re.compile(
    rf"(?P<death>死刑[，,]?\s*缓期[二两]年执行|死刑)|(?P<life>无期徒刑)|(?P<kind>有期徒刑|拘役|管制)\s*(?P<term>{_TERM})"
    r"|(?P<exempt>免[予于除]刑事处罚)|(?P<innocent>无罪)"
)
_PROBATION = re.compile(rf"缓刑(?!考验)(?P<term>{_TERM})")
_FINE = re.compile(rf"罚金(?:人民币)?\s*(?P<amount>{NUMBER}元)")
_COMBINED = re.compile(r"决定(?:合并)?执行|合并执行")
_PRIOR = re.compile(
    r"(?:与|，)(?=[^。；]{0,40}?(?:前罪|原犯|原判|原审|刑事判决|未执行|余刑))[^。]*?(?=决定执行|合并执行|(?:数罪|两罪|实行|予以)?并罚|合并)"
    r"|原犯[^。]*?(?=决定执行|合并执行|(?:数罪|两罪|实行|予以)?并罚|合并)"
)
_FORFEIT = re.compile(r"没收|追缴|收缴|上缴国库|销毁")


def strip_notes(text: str) -> str:
    """The verdict without bracketed execution notes and with thousands separators removed (30，000元)."""
    text = re.sub(r"(?<=\d)[，,](?=\d{3})", "", text)
    previous = None
    while previous != text:
        previous, text = text, _NOTE.sub("", text)
    return text


def verdict_items(verdict: str) -> list[str]:
    """Numbered items (一、…二、…); an unnumbered verdict is one item."""
    starts = [m.start() for m in _ITEM.finditer(verdict)]
    if not starts:
        return [verdict.strip()] if verdict.strip() else []
    bounds = [*starts, len(verdict)]
    head = verdict[: starts[0]].strip()
    items = [verdict[a:b].strip() for a, b in itertools.pairwise(bounds)]
    return ([head] if head else []) + [_ITEM.sub("", item, count=1).strip() for item in items]


def _name_pattern(names: list[str], group: str) -> str:
    known = "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True) if n)
    generic = r"[^\s，,。；;、（(：:犯的]{1,10}?"
    return rf"(?P<{group}>{known}|{generic})" if known else rf"(?P<{group}>{generic})"


def sentence_blocks(item: str, names: list[str]) -> list[tuple[str, str]]:
    """(name, text) for each defendant sentenced in an item; repeated mentions of one name are joined."""
    after_role, at_start = _name_pattern(names, "named"), _name_pattern(names, "leading")
    starts = re.compile(rf"(?:{ROLE_PREFIX}{after_role}|^{at_start})(?=[，,]?\s*犯(?!罪))")
    found = list(starts.finditer(item))
    blocks: dict[str, list[str]] = {}
    for m, nxt in zip(found, [*found[1:], None], strict=False):
        text = item[m.end() : nxt.start() if nxt else len(item)]
        blocks.setdefault(m["named"] or m["leading"], []).append(text)
    return [(n, "；".join(parts)) for n, parts in blocks.items()]


def _principal(text: str) -> tuple[str | None, float | None]:
    m = _PRINCIPAL.search(text)
    if not m:
        return ("单处罚金", None) if _FINE.search(text) else (None, None)
    if m["death"]:
        return ("死刑缓期执行" if "缓期" in m["death"] else "死刑"), None
    if m["life"]:
        return "无期徒刑", None
    if m["exempt"]:
        return "免予刑事处罚", None
    if m["innocent"]:
        return "无罪", None
    return m["kind"], term_months(m["term"])


def term_months(term: str) -> float | None:
    """A term in months; days count as days/30 (拘役二个月十五日 → 2.5)."""
    term = re.sub(r"月+", "月", term)  # 一年六个月月: a doubled unit is a typo
    days = re.search(r"(?:零|又)?([\d零〇一二两三四五六七八九十]+)[日天]$", term)
    months = to_months(term[: days.start()] if days else term)
    if days:
        day_count = to_number(days.group(1))
        if day_count is None:
            return None
        return round((months or 0) + day_count / 30, 2)
    return float(months) if months is not None else None


def _fine(text: str) -> float | None:
    m = _FINE.search(text)
    return to_yuan(m["amount"]) if m else None


def parse_block(name: str, text: str) -> tuple[DefendantVerdict, list[Issue]]:
    """The verdict for one defendant from the text after its name (犯…罪，判处…)."""
    issues: list[Issue] = []
    current = _PRIOR.sub("", text)
    combined_at = _COMBINED.search(current)
    counts_text = current[: combined_at.start()] if combined_at else current
    charge_matches = list(_CHARGE.finditer(counts_text))
    counts: list[ChargeSentence] = []
    part_fines: list[float] = []  # one per sentence clause: 犯A罪、B罪，…并处罚金 is one fine, not two
    for m, nxt in zip(charge_matches, [*charge_matches[1:], None], strict=False):
        part = counts_text[m.end() : nxt.start() if nxt else len(counts_text)]
        penalty, months = _principal(part)
        named = [m["charge"], *re.findall(r"、([\u4e00-\u9fa5]{1,20}?)罪", m["more"] or "")]
        part_fine = _fine(part)
        part_fines += [part_fine] if part_fine is not None else []
        counts += [ChargeSentence(c, penalty, months, part_fine) for c in named]
    charges = tuple(dict.fromkeys(c.charge for c in counts))
    if combined_at:
        tail = current[combined_at.end() :]
        penalty, months = _principal(tail)
        fine = _fine(tail)
    elif len(counts) == 1:
        penalty, months, fine = counts[0].penalty, counts[0].prison_months, counts[0].fine_yuan
    else:
        penalties = {(c.penalty, c.prison_months) for c in counts}
        penalty, months = next(iter(penalties)) if len(penalties) == 1 else (None, None)
        if len(penalties) > 1:
            issues.append(Issue(f"verdict.{name}.penalty", IssueKind.AMBIGUOUS, "several counts, no 决定执行 term"))
        fine = None
    if fine is None and len(counts) > 1 and part_fines:
        fine = sum(part_fines)
        if len(part_fines) > 1:
            issues.append(Issue(f"verdict.{name}.fine", IssueKind.INFERRED, "fines of the counts added up"))
    probation = _PROBATION.search(current)
    probation_months = term_months(probation["term"]) if probation else None
    if not charges:
        issues.append(Issue(f"verdict.{name}.charges", IssueKind.UNPARSED, f"no 犯…罪 in: {text[:40]}"))
    if penalty is None:
        issues.append(Issue(f"verdict.{name}.penalty", IssueKind.UNPARSED, f"no principal penalty in: {text[:40]}"))
    elif penalty in ("有期徒刑", "拘役", "管制") and months is None:
        issues.append(Issue(f"verdict.{name}.prison_months", IssueKind.UNPARSED, f"term of {penalty} not read"))
    if probation and probation_months is None:
        issues.append(Issue(f"verdict.{name}.probation_months", IssueKind.UNPARSED, probation.group(0)))
    confiscation = tuple(c for c in re.split(r"[，,；;。]", current) if _FORFEIT.search(c) and "罚金" not in c)
    verdict = DefendantVerdict(
        name=name,
        charges=charges,
        penalty=penalty,
        prison_months=months,
        probation_months=probation_months,
        fine_yuan=fine,
        confiscation=confiscation,
        counts=tuple(counts),
        combined=bool(combined_at) or len(counts) > 1,
        text=text.strip(),
    )
    return verdict, issues


def parse_verdict(verdict: str, names: list[str]) -> tuple[list[DefendantVerdict], list[str], list[Issue]]:
    """Sentences per defendant, the other items (forfeiture, restitution, disposal of earlier judgments), issues.

    Args:
        verdict: the text after 判决如下.
        names: defendants named in the parties, used to find where each sentence starts.
    """
    issues: list[Issue] = []
    results: dict[str, DefendantVerdict] = {}
    others: list[str] = []
    for item in verdict_items(strip_notes(verdict)):
        blocks = [] if _DISPOSAL.match(item) else sentence_blocks(item, names)
        if not blocks:
            others.append(item)
            continue
        for name, text in blocks:
            if name in results:  # a defendant sentenced in two items: keep the first, report the second
                issues.append(Issue(f"verdict.{name}", IssueKind.AMBIGUOUS, "sentenced in two items; first kept"))
                continue
            parsed, problems = parse_block(name, text)
            results[name] = parsed
            issues += problems
    return list(results.values()), others, issues


_CONSTITUTES = re.compile(
    r"(?<!不)构成(?P<charge>[\u4e00-\u9fa5、]{1,30}?)罪(?!所得|收益)(?P<more>(?:[、和及与][\u4e00-\u9fa5]{1,20}?罪)*)"
)


def charges_named(text: str) -> tuple[str, ...]:
    """Charges a text names with 犯…罪 or 构成…罪 (not 不构成…罪), in order, without 罪 and repeats."""
    found = [
        (m.start(), name)
        for pattern in (_CHARGE, _CONSTITUTES)
        for m in pattern.finditer(text)
        for name in [m["charge"], *re.findall(r"[、和及与]([\u4e00-\u9fa5]{1,20}?)罪", m["more"] or "")]
    ]
    return tuple(dict.fromkeys(n.strip("、") for _, n in sorted(found) if n.strip("、") not in ("", "犯")))


def read_sentence(verdict: str, names: list[str]) -> tuple[DefendantVerdict | None, list[Issue]]:
    """The sentence of one defendant in a verdict written by a court or by a model.

    Courts open each sentence with 被告人X犯Y罪; a model may not (判处被告人X有期徒刑一年…), so when no sentence
    block is found the whole verdict is read as the sentence of one defendant, with the charges it names by
    构成…罪 as well. The defendant named first in `names` is preferred; otherwise the first sentenced.
    """
    defendants, _, issues = parse_verdict(verdict, names)
    if defendants:
        return next((d for d in defendants if d.name in names), defendants[0]), issues
    text = strip_notes(verdict)
    if not (_PRINCIPAL.search(text) or _FINE.search(text)):
        return None, [*issues, Issue("verdict", IssueKind.MISSING, "no sentence in the verdict")]
    combined_at = _COMBINED.search(text)
    decisive = text[combined_at.end() :] if combined_at else text
    penalty, months = _principal(decisive)
    probation = _PROBATION.search(text)
    sentence = DefendantVerdict(
        name=names[0] if names else "",
        charges=charges_named(text),
        penalty=penalty,
        prison_months=months,
        probation_months=term_months(probation["term"]) if probation else None,
        fine_yuan=_fine(decisive),
        combined=bool(combined_at),
        text=text.strip(),
    )
    inferred = Issue("verdict", IssueKind.INFERRED, "no 被告人…犯…罪 lead: the whole verdict read as one sentence")
    return sentence, [*issues, inferred]
