"""The rubric part of the offline proxy judge (`scripted/judge`, judge kind `rubric`).

It answers in the format the rubric prompt asks for, from the call metadata only:
- an award item earns its points times the share of its key phrases the response contains, or, without
  key phrases, the share of its `reference` (else its text) character bigrams found in the response; an item
  not earned in full gets the item's `error_hint` as its error label;
- a fail condition or a penalty is triggered when it names key phrases and the response contains none of them
  (e.g. a complaint without 起诉状); without key phrases it never is: the proxy cannot judge conduct.
It orders an oracle above a null agent; it does not measure legal quality.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Any


def _bigrams(text: str) -> Counter[str]:
    chars = [ch for ch in text if ch.isalnum()]
    return Counter(a + b for a, b in itertools.pairwise(chars))


def coverage(source: str, response: str) -> float:
    """Share of `source`'s character bigrams found in `response`."""
    wanted, found = _bigrams(source), _bigrams(response)
    return sum((wanted & found).values()) / sum(wanted.values()) if wanted else 0.0


def _share(item: dict[str, Any], response: str) -> float:
    phrases = item.get("key_phrases") or []
    if phrases:
        return sum(p in response for p in phrases) / len(phrases)
    return coverage(item.get("reference") or item["text"], response)


def _escaped(item: dict[str, Any], response: str) -> bool:
    phrases = item.get("key_phrases") or []
    return not phrases or any(p in response for p in phrases)


def rubric(request: Any) -> str:
    meta = request.metadata
    response = meta["response"]
    items, fails, penalties = [], [], []
    for item in meta["items"]:
        kind = item.get("kind", "award")
        if kind == "award":
            share = _share(item, response)
            awarded = round(item["points"] * share, 2)
            error = item.get("error_hint") or None if awarded < item["points"] else None
            if meta.get("verdict") == "flags":  # met when at least half of the reference is covered
                items.append({"id": item["id"], "met": share >= 0.5})
                continue
            items.append(
                {"id": item["id"], "awarded": awarded, "justification": f"代理：覆盖 {share:.2f}", "error": error}
            )
        elif kind == "fail":
            fails.append({"id": item["id"], "triggered": not _escaped(item, response), "justification": "代理"})
        else:
            penalties.append({"id": item["id"], "times": 0 if _escaped(item, response) else 1, "justification": "代理"})
    answer: dict[str, Any] = {"items": items}
    if fails:
        answer["fails"] = fails
    if penalties:
        answer["penalties"] = penalties
    return json.dumps(answer, ensure_ascii=False)
