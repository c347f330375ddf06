"""Topic lists for KQ and LC, derived by rule from Q&A material with known answers (spec j1-envs §3.4).

J1 builds ⟨topic, answer⟩ lists from a practice book (KQ) and 66law.cn articles (LC) that are not public.
We derive them, without a model, from LawBench items whose answers are known:

- KQ, judgement questions (LawBench 1-2, JEC-QA single choice): a question that asks which *statement* is
  correct (or incorrect) gives one yes/no topic per option: 是 for a true statement, 否 for a false one (the
  polarity is inverted when the question asks for the incorrect statement). The theme is what the question is
  about (关于…). Questions whose options are not statements (下列哪一项属于…) are not used.
- KQ, statute knowledge (LawBench 1-1): articles of one law form one instance (theme: the law); each is an
  open-ended topic whose answer is the article's text (a legal phrase, judged by I-2's LLM judge).
- LC (LawBench 3-8, 66law.cn consultations, the site J1's LC comes from): the question is the client's
  background; the answer gives an open topic (what to do → the answer's core), a statute topic (its 法律依据,
  parsed to law + article, scored by rule), and a yes/no topic when the client asked a yes/no question and the
  answer opens with a yes or a no.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from steps.j1.extract.statutes import find_statutes

BINARY, OPEN_STATUTE, OPEN_PHRASE = "binary", "open_statute", "open_phrase"


@dataclass(frozen=True)
class Topic:
    topic: str
    kind: str  # binary | open_statute | open_phrase
    answer: str
    statutes: tuple[tuple[str, int], ...] = ()

    def as_dict(self) -> dict:
        laws = [{"law": law, "article": article, "sub_article": None} for law, article in self.statutes]
        return {"topic": self.topic, "kind": self.kind, "answer": self.answer, "statutes": laws}


@dataclass(frozen=True)
class TopicSource:
    scenario: str  # KQ | LC
    source_id: str
    theme: str
    background: str  # LC: the client's situation; KQ: empty
    topics: tuple[Topic, ...]
    derivation: str
    items: tuple[str, ...]  # the LawBench item ids it comes from


_CHOICE_Q = re.compile(r"^(?P<stem>.+?)(?P<opts>A[:：].+)$", re.S)
_OPTION = re.compile(r"([A-D])[:：](.+?)(?=;?[A-D][:：]|$)", re.S)
_CORRECT = re.compile(r"正确答案[:：]\s*([A-D])")
_STATEMENT = r"(?:说法|表述|选项|观点|判断|理解|论述|提法|做法|认识)"
_ASKS_FALSE = re.compile(
    rf"{_STATEMENT}[^。？?]{{0,8}}(?:不正确|错误|不准确|不成立|不符合|有误|不妥)|"
    rf"(?:不正确|错误|不准确)的(?:是|有)"
)
_ASKS_TRUE = re.compile(rf"{_STATEMENT}[^。？?]{{0,8}}(?:正确|准确|成立|符合)|正确的(?:是|有)")
_ABOUT = re.compile(rf"关于([^，。？?]{{2,40}}?)(?:的(?:哪|下列|以下|{_STATEMENT})|[，,](?:下列|以下|哪))")
_MIN_OPTION = 8  # characters: shorter options are names or terms, not statements


def kq_from_choices(items: list[dict]) -> list[TopicSource]:
    """One 1-2 question that asks for the true (or false) statement → one instance of yes/no topics."""
    sources = []
    for item in items:
        m, correct = _CHOICE_Q.match(item["question"].strip()), _CORRECT.search(item["answer"])
        if not m or not correct:
            continue
        stem = m.group("stem").strip()
        asks_false = bool(_ASKS_FALSE.search(stem))
        if not asks_false and not _ASKS_TRUE.search(stem):
            continue
        options = [(letter, text.strip().rstrip("。;；")) for letter, text in _OPTION.findall(m.group("opts"))]
        if len(options) < 3 or any(len(text) < _MIN_OPTION for _, text in options):
            continue
        about = _ABOUT.search(stem)
        theme = about.group(1) if about else re.split(r"[，,]?(?:下列|以下|哪)", stem)[0].strip("，,。 ")
        if not 2 <= len(theme) <= 60:
            continue
        topics = tuple(
            Topic(f"“{text}”，这种说法对吗", BINARY, "是" if (letter == correct.group(1)) != asks_false else "否")
            for letter, text in options
        )
        derivation = "lawbench 1-2: options of one question" + (" (asks for the false statement)" * asks_false)
        sources.append(TopicSource("KQ", item["item_id"], theme, "", topics, derivation, (item["item_id"],)))
    return sources


_LAW_CATEGORY = re.compile(r"^(宪法相关法|民法商法|行政法|经济法|社会法|刑法|诉讼与非诉讼程序法|宪法)")
_ARTICLE_Q = re.compile(r"^(?P<law>.+?)第(?P<art>[零一二三四五六七八九十百千两]+)条(?:之一)?的内容是什么")


def _article_text(answer: str) -> str:
    """An article as LawBench 1-1 stores it (答案:…, items joined with ",") in plain form."""
    text = answer.removeprefix("答案:").strip()
    return text.replace(":,", "：").replace("；,", "；").replace("。,", "。")


def kq_from_articles(items: list[dict], per_instance: int = 4) -> list[TopicSource]:
    """1-1 items grouped by law, `per_instance` articles per instance in item order (a group needs two)."""
    by_law: dict[str, list[dict]] = {}
    for item in items:
        m = _ARTICLE_Q.match(item["question"])
        if m:
            law = _LAW_CATEGORY.sub("", m.group("law")) or m.group("law")
            by_law.setdefault(law, []).append({**item, "article_zh": m.group("art")})
    sources = []
    for law, group in by_law.items():
        for start in range(0, len(group), per_instance):
            chunk = group[start : start + per_instance]
            if len(chunk) < 2:
                continue
            topics = tuple(
                Topic(
                    f"《{law}》第{g['article_zh']}条是怎么规定的",
                    OPEN_PHRASE,
                    _article_text(g["answer"]),
                )
                for g in chunk
            )
            ids = tuple(g["item_id"] for g in chunk)
            sources.append(
                TopicSource("KQ", ids[0], f"《{law}》的有关规定", "", topics, "lawbench 1-1: articles of one law", ids)
            )
    return sources


# Modal verbs a yes/no question turns on, grouped by meaning; the answer must answer with the same group.
_MODALS = (
    ("可以", "能够", "能", "可"),
    ("需要", "必须", "应当", "应该", "要"),
    ("有权",),
    ("会",),
    ("有效",),
    ("构成",),
    ("属于",),
    ("合法",),
    ("影响",),
)
_NEGATIONS = ("不", "无", "没", "没有", "未")
_HEDGES = ("可能", "一般", "视", "要看", "取决于", "不一定", "如果", "若", "具体")
_CLAUSE = re.compile(r"[^，,。；;！!？?]+")
_YES_NO_Q = re.compile(
    r"[^。？?！!，,；;]*(?:能不能|可不可以|是否|能否|算不算|有没有|会不会|要不要|[^。]吗)[^。？?！!，,；;]*[？?]?"
)
_TAGS = re.compile(r"<[^>]+>")
_TAIL = re.compile(r"(?:律师解答|律师补充|拓展延伸|相关知识|【?温馨提示).*$", re.S)


def _yes_no_question(question: str) -> str | None:
    asked = [q.strip(" ，,") for q in _YES_NO_Q.findall(question) if 4 <= len(q.strip(" ，,？?")) <= 40]
    return asked[-1].rstrip("？?") + "？" if asked else None


def answer_polarity(asked: str, core: str) -> str | None:
    """是 or 否 when the answer's first clause answers the question's own modal verb plainly, else None.

    "还可以要求退租吗？" answered "…能退…" is 是, "…不能退…" is 否; an answer that opens with something else, or
    hedges (可能, 一般, 视情况…), gives no yes/no topic.
    """
    first = next(iter(_CLAUSE.findall(core)), "")
    if len(first) > 30 or any(h in first for h in _HEDGES):
        return None
    for group in _MODALS:
        if not any(w in asked for w in group):
            continue
        for word in group:
            at = first.find(word)
            if at >= 0:
                return "否" if first[:at].endswith(_NEGATIONS) else "是"
    return None


def lc_from_consultations(items: list[dict]) -> list[TopicSource]:
    """One 3-8 consultation → one LC instance: background + open, statute and (maybe) yes/no topics."""
    sources = []
    for item in items:
        answer = _TAGS.sub("\n", item["answer"]).removeprefix("回答:").strip()
        core, _, basis = answer.partition("法律依据:")
        core, basis = core.strip(), _TAIL.sub("", basis).strip()
        question = item["question"].strip()
        if not core or len(question) < 10:
            continue
        topics = [Topic("我这种情况应该怎么处理", OPEN_PHRASE, core)]
        found = find_statutes(basis)[0] if basis else []
        cited = tuple(dict.fromkeys((s.law.strip("《》"), s.article) for _, s in found))[:3]
        if cited:
            answer_text = "；".join(f"《{law}》第{article}条" for law, article in cited)
            topics.append(Topic("这件事具体可以依据哪些法律条文", OPEN_STATUTE, answer_text, cited))
        asked = _yes_no_question(question)
        polarity = answer_polarity(asked, core) if asked else None
        if asked and polarity:
            topics.insert(0, Topic(asked, BINARY, polarity))
        sources.append(
            TopicSource(
                "LC",
                item["item_id"],
                question[:30],
                question,
                tuple(topics),
                "lawbench 3-8: a 66law.cn consultation",
                (item["item_id"],),
            )
        )
    return sources
