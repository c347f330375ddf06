"""Level II (CD, DD): II-1 format following, the drafted document's sections, and the II-2 combination.

II-1 = Seq × Label (spec j1-envs §5.5, Eq. 1). Label is the share of the template's labels written exactly as
the template writes them; a label with the template's parenthetical copied (原告（自然人）：), a renamed or a
split label (证据和证据来源： … 证人姓名和住所：) does not count. Seq is 1 when the labels the document has, in
whatever form, come in the template's order: a decorated label is still found for the order check, and a
missing label costs Label only, not Seq as well. Markdown emphasis and headings are ignored, and an ASCII colon
counts as the full-width one: neither is a format error the paper names.

The same labels cut the document into sections for II-2; a section that is empty or only a placeholder
(……, 待补充) is missing and scores 0 without a judge (§5.6).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from steps.j1.envs.common.documents import COMPLAINT_LABELS

_PAREN = r"(?:[（(][^）)\n]{0,20}[）)])?"
_EVIDENCE = "证据和证据来源，证人姓名和住所："


@dataclass(frozen=True)
class Label:
    key: str
    exact: re.Pattern[str]  # the label as the template writes it
    loose: re.Pattern[str]  # the label however it is decorated


@dataclass(frozen=True)
class DocumentFormat:
    name: str
    labels: tuple[Label, ...]
    llm_components: Mapping[str, str]  # II-2 component -> section judged against the case
    em_components: Mapping[str, str]  # II-2 component -> party section matched field by field

    @property
    def components(self) -> tuple[str, ...]:
        return tuple(self.em_components) + tuple(self.llm_components)


def _literal(text: str) -> re.Pattern[str]:
    return re.compile(re.escape(text))


_PLAINTIFF, _DEFENDANT, _CLAIMS, _FACTS, _EVIDENCE_LABEL = COMPLAINT_LABELS
assert _EVIDENCE_LABEL == _EVIDENCE, "the complaint template's evidence label changed"
_EVIDENCE_LOOSE = re.compile(r"证据(?:和|及|与|、)?证据来源[^\n]{0,20}?[：:]|证据(?:清单|目录)?[：:]")

COMPLAINT = DocumentFormat(
    name="complaint",
    labels=(
        Label("plaintiff", _literal(_PLAINTIFF), re.compile(rf"原告{_PAREN}\s*[：:]")),
        Label("defendant", _literal(_DEFENDANT), re.compile(rf"被告{_PAREN}\s*[：:]")),
        Label("claims", _literal(_CLAIMS), re.compile(r"诉讼请求[^\n：:]{0,6}[：:]")),
        Label("facts", _literal(_FACTS), re.compile(r"事实(?:和|与|及|、)理由[^\n：:]{0,6}[：:]")),
        Label("evidence", _literal(_EVIDENCE), _EVIDENCE_LOOSE),
    ),
    llm_components={"CLA": "claims", "EVI": "evidence", "F&R": "facts"},
    em_components={"PLA": "plaintiff", "DEF": "defendant"},
)

# k = 3 (spec §9.3-12): 答辩人, the case-reference sentence and the evidence label, in that order. The reference
# sentence must name the court and end as the template does; the template's own instruction copied (写明…) fails.
DEFENCE = DocumentFormat(
    name="defence",
    labels=(
        Label("respondent", _literal("答辩人："), re.compile(rf"答辩人{_PAREN}\s*[：:]")),
        Label(
            "reference",
            re.compile(r"对(?:(?!写明)[^\n。])*?人民法院(?:(?!写明)[^\n。])*?一案的起诉[，,]答辩如下："),
            re.compile(r"对[^\n。]{0,150}?答辩如下[：:]?|答辩如下[：:]?"),
        ),
        Label("evidence", _literal(_EVIDENCE), _EVIDENCE_LOOSE),
    ),
    llm_components={"DEF": "arguments", "EVI": "evidence"},
    em_components={"RES": "respondent"},
)

# the body between the reference sentence and the evidence has no label of its own
_BODY_AFTER = {"reference": "arguments"}
# the closing after the last section (此致 … 具状人/答辩人 signature, date, attachments)
_CLOSING = re.compile(r"\n\s*(?:此致|具状人|答辩人[：:]|附[：:]|附件|[（(]?签名|日期[：:])")
_PLACEHOLDERS = {"待补充", "此处留空待补充", "略", "xxx", "xxxx", "暂无待补充"}


def clean(document: str) -> str:
    """Markdown emphasis and heading marks removed, ASCII colons made full-width."""
    text = re.sub(r"\*\*|__|^\s*#+\s*", "", document, flags=re.M)
    return text.replace(":", "：")


@dataclass(frozen=True)
class FormatScore:
    """II-1 of one document."""

    value: float
    seq: int
    label: float
    exact: tuple[str, ...]  # label keys written exactly
    order: tuple[str, ...]  # label keys found in any form, in document order
    missing: tuple[str, ...]  # label keys not found in any form


def _positions(text: str, fmt: DocumentFormat) -> dict[str, re.Match[str]]:
    """The first match of each label in any form."""
    found: dict[str, re.Match[str]] = {}
    for label in fmt.labels:
        if m := label.loose.search(text):
            found[label.key] = m
    return found


def format_following(document: str | None, fmt: DocumentFormat) -> FormatScore:
    """II-1 = Seq × Label for a drafted document (None: no document, 0)."""
    keys = tuple(label.key for label in fmt.labels)
    if not document:
        return FormatScore(0.0, 0, 0.0, (), (), keys)
    text = clean(document)
    found = _positions(text, fmt)
    # judged where the label stands: a signature 答辩人：XXX at the end does not make up for a decorated heading
    exact = tuple(
        label.key for label in fmt.labels if label.key in found and label.exact.fullmatch(found[label.key][0])
    )
    order = tuple(sorted(found, key=lambda k: found[k].start()))
    seq = int(bool(order) and order == tuple(k for k in keys if k in found))
    label_share = len(exact) / len(keys)
    return FormatScore(seq * label_share, seq, label_share, exact, order, tuple(k for k in keys if k not in found))


def _content(part: str) -> str | None:
    part = part.strip(" \n\t：:")
    core = re.sub(r"[\s\W_…]+", "", part).lower()
    return part if core and core not in _PLACEHOLDERS else None


def document_sections(document: str | None, fmt: DocumentFormat) -> dict[str, str | None]:
    """Each section's text, cut at the labels in any form; None for a section missing or only a placeholder."""
    keys = [label.key for label in fmt.labels]
    names = keys + [body for key, body in _BODY_AFTER.items() if key in keys]
    sections: dict[str, str | None] = dict.fromkeys(names)
    if not document:
        return sections
    text = clean(document)
    found = sorted(_positions(text, fmt).items(), key=lambda kv: kv[1].start())
    closing = _CLOSING.search(text, found[-1][1].end()) if found else None
    end = closing.start() if closing else len(text)
    for (key, m), nxt in zip(found, [*found[1:], None], strict=False):
        stop = nxt[1].start() if nxt else end
        if key in _BODY_AFTER:
            sections[key] = _content(m.group(0))
            sections[_BODY_AFTER[key]] = _content(text[m.end() : max(stop, m.end())])
        else:
            sections[key] = _content(text[m.end() : max(stop, m.end())])
    return sections


def document_score(components: Mapping[str, float | None]) -> float | None:
    """II-2 of one document: the plain mean of its components (spec §5.2); None if any was not scored.

    The components measure different things, so the mean of a subset would be a different metric: a document
    with a failed judge component is unscored and counted, not averaged over what remains.
    """
    values = [v for v in components.values() if v is not None]
    if not values or len(values) < len(components):
        return None
    return sum(values) / len(values)
