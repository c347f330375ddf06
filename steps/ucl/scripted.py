"""Scripted UCL models: the simulated user, the oracle assistant and the proxy judge (offline, deterministic).

- user (`scripted/persona`): first states the information when the assistant's prompt lacks it, and the
  need; then ends with 咨询结束 as soon as the assistant's last reply covers every key item it waits for
  (the answer and must-mention items, else the most important level present; any non-empty reply when the
  item has no guidance); otherwise restates its need. It never reveals a hint.
- oracle (`scripted/oracle`): answers with every hint item except the forbidden ones (from the ground truth
  in its call metadata); with no guidance it answers the need in its own words.
- judge (`scripted/judge` in scenario UCL): scores the assistant's words in a transcript against the hint
  items by character-bigram coverage (an item is met at ≥ 0.8 of its bigrams, partial at ≥ 0.4), weighted
  as the pointwise score; without guidance, by coverage of the need. Pairwise, the higher score wins;
  within 0.05 it is a tie. It orders an oracle above a null agent; it does not measure legal quality.
`scripted/null` (built in) answers nothing. Every number produced with these is labelled as scripted/proxy.
"""

from __future__ import annotations

import json
import re
from typing import Any

from steps.llm import ScriptedRequest, register_policy
from steps.llm.overlap import coverage
from steps.ucl.hints import HintItem, hint_score
from steps.ucl.scenario import END

MET, PARTIAL = 0.8, 0.4
TIE_MARGIN = 0.05
_SPEAKER = re.compile(r"^(用户|AI助手)：", re.M)


def covered(item: str, text: str) -> bool:
    return coverage(item, text) >= MET


# ---------------------------------------------------------------- the simulated user


def user(request: ScriptedRequest) -> str:
    profile = request.metadata["profile"]
    if request.metadata["own_turns"] == 0:
        if profile["information"] and not profile["assistant_has_information"]:
            return f"你好，我的情况是这样的：{profile['information']}\n{profile['needs']}"
        return f"你好，{profile['needs']}"
    reply = request.last_user  # the assistant's last reply, as the user hears it
    expects = profile["expects"]
    if (expects and all(covered(e, reply) for e in expects)) or (not expects and reply.strip()):
        return END
    return f"我再说一下我的需求：{profile['needs']}\n请直接针对这个问题回答我。"


# ---------------------------------------------------------------- the oracle assistant


def oracle(request: ScriptedRequest) -> str:
    truth = request.metadata["ground_truth"]
    items = [i for i in truth["items"] if i["level"] != "forbidden"]
    if not items:
        return f"针对您的需求“{truth['needs']}”，我的答复如下：我已仔细阅读了您提供的材料，并逐项回应了您的需求。"
    lines = [f"{n}. {i['text']}" for n, i in enumerate(items, 1)]
    return "根据您的需求，我的答复如下：\n" + "\n".join(lines)


# ---------------------------------------------------------------- the proxy judge


def assistant_text(transcript: str) -> str:
    """The assistant's words in a `用户：`/`AI助手：` transcript (scripted transcripts hold no such line inside)."""
    parts = _SPEAKER.split(transcript)
    return "\n".join(text.strip() for who, text in zip(parts[1::2], parts[2::2], strict=True) if who == "AI助手")


def item_statuses(items: list[HintItem], text: str) -> tuple[dict[str, float], dict[str, bool]]:
    """Proxy credit per item (met 1, partial 0.5, unmet 0) and whether each forbidden item is mentioned."""
    status, mentioned = {}, {}
    for item in items:
        share = coverage(item.text, text)
        if item.level == "forbidden":
            mentioned[item.id] = share >= MET
        else:
            status[item.id] = 1.0 if share >= MET else 0.5 if share >= PARTIAL else 0.0
    return status, mentioned


def proxy_score(items: list[HintItem], needs: str, transcript: str) -> float:
    text = assistant_text(transcript)
    status, mentioned = item_statuses(items, text)
    score = hint_score(status, items, mentioned)
    return score if score is not None else coverage(needs, text)


def _items(metadata: dict[str, Any]) -> list[HintItem]:
    return [HintItem(**i) for i in metadata["items"]]


def pairwise(request: ScriptedRequest) -> str:
    items, needs = _items(request.metadata), request.metadata["needs"]
    a = proxy_score(items, needs, request.metadata["answer_1"])
    b = proxy_score(items, needs, request.metadata["answer_2"])
    verdict = 3 if abs(a - b) <= TIE_MARGIN else 1 if a > b else 2
    return f"代理评审：对话一得分 {a:.2f}，对话二得分 {b:.2f}。[[{verdict}]]"


def hints(request: ScriptedRequest) -> str:
    items, needs = _items(request.metadata), request.metadata["needs"]
    text = assistant_text(request.metadata["transcript"])
    status, mentioned = item_statuses(items, text)
    words = {1.0: "met", 0.5: "partial", 0.0: "unmet"}
    overall = proxy_score(items, needs, request.metadata["transcript"])
    answer = {
        "items": [{"id": k, "status": words[v], "reason": "代理：字符二元组覆盖"} for k, v in status.items()],
        "forbidden": [{"id": k, "mentioned": "yes" if v else "no"} for k, v in mentioned.items()],
        "score": round(1 + 9 * overall, 1),
        "reason": f"代理评分：{overall:.2f}",
    }
    return json.dumps(answer, ensure_ascii=False)


def judge(request: ScriptedRequest) -> str:
    kind = request.metadata.get("judge_kind")
    if kind == "pairwise":
        return pairwise(request)
    if kind == "ucl_hints":
        return hints(request)
    raise ValueError(f"scripted/judge has no UCL proxy for judge kind {kind!r}")


register_policy("persona", "UCL", user)
register_policy("oracle", "UCL", oracle)
register_policy("judge", "UCL", judge)
