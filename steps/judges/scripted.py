"""`scripted/judge`: a deterministic proxy for every LLM judge, so a whole evaluation runs offline.

Importing this module registers it (for any scenario; the kind of judge comes from the call metadata, which
the judges fill and only scripted models see). It answers in the format the real prompt asks for:
- pointwise: character-bigram F1 between reference and candidate, × 10, rounded;
- rubric: see `steps.judges.rubric_proxy` (key phrases or reference bigrams per award item; fails and
  penalties only by the absence of their key phrases);
- pairwise: the response closer to the metadata's `reference` (bigram F1), or without one the longer, wins;
  within 5 % it is a tie;
A benchmark adds its own kinds with `register_proxy` (J1's court stages and checklist: steps.j1.eval.scripted;
PLawBench's penalties: steps.plawbench.scripted_judge).
Every number it produces is a proxy and is marked so (`Judgement.proxy`). It orders an oracle above a null
agent; it does not measure legal quality.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from steps.judges.rubric_proxy import rubric
from steps.llm import ScriptedRequest, register_policy
from steps.llm.overlap import overlap
from steps.llm.scripted import Policy, policy_fingerprint

TIE_MARGIN = 0.05


def pointwise(request: ScriptedRequest) -> str:
    f1 = overlap(request.metadata["reference"], request.metadata["candidate"])
    return json.dumps({"score": round(10 * f1), "reason": f"代理评分：字符二元组重合 F1={f1:.2f}"}, ensure_ascii=False)


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


PROXIES: dict[str, Policy] = {"pointwise": pointwise, "rubric": rubric, "pairwise": pairwise}
_OVERLAP = inspect.getsourcefile(overlap) or ""  # steps/llm/overlap.py


def register_proxy(kind: str, proxy: Policy) -> None:
    """Add a benchmark's own judge kind (J1's court stages and checklist, PLawBench's penalties) to the proxy; its
    module enters the fingerprint of that kind's calls (`proxy_sources`): editing it never replays their old answers."""
    PROXIES[kind] = proxy
    policy_fingerprint.cache_clear()


def proxy_sources(kind: str) -> list[str]:
    """The source file of the proxy answering judge `kind` (see `steps.llm.scripted.policy_fingerprint`): a call's key
    changes with the code that answers it, not with the other kinds registered in the process."""
    proxy = PROXIES.get(kind)
    path = inspect.getsourcefile(proxy) if proxy is not None else None
    return [path, _OVERLAP] if path else []  # and the bigram overlap (the pointwise and pairwise proxies use it)


def proxy_judge(request: ScriptedRequest) -> str:
    kind: Any = request.metadata.get("judge_kind")
    if kind not in PROXIES:
        raise ValueError(f"scripted/judge has no proxy for judge kind {kind!r}")
    return PROXIES[kind](request)


proxy_judge.sources = proxy_sources  # type: ignore[attr-defined]  # read by policy_fingerprint
register_policy("judge", "*", proxy_judge)
