"""`scripted/judge`: a deterministic proxy for every LLM judge, so a whole evaluation runs offline.

Importing this module registers it (for any scenario; the kind of judge comes from the call metadata, which
the judges fill and only scripted models see). It answers in the format the real prompt asks for:
- pointwise: character-bigram F1 between reference and candidate, × 10, rounded;
- stages: for each turn, the stage whose cues (`courts.yaml`) the judge's words hit most; a turn without cues
  stays in the stage before; 本院认为 marks the judgment;
- checklist: in each turn the item of the unit's stage whose cue comes first is done (first action per turn);
  items of other stages are No;
- rubric: see `steps.judges.rubric_proxy` (key phrases or reference bigrams per award item; fails and
  penalties only by the absence of their key phrases);
- pairwise: the response closer to the metadata's `reference` (bigram F1), or without one the longer, wins;
  within 5 % it is a tie;
- penalties (PLawBench T1, opt-in): every question holding one of the metadata's `vague_cues` is a vague
  "are you hiding something" probe (3 points, quoted); nothing else is flagged: the proxy cannot judge harm.
Every number it produces is a proxy and is marked so (`Judgement.proxy`). It orders an oracle above a null
agent; it does not measure legal quality.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Any

from steps.judges.courts import Court, court
from steps.judges.rubric_proxy import rubric
from steps.llm import ScriptedRequest, register_policy

TIE_MARGIN = 0.05


def _bigrams(text: str) -> Counter[str]:
    chars = [ch for ch in text if ch.isalnum()]
    return Counter(a + b for a, b in itertools.pairwise(chars))


def overlap(reference: str, candidate: str) -> float:
    """F1 of the character bigrams (alphanumeric characters only) of two texts; 0 when either is empty."""
    ref, cand = _bigrams(reference), _bigrams(candidate)
    common = sum((ref & cand).values())
    if not common:
        return 0.0
    precision, recall = common / sum(cand.values()), common / sum(ref.values())
    return 2 * precision * recall / (precision + recall)


def coverage(source: str, response: str) -> float:
    """Share of `source`'s character bigrams found in `response`."""
    wanted, found = _bigrams(source), _bigrams(response)
    return sum((wanted & found).values()) / sum(wanted.values()) if wanted else 0.0


def pointwise(request: ScriptedRequest) -> str:
    f1 = overlap(request.metadata["reference"], request.metadata["candidate"])
    return json.dumps({"score": round(10 * f1), "reason": f"代理评分：字符二元组重合 F1={f1:.2f}"}, ensure_ascii=False)


def _stage_of(c: Court, text: str, previous: str) -> str:
    if "本院认为" in text:
        return c.stages[-1].key
    hits = {s.key: sum(cue in text for cue in s.cues) for s in c.stages}
    best = max(hits.values())
    if best == 0:
        return previous
    order = [s.key for s in c.stages]
    tied = [k for k in order if hits[k] == best]
    later = [k for k in tied if order.index(k) >= order.index(previous)]
    return (later or tied)[0]


def stages(request: ScriptedRequest) -> str:
    c = court(request.metadata["court"])
    previous = c.stages[0].key
    for turn in request.metadata.get("context", []):
        previous = _stage_of(c, turn["judge"], previous)
    result = []
    for turn in request.metadata["turns"]:
        previous = _stage_of(c, turn["judge"], previous)
        result.append(
            {"turn": f"第{turn['turn']}轮", "court_stage": previous, "reason": "代理判断：按审判长发言的程序用语"}
        )
    return json.dumps({"result": result}, ensure_ascii=False)


def checklist(request: ScriptedRequest) -> str:
    c = court(request.metadata["court"])
    stage = c.stage(request.metadata["stage"])
    done: dict[str, int] = {}
    for turn in request.metadata["turns"]:
        text = turn["judge"]
        first = min(
            ((text.find(cue), item.id) for item in stage.checklist for cue in item.cues if cue in text), default=None
        )
        if first is not None:
            done.setdefault(first[1], turn["turn"])
    result = [
        {
            "id": item.id,
            "answer": "是" if item.id in done else "否",
            "reason": f"代理判断：第{done[item.id]}轮" if item.id in done else "代理判断：未见该程序",
        }
        for item in c.items
    ]
    return json.dumps({"result": result}, ensure_ascii=False)


def pairwise(request: ScriptedRequest) -> str:
    first, second = request.metadata["answer_1"], request.metadata["answer_2"]
    reference = request.metadata.get("reference")
    if reference:
        a, b = overlap(reference, first), overlap(reference, second)
    else:
        a, b = float(len(first.strip())), float(len(second.strip()))
    tie = abs(a - b) <= TIE_MARGIN * max(a, b, 1e-9)
    verdict = 3 if tie else 1 if a > b else 2
    return f"代理判断：第一份 {a:.2f}，第二份 {b:.2f}。[[{verdict}]]"


def penalties(request: ScriptedRequest) -> str:
    cues = request.metadata["vague_cues"]
    findings = [
        {"type": "truth_vague_probe", "points": 3, "quote": q, "reason": "代理：笼统追问是否隐瞒"}
        for q in request.metadata["questions"]
        if any(cue in q for cue in cues)
    ]
    return json.dumps({"findings": findings, "red_flags": []}, ensure_ascii=False)


PROXIES = {
    "pointwise": pointwise,
    "stages": stages,
    "checklist": checklist,
    "rubric": rubric,
    "pairwise": pairwise,
    "penalties": penalties,
}


def proxy_judge(request: ScriptedRequest) -> str:
    kind: Any = request.metadata.get("judge_kind")
    if kind not in PROXIES:
        raise ValueError(f"scripted/judge has no proxy for judge kind {kind!r}")
    return PROXIES[kind](request)


register_policy("judge", "*", proxy_judge)
