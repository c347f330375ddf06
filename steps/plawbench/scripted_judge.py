"""The proxy judge's PLawBench kind (`scripted/judge`, steps.judges.scripted), registered on import: T1 penalties
(opt-in). Apart from the scripted agents and client (steps/plawbench/scripted.py), which the answers' stage
imports, so that it imports no judge code."""

from __future__ import annotations

import json

from steps.judges.scripted import register_proxy
from steps.llm import ScriptedRequest


# The proxy judge's PLawBench kind (T1 penalties, opt-in): every question holding one of the metadata's
# `vague_cues` is a vague "are you hiding something" probe (3 points, quoted); nothing else is flagged: the proxy
# cannot judge harm.
def penalties(request: ScriptedRequest) -> str:
    cues = request.metadata["vague_cues"]
    findings = [
        {"type": "truth_vague_probe", "points": 3, "quote": q, "reason": "代理：笼统追问是否隐瞒"}
        for q in request.metadata["questions"]
        if any(cue in q for cue in cues)
    ]
    return json.dumps({"findings": findings, "red_flags": []}, ensure_ascii=False)


register_proxy("penalties", penalties)
