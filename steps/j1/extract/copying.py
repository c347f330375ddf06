"""Rules that cut section text into the items the scripted extraction answer copies: sentences, numbered
items, listed evidence and who offered it, and the statements of each side.

They are deliberately simple: the scripted model is an offline stand-in whose every value is a verbatim copy
of the document, so its answers are grounded by construction and labelled `scripted` in every table.
"""

from __future__ import annotations

import re

from steps.j1.extract.grounding import normalise

_TRIM = " 。；;，,\n"
_SENTENCE_END = re.compile(r"(?<=[。；;！？!?\n])")
_ENUMERATOR = re.compile(
    r"(?:^|(?<=[\n；;。：:]))\s*(?:\d{1,2}\s*[.、．,，]|[（(]\d{1,2}[）)]|[一二三四五六七八九十]{1,3}、|证据[一二三四五六七八九十\d]+[：:、，,]?)"
)
_PROVES = re.compile(r"[，,。；;]?\s*(?:拟|以|用以|用于|欲|来)?(?:证明|证实)")
_SIDES = {"原告": "plaintiff", "被告": "defendant", "第三人": "third_party"}
_SIDE = re.compile("|".join(_SIDES))
_OFFERED = re.compile(r"(原告|被告|第三人)[^。；\n]{0,30}?(?:提交|提供|举示|出示|举证)")
_OFFERED_LIST = re.compile(
    r"(?:提交|提供|举示|出示)了?(?:如下|以下|下列)?(?:证据)?[：:]?(?P<list>[^。；\n]+?)(?=[，,]?(?:拟|以|用以)?证明|[，,](?:原告|被告|本院|经)|[。；\n]|$)"
)
_COURT_LIST = re.compile(
    r"(?:并有|有|经)(?P<list>[^。；]{2,400}?)(?:等)?(?:证据|材料)?(?:在案|予以|加以|相互)?(?:证实|证明|佐证|为证|印证|在卷)"
)
CROSS_EXAM = re.compile(
    r"质证|(?:对|就)[^。；]{0,30}证据[^。；]{0,30}(?:无异议|有异议|不予认可|认可|真实性|关联性|合法性)"
)
OTHER = re.compile(r"(原告|被告|第三人)[^，,。；]{0,12}?(?:陈述|称|表示|认可|承认|确认|自认|同意)")


def sentences(text: str | None) -> list[str]:
    """The sentences of a text (ends: 。；！？ or a line break), stripped; empty ones dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text or "") if s.strip(" \n。；;")]


def numbered(text: str | None) -> list[str]:
    """Numbered items (1. / （1） / 一、 / 证据一); a text without numbers is split at ；. Text before the first
    number is an item of its own unless it introduces the list (ends with a colon)."""
    text = (text or "").strip()
    marks = list(_ENUMERATOR.finditer(text))
    if not marks:
        parts = re.split(r"[；;]", text)
    else:
        head = text[: marks[0].start()]
        parts = [] if re.search(r"[：:]\s*$", head) else [head]
        ends = [m.start() for m in marks[1:]] + [len(text)]
        parts += [text[m.end() : end] for m, end in zip(marks, ends, strict=True)]
    return [p.strip(_TRIM) for p in parts if p.strip(_TRIM)]


def after_label(text: str | None, label: str) -> str | None:
    """The text after the first `label` and a colon (诉讼请求：…), or the whole text when there is none."""
    if not text:
        return None
    m = re.search(label + r"[^：:]{0,6}[：:]", text)
    return text[m.end() :].strip() if m else text.strip()


def side_of(sentence: str) -> str | None:
    """plaintiff / defendant / third_party: the party word that comes first in the sentence."""
    m = _SIDE.search(sentence)
    return _SIDES[m.group(0)] if m else None


def listed(text: str) -> list[str]:
    """Items of an inline list (甲的陈述，乙的证言、辨认笔录及照片), split at 、，；."""
    return [x.strip() for x in re.split(r"[、，,；;]", text) if len(normalise(x)) >= 2]


def evidence(text: str | None, default_party: str) -> list[dict]:
    """Evidence items with the side that offered them and, when the text says, what each proves."""
    out: list[dict] = []
    party = default_party
    for line in (x.strip() for x in (text or "").splitlines()):
        if m := _OFFERED.search(line):
            party = _SIDES[m.group(1)]
        items = numbered(line) if _ENUMERATOR.match(line) else []
        if items:
            out += [_item(i, party) for i in items]
        elif m and (listing := _OFFERED_LIST.search(line, m.start())):
            out += [{"party": party, "item": i, "proves": None} for i in listed(listing["list"])]
        elif court := _COURT_LIST.search(line):
            out += [{"party": default_party, "item": i, "proves": None} for i in listed(court["list"])]
    return [e for e in out if e["item"]]


def _item(text: str, party: str) -> dict:
    m = _PROVES.search(text)
    if not m:
        return {"party": party, "item": text.strip(" 。，,"), "proves": None}
    proves = text[m.end() :].strip(" ：:。，,")
    return {"party": party, "item": text[: m.start()].strip(" 。，,"), "proves": proves or None}


def statements(text: str | None, pattern: re.Pattern[str], names: list[str], exclude=None) -> list[dict]:
    """Sentences matching `pattern` as statements of the side named first, with the party when it is named."""
    out = []
    for sentence in sentences(text):
        if not pattern.search(sentence) or (exclude is not None and exclude.search(sentence)):
            continue
        side = side_of(sentence)
        if side is not None:
            out.append({"side": side, "party": first_name(sentence, names), "text": sentence})
    return out


def first_name(sentence: str, names: list[str]) -> str | None:
    """The name in `names` that occurs first in the sentence."""
    found = [(sentence.find(n), n) for n in names if n and n in sentence]
    return min(found)[1] if found else None
