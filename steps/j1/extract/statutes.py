"""Cited statutes: law mentions followed by chains of article, paragraph and item references.

A citation is a law name (in title marks, a bare short name such as 刑法, or 该法/同法 for the law just named)
followed by a chain: 第二百六十四条、第二十五条第一款、第六十七条第三款 / 第五十二、五十三条 / 第一百三十三条之一 /
第三百八十三条第一款第（一）项、第三款 / 第十条至第十二条. A 款 without its own 条 belongs to the last article and a
项 without its own 款 to the last paragraph. A chain may carry a version or issuance tag after the name
(（2015年修正）, （法释〔2009〕8号）) and a gloss after a reference (第二百三十六条［强奸罪］, 第六十七条坦白、…).
Courts quoting several articles of one law in a row (《合同法》第六十条规定：“…”第一百零七条规定：“…”) name the
law only once, so an article right after a closing quote that is itself followed by 规定 or a quote continues the
last law named; references inside a quotation belong to the quoted provision and are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from steps.j1.extract.laws import ABBREVIATIONS, INTERPRETATIONS, canonical_law
from steps.j1.extract.model import Issue, IssueKind, Statute
from steps.j1.extract.numerals import to_int

_N = r"[零〇一二两三四五六七八九十百千\d]+"
# 第 is sometimes dropped (三百零七条之一, 第三百四十七条一、四款); a numeral before 条/款/项 is enough in a chain
_ARTICLE = re.compile(
    rf"(?:第+({_N}(?:[、，,和及]第?{_N})*)|({_N}(?:[、，,和及]{_N})*))(?:条|(?=第{_N}款))(?:之({_N}))?"
)  # 第六十七第三款: a 条 dropped before the paragraph
_PARAGRAPH = re.compile(rf"第*({_N}(?:[、，,和及]第?{_N})*)款")
_ITEM_NUM = rf"[（(]?{_N}[）)]?"
_ITEM = re.compile(rf"第*({_ITEM_NUM}(?:[、，,和及]第?{_ITEM_NUM})*)项")
# a gloss after a reference: 第二百四十五条（非法侵入住宅罪）, 第二百三十六条［强奸罪］, 第六十七条坦白、第四十二条…
_GLOSS = re.compile(
    r"\s*[（(［【\[](?![零一二三四五六七八九十百]+[）)］】\]])[^（）()［］【】\[\]\d]{1,20}[）)］】\]](?![项款条])"
    r"|[^\s\d，,。；;、第《》“”（）()]{1,12}(?=、第)"
)
_RANGE = re.compile(rf"[至到\-－~～]第?({_N})条")
# a stray 第 before the separator (第三十四条第、第三十六条) is a typo, not a reference
_SEP = re.compile(r"\s*(?:第(?=[、，,]))?(?:以及|、|，|,|；|;|和|及|与|或者|或)?\s*")
# a version or issuance tag after the name: （2015年修正）, （法释〔2009〕8号）, （2020年12月23日…通过）
_VERSION_TAG = re.compile(r"\s*[（(【]\s*(?:\d{4}|法释|法发|法〔|主席令)[^（）()【】]{0,30}[）)】]")
_BARE_NAMES = sorted({*ABBREVIATIONS, *INTERPRETATIONS}, key=len, reverse=True)
_BARE = re.compile(rf"(?:中华人民共和国)?(?:{'|'.join(_BARE_NAMES)})(?=\s*(?:[（(]\s*\d{{4}}[^）)]*[）)])?\s*第)")
_BARE_INTERPRETATION = re.compile(
    r"(?<![《〈])最高人民(?:法院|检察院)[^。；，：:“”《》\s第]{0,40}?(?:《[^》]{2,30}》[^。；，：:“”《》\s第]{0,30}?)?"
    r"(?:解释|规定|意见|批复)(?:（[一二三四五六七八九十]+）)?"
)
_SAME_LAW = re.compile(r"(?:该法|同法|该解释|该规定|该条例|上述法律)(?=第)")
_QUOTED_CONTINUATION = re.compile(
    rf"(?<=[”」])\s*[、，,及和]?\s*(?=第{_N}条(?:之{_N})?(?:第{_N}款)?(?:第{_ITEM_NUM}项)?(?:规定|[：:]?“))"
)
MAX_RANGE = 30


@dataclass(frozen=True)
class LawMention:
    """A law named in the text: [start, end) of the name and its canonical name (None: a title but not a law).

    `inferred` marks a name completed by rule (an interpretation whose inner title was lost).
    """

    start: int
    end: int
    law: str | None
    inferred: bool = False


def title_spans(text: str) -> Iterator[tuple[int, int]]:
    """Outermost 《…》 spans, allowing nested titles (《最高人民法院关于适用《中华人民共和国民事诉讼法》的解释》)."""
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "《":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "》" and depth:
            depth -= 1
            if depth == 0:
                yield start, i + 1
        elif ch in "。\n" and depth:
            depth = 0  # an unclosed title never runs past a sentence


_ISSUER = re.compile(r"(?:最高人民(?:法院|检察院)[、，和与]?)+$")


def _issuer_start(text: str, start: int) -> int:
    """Where the issuer written before a title begins (最高人民法院、最高人民检察院《关于…的解释》)."""
    m = _ISSUER.search(text, max(0, start - 20), start)
    return m.start() if m else start


def law_mentions(text: str, *, empty_inner: str | None = None) -> list[LawMention]:
    """Every law mention in `text`, in order; 该法/同法 resolve to the preceding law."""
    mentions: list[LawMention] = []
    taken = [False] * len(text)
    # an interpretation without outer marks contains a titled law: it is read first and the title inside it skipped
    titles = list(title_spans(text))
    spans = [
        (m.start(), m.end())
        for m in _BARE_INTERPRETATION.finditer(text)
        if not any(a <= m.start() < b for a, b in titles)
    ]
    spans += [(_issuer_start(text, a), b) for a, b in titles] + [(m.start(), m.end()) for m in _BARE.finditer(text)]
    for start, end in spans:
        if not any(taken[start:end]):
            law = canonical_law(text[start:end], empty_inner=empty_inner)
            inferred = law is not None and law != canonical_law(text[start:end])
            mentions.append(LawMention(start, end, law, inferred))
            taken[start:end] = [True] * (end - start)
    mentions.sort(key=lambda x: x.start)
    for m in _SAME_LAW.finditer(text):
        previous = [x for x in mentions if x.end <= m.start() and x.law]
        if previous:
            mentions.append(LawMention(m.start(), m.end(), previous[-1].law, previous[-1].inferred))
    return sorted(mentions, key=lambda x: x.start)


def _numbers(group: str) -> list[int | None]:
    return [to_int(x) for x in re.split(r"[、，,和及]第?", group)]


_LEAD = re.compile(r"\s*(?:的|》)?\s*")


def _skip(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where `pattern`, which also matches nothing, ends when matched at `pos`."""
    m = pattern.match(text, pos)
    return m.end() if m else pos


def parse_chain(text: str, pos: int, law: str) -> tuple[list[Statute], int, list[Issue]]:
    """The citations in the chain starting at `pos` (just after the law name) and where the chain ends."""
    out: list[Statute] = []
    issues: list[Issue] = []
    if m := _VERSION_TAG.match(text, pos):
        pos = m.end()
    # 的 before the chain; a stray 》 after a bare interpretation whose opening mark is missing
    pos = _skip(_LEAD, text, pos)
    last_article: Statute | None = None
    while True:
        article = _ARTICLE.match(text, pos)
        paragraph = _PARAGRAPH.match(text, pos)
        item = _ITEM.match(text, pos)
        if article:
            parsed = _numbers(article.group(1) or article.group(2))
            sub = to_int(article.group(3)) if article.group(3) else None
            pos = article.end()
            if None in parsed:
                issues.append(Issue("statutes", IssueKind.UNPARSED, f"article number in {article.group(0)}"))
            numbers = [n for n in parsed if n is not None]
            if rng := _RANGE.match(text, pos):
                last = to_int(rng.group(1))
                if numbers and last and 0 < last - numbers[-1] <= MAX_RANGE:
                    numbers += list(range(numbers[-1] + 1, last + 1))
                else:
                    issues.append(Issue("statutes", IssueKind.AMBIGUOUS, f"range not expanded: {article.group(0)}"))
                pos = rng.end()
            new = [Statute(law=law, article=n, sub_article=sub if n == numbers[-1] else None) for n in numbers]
            out += new
            last_article = new[-1] if new else last_article
        elif paragraph and last_article is not None:
            pos = paragraph.end()
            out += _refine(out, last_article, "paragraph", _numbers(paragraph.group(1)))
            last_article = out[-1]
        elif item and last_article is not None:
            pos = item.end()
            out += _refine(out, last_article, "item", _numbers(re.sub(r"[（()）]", "", item.group(1))))
            last_article = out[-1]
        else:
            break
        end = pos
        if gloss := _GLOSS.match(text, pos):
            pos = gloss.end()
        probe = _skip(_SEP, text, pos)
        if not any(p.match(text, probe) for p in (_ARTICLE, _PARAGRAPH, _ITEM)):
            return out, end, issues
        pos = probe
    return out, pos, issues


def _refine(out: list[Statute], base: Statute, level: str, numbers: list[int | None]) -> list[Statute]:
    """Sub-references of `base`: the first replaces `base` when it was bare, the rest are added."""
    base_bare = getattr(base, level) is None
    if level == "paragraph":
        new = [replace(base, paragraph=n, item=None) for n in numbers if n is not None]
    else:
        new = [replace(base, item=n) for n in numbers if n is not None]
    if base_bare and out and out[-1] is base:
        out.pop()
    return new


_BASIS = re.compile(r"依照|依据|根据|按照|适用|援引")


def is_basis(text: str, start: int) -> bool:
    """A citation in a clause that applies the law (依照《…》第…条之规定), not a quotation or a discussion."""
    sentence_start = max(text.rfind(c, 0, start) for c in "。；;\n") + 1
    return bool(_BASIS.search(text, sentence_start, start))


def quoted(text: str) -> list[bool]:
    """For each character, whether it is inside “…” (a quoted provision); a quote never runs past a line."""
    inside, depth = [False] * len(text), 0
    for i, ch in enumerate(text):
        if ch in "“「":
            depth += 1
        elif ch in "”」" and depth:
            depth -= 1
        elif ch == "\n":
            depth = 0
        inside[i] = depth > 0
    return inside


def find_statutes(text: str, *, empty_inner: str | None = None) -> tuple[list[tuple[int, Statute]], list[Issue]]:
    """All citations in `text` with their offsets, in order of appearance.

    References inside a quoted provision (“…依照合同法第二百一十条…”) belong to the quoted text, not to the court.
    """
    found: list[tuple[int, Statute]] = []
    issues: list[Issue] = []
    in_quote = quoted(text)
    mentions = law_mentions(text, empty_inner=empty_inner)
    for mention in mentions:
        if mention.law is None or in_quote[mention.start]:
            continue
        chain, _, chain_issues = parse_chain(text, mention.end, mention.law)
        basis = is_basis(text, mention.start)
        found += [(mention.start, replace(s, basis=basis, inferred=mention.inferred)) for s in chain]
        issues += chain_issues
    for m in _QUOTED_CONTINUATION.finditer(text):
        previous = [x for x in mentions if x.end <= m.start() and x.law]
        if previous and (law := previous[-1].law):
            chain, _, chain_issues = parse_chain(text, m.end(), law)
            found += [(m.end(), replace(s, inferred=previous[-1].inferred)) for s in chain]
            issues += chain_issues
    found.sort(key=lambda x: x[0])
    return found, issues


_HEADING = re.compile(rf"(?:^|(?<=[\s》：:])|(?<=\d、))第({_N})条(?:之({_N}))?(?:第({_N})款)?")


def _opens_entry(appendix: str, mention: LawMention) -> bool:
    """A law title that opens an appendix entry: in title marks, at the start of a line or after an enumerator."""
    name = appendix[mention.start : mention.end]
    before = appendix[max(0, mention.start - 16) : mention.start]
    titled = "《" in name
    return titled and (mention.start == 0 or bool(re.search(r"(?:^|[\s：:、.．）)]|最高人民\S{0,12})$", before)))


def find_appendix_statutes(appendix: str) -> list[tuple[int, Statute]]:
    """Articles listed in a 附：相关法律条文 appendix.

    An entry is either a law name with its chain (1、《中华人民共和国刑法》第七十二条第一款、第三款) or an article
    heading that opens a line under the last law title (《中华人民共和国刑法》 第二百六十六条诈骗公私财物…).
    References inside the quoted provisions (依照刑法第三百五十四条的规定) are part of the law's text, not
    citations by the court, and are skipped.
    """
    found: list[tuple[int, Statute]] = []
    consumed: list[tuple[int, int]] = []
    mentions = [m for m in law_mentions(appendix) if m.law and _opens_entry(appendix, m)]
    for mention in mentions:
        if mention.law is None:  # never: `mentions` are those with a law
            continue
        chain, end, _ = parse_chain(appendix, mention.end, mention.law)
        found += [(mention.start, s) for s in chain]
        consumed.append((mention.start, end))
    for m in _HEADING.finditer(appendix):
        previous = [x for x in mentions if x.end <= m.start()]
        if not previous or any(a <= m.start() < b for a, b in consumed):
            continue
        sub = to_int(m.group(2)) if m.group(2) else None
        paragraph = to_int(m.group(3)) if m.group(3) else None
        if (article := to_int(m.group(1))) is not None and (law := previous[-1].law):
            statute = Statute(law=law, article=article, sub_article=sub, paragraph=paragraph)
            found.append((m.start(), statute))
    found.sort(key=lambda x: x[0])
    return found
