"""`scripted/judge_contrary`: a second proxy judge that disagrees with `scripted/judge` by construction, so a panel
of two judges (and the audit's agreement statistics) can be exercised offline.

It asks the proxy judge (`scripted/judge`'s policy for the call's scenario: steps/judges/scripted.py, or a
benchmark's own) and turns its answer around deterministically:
- a JSON answer with a numeric `score` on the 0–10 scale (the pointwise judge) gets 10 − score;
- a rubric answer (`items`, `fails`, `penalties`) is turned item by item: an award item gets the points the proxy
  withheld (its points − awarded, with the item's error hint when short of full), a flag (`met`) the other flag, a
  fail condition the other `triggered`, a penalty `times` 1 where the proxy gave 0 and 0 where it gave any;
- a graded answer (every value but the explanation a grade on the graded judges' 1–10 scale: MILE's) gets
  1 + 10 − each grade;
- a pairwise verdict swaps [[1]] and [[2]] (a tie [[3]] stays a tie);
- any other answer (a benchmark's own kinds) is the proxy's own.
Importing this module registers it; its calls' cache keys follow this file and the proxy's file of the judge kind.
Like the proxy, it measures nothing about legal quality.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from steps.judges.graded import Scale
from steps.judges.scripted import proxy_judge, proxy_sources
from steps.llm import ScriptedRequest, register_policy
from steps.llm.scripted import policy_for

_VERDICT = re.compile(r"\[\[([12])\]\]")
SCALE = 10
GRADES = Scale(keys=())  # the graded judges' bounds (1–10)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _rubric(data: dict[str, Any], metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A rubric answer turned around item by item (the items' points and error hints from the call metadata)."""
    asked = {str(i.get("id")): i for i in metadata.get("items", []) if isinstance(i, Mapping)}
    items = []
    for item in data["items"]:
        turned = dict(item) if isinstance(item, dict) else item
        if isinstance(item, dict) and isinstance(item.get("met"), bool):
            turned["met"] = not item["met"]
        elif (
            isinstance(item, dict)
            and _number(item.get("awarded"))
            and _number(asked.get(str(item.get("id")), {}).get("points"))
        ):
            points = float(asked[str(item["id"])]["points"])
            turned["awarded"] = round(points - item["awarded"], 2)
            turned["error"] = (asked[str(item["id"])].get("error_hint") or None) if turned["awarded"] < points else None
        items.append(turned)
    out = {**data, "items": items}
    if isinstance(data.get("fails"), list):
        out["fails"] = [
            {**f, "triggered": not f["triggered"]}
            if isinstance(f, dict) and isinstance(f.get("triggered"), bool)
            else f
            for f in data["fails"]
        ]
    if isinstance(data.get("penalties"), list):
        out["penalties"] = [
            {**p, "times": 0 if p["times"] else 1} if isinstance(p, dict) and _number(p.get("times")) else p
            for p in data["penalties"]
        ]
    return out


def contrary(answer: str, metadata: Mapping[str, Any] | None = None) -> str:
    """The proxy's answer turned around (see the module docstring); `metadata`: the call's (a rubric's items)."""
    try:
        data = json.loads(answer)
    except ValueError:
        data = None
    if isinstance(data, dict) and _number(data.get("score")) and 0 <= data["score"] <= SCALE:
        return json.dumps({**data, "score": SCALE - data["score"]}, ensure_ascii=False)
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        turned = _rubric(data, metadata or {})
        return answer if turned == data else json.dumps(turned, ensure_ascii=False)
    grades = {k: v for k, v in data.items() if not isinstance(v, str)} if isinstance(data, dict) else {}
    if grades and all(_number(v) and GRADES.low <= v <= GRADES.high for v in grades.values()):
        assert isinstance(data, dict)
        return json.dumps({**data, **{k: GRADES.low + GRADES.high - v for k, v in grades.items()}}, ensure_ascii=False)
    return _VERDICT.sub(lambda m: "[[2]]" if m.group(1) == "1" else "[[1]]", answer)


def contrary_judge(request: ScriptedRequest) -> str:
    return contrary(policy_for("judge", request.scenario)(request), request.metadata)


def _sources(kind: str) -> list[str]:
    """The proxy's files for `kind`, and the proxy judge's own module (this one is the policy's file)."""
    return [*proxy_sources(kind), proxy_judge.__code__.co_filename]


contrary_judge.sources = _sources  # type: ignore[attr-defined]  # read by policy_fingerprint
register_policy("judge_contrary", "*", contrary_judge)
