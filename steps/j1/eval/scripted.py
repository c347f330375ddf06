"""J1's kinds of the proxy judge `scripted/judge` (steps.judges.scripted), registered on import:

- stages: for each turn, the stage whose cues (`courts.yaml`) the judge's words hit most; a turn without cues
  stays in the stage before; 本院认为 marks the judgment;
- checklist: in each turn the item of the unit's stage whose cue comes first is done (first action per turn);
  items of other stages are No.
"""

from __future__ import annotations

import json

from steps.j1.eval.courts import Court, court
from steps.judges.scripted import register_proxy
from steps.llm import ScriptedRequest


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


register_proxy("stages", stages)
register_proxy("checklist", checklist)
