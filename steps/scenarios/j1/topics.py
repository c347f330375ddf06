"""Topic lists for KQ and LC, derived deterministically from Q&A material we have (spec j1-envs §3.4).

J1 builds ⟨topic, answer⟩ lists from a practice book (KQ) and 66law.cn articles (LC) that are not public.
We derive them from public Q&A with known answers, without a model:

- KQ, statute knowledge: LawBench 1-1 asks for the text of one article of a law; articles of the same law
  form one instance (theme = the law), each an open-ended topic whose answer is the article's text.
- KQ, judgement questions: LawBench 1-2 (JEC-QA single choice); each option of one question becomes a
  binary topic (是 for the correct option, 否 for the others), under the question's stem as the theme.
- LC: LawBench 3-8 are 66law.cn consultations (the site J1's LC comes from): the question is the client's
  background; the answer gives an open-ended topic (what should I do → the answer's core), a statute topic
  (its 法律依据, parsed to law + article), and a binary topic when the answer opens with a yes or a no.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from steps.extract.statutes import find_statutes

BINARY, OPEN_STATUTE, OPEN_PHRASE = "binary", "open_statute", "open_phrase"


@dataclass(frozen=True)
class Topic:
    topic: str
    kind: str  # binary | open_statute | open_phrase
    answer: str
    statutes: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class TopicSource:
    source_id: str  # lawbench item ids the topics come from
    theme: str
    background: str  # LC: the client's situation; KQ: empty
    topics: tuple[Topic, ...]
    derivation: str
    field_hint: str = ""  # words that suggest an occupation (KQ)
    items: tuple[str, ...] = field(default_factory=tuple)


_LAW_CATEGORY = re.compile(r"^(宪法相关法|民法商法|行政法|经济法|社会法|刑法|诉讼与非诉讼程序法|宪法)")
_ARTICLE_Q = re.compile(r"^(?P<law>.+?)第(?P<art>[零一二三四五六七八九十百千两]+)条(?:之一)?的内容是什么")


def kq_from_articles(items: list[dict], per_instance: int = 4) -> list[TopicSource]:
    """Group 1-1 items by law, `per_instance` articles per instance, in item order."""
    by_law: dict[str, list[dict]] = {}
    for item in items:
        m = _ARTICLE_Q.match(item["question"])
        if not m:
            continue
        law = _LAW_CATEGORY.sub("", m.group("law")) or m.group("law")
        by_law.setdefault(law, []).append({**item, "article_zh": m.group("art")})
    sources = []
    for law, group in by_law.items():
        for start in range(0, len(group) - 1, per_instance):
            chunk = group[start : start + per_instance]
            if len(chunk) < 2:
                continue
            topics = tuple(
                Topic(
                    f"《{law}》第{g['article_zh']}条是怎么规定的",
                    OPEN_PHRASE,
                    g["answer"].removeprefix("答案:").strip(),
                )
                for g in chunk
            )
            sources.append(
                TopicSource(
                    f"lawbench/1-1/{chunk[0]['idx']}",
                    f"《{law}》的有关规定",
                    "",
                    topics,
                    "lawbench 1-1: articles of one law",
                    field_hint=law,
                    items=tuple(g["item_id"] for g in chunk),
                )
            )
    return sources


_CHOICE_Q = re.compile(r"^(?P<stem>.+?)(?P<opts>A[:：].+)$", re.S)
_OPTION = re.compile(r"([A-D])[:：](.+?)(?=;?[A-D][:：]|$)", re.S)
_CORRECT = re.compile(r"正确答案[:：]\s*([A-D])")


def kq_from_choices(items: list[dict]) -> list[TopicSource]:
    """One 1-2 question → one instance whose topics are its options, each a yes/no topic."""
    sources = []
    for item in items:
        m, correct = _CHOICE_Q.match(item["question"].strip()), _CORRECT.search(item["answer"])
        if not m or not correct:
            continue
        options = [(letter, text.strip().rstrip("。;；")) for letter, text in _OPTION.findall(m.group("opts"))]
        if len(options) < 3:
            continue
        stem = m.group("stem").strip().rstrip("?？")
        # The stem is the instance's theme, which the client states first; each topic is one option.
        topics = tuple(
            Topic(f"“{text}”，这样说对吗", BINARY, "是" if letter == correct.group(1) else "否")
            for letter, text in options
        )
        sources.append(
            TopicSource(
                item["item_id"],
                stem,
                "",
                topics,
                "lawbench 1-2: options of one question",
                field_hint=stem,
                items=(item["item_id"],),
            )
        )
    return sources


_YES = ("可以", "能够", "能", "应当", "应该", "需要", "是的", "有权", "构成", "属于", "合法", "有效")
_NO = ("不可以", "不能", "不应当", "不应该", "不需要", "不是", "无权", "不构成", "不属于", "不合法", "无效", "没有")
_TAGS = re.compile(r"<[^>]+>")


def lc_from_consultations(items: list[dict]) -> list[TopicSource]:
    """One 3-8 consultation → one LC instance: background + open, statute and (maybe) binary topics."""
    sources = []
    for item in items:
        answer = _TAGS.sub("\n", item["answer"]).removeprefix("回答:").strip()
        core, _, basis = answer.partition("法律依据:")
        core, basis = core.strip(), basis.strip()
        if not core:
            continue
        topics = [Topic("我这种情况应该怎么处理，法律上是怎么规定的", OPEN_PHRASE, core)]
        found = find_statutes(basis)[0] if basis else []
        cited = tuple(dict.fromkeys((s.law, s.article) for _, s in found))[:3]
        if cited:
            topics.append(
                Topic(
                    "这件事有哪些具体的法律条文可以依据",
                    OPEN_STATUTE,
                    "；".join(f"{law}第{article}条" for law, article in cited),
                    cited,
                )
            )
        head = core[:6]
        if head.startswith(_NO):
            topics.insert(0, Topic("我的诉求在法律上能不能得到支持", BINARY, "否"))
        elif head.startswith(_YES):
            topics.insert(0, Topic("我的诉求在法律上能不能得到支持", BINARY, "是"))
        question = item["question"].strip()
        sources.append(
            TopicSource(
                item["item_id"],
                question[:30],
                question,
                tuple(topics),
                "lawbench 3-8: a 66law.cn consultation",
                items=(item["item_id"],),
            )
        )
    return sources
