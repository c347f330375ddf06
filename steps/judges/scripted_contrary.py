"""`scripted/judge_contrary`: a second proxy judge that disagrees with `scripted/judge` by construction, so a panel
of two judges (and the audit's agreement statistics) can be exercised offline.

It asks the proxy judge (`scripted/judge`'s policy for the call's scenario: steps/judges/scripted.py, or a
benchmark's own) and turns its answer around deterministically:
- a JSON answer with a numeric `score` on the 0–10 scale (the pointwise judge) gets 10 − score;
- a pairwise verdict swaps [[1]] and [[2]] (a tie [[3]] stays a tie);
- any other answer (rubric items, a benchmark's own kinds) is the proxy's own.
Importing this module registers it; its calls' cache keys follow this file and the proxy's file of the judge kind.
Like the proxy, it measures nothing about legal quality.
"""

from __future__ import annotations

import json
import re

from steps.judges.scripted import proxy_judge, proxy_sources
from steps.llm import ScriptedRequest, register_policy
from steps.llm.scripted import policy_for

_VERDICT = re.compile(r"\[\[([12])\]\]")
SCALE = 10


def contrary(answer: str) -> str:
    """The proxy's answer turned around (see the module docstring)."""
    try:
        data = json.loads(answer)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("score"), int | float) and 0 <= data["score"] <= SCALE:
        return json.dumps({**data, "score": SCALE - data["score"]}, ensure_ascii=False)
    return _VERDICT.sub(lambda m: "[[2]]" if m.group(1) == "1" else "[[1]]", answer)


def contrary_judge(request: ScriptedRequest) -> str:
    return contrary(policy_for("judge", request.scenario)(request))


def _sources(kind: str) -> list[str]:
    """The proxy's files for `kind`, and the proxy judge's own module (this one is the policy's file)."""
    return [*proxy_sources(kind), proxy_judge.__code__.co_filename]


contrary_judge.sources = _sources  # type: ignore[attr-defined]  # read by policy_fingerprint
register_policy("judge_contrary", "*", contrary_judge)
