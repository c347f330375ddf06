"""KQ and LC instances from topic lists (stage `j1_topics`, steps/j1/envs/common/topics.py) (spec j1-envs §2.2–2.3).

The client is the lay role: its persona comes from its occupation (KQ) or its background (LC). The agent under
test gets its role and the client's occupation (KQ) or nothing (LC); the topic answers are the ground truth.
"""

from __future__ import annotations

from typing import Any

from steps.j1.envs.common.built import Draft, Skipped, skip_if_missing
from steps.j1.envs.kq.scenario import KQ
from steps.j1.envs.lc.scenario import LC
from steps.j1.personas.generate import Subject

LEGAL_ROLE = "律师"


def _truth(source: dict[str, Any]) -> dict[str, Any]:
    return {"theme": source["theme"], "derivation": source["derivation"], "topics": list(source["topics"])}


def _facets(source: dict[str, Any]) -> dict[str, Any]:
    return {"topic_kinds": [t["kind"] for t in source["topics"]], "derivation": source["derivation"]}


def draft_kq(source: dict[str, Any]) -> Draft | Skipped:
    iid, src = f"KQ/{source['source_id']}", tuple(source["items"])
    needs = {"occupation": source.get("occupation"), "theme": source.get("theme"), "topics": source.get("topics")}
    if skipped := skip_if_missing(iid, "KQ", src, needs):
        return skipped
    occupation = source["occupation"]
    subject = Subject(f"{iid}/client", "KQ", "client", f"向律师请教法律知识的{occupation}", "person", occupation)
    profiles = {
        "client": {
            "occupation": occupation,
            "legal_role": LEGAL_ROLE,
            "theme": source["theme"],
            "topics": [t["topic"] for t in source["topics"]],
        },
        "agent": {"legal_role": LEGAL_ROLE, "occupation": occupation},
    }
    return Draft(iid, "KQ", src, profiles, _truth(source), KQ.ending.max_turns, subject, _facets(source))


def draft_lc(source: dict[str, Any]) -> Draft | Skipped:
    iid, src = f"LC/{source['source_id']}", tuple(source["items"])
    needs = {"name": source.get("client_name"), "background": source.get("background"), "topics": source.get("topics")}
    if skipped := skip_if_missing(iid, "LC", src, needs):
        return skipped
    subject = Subject(
        f"{iid}/client", "LC", "client", "遇到法律纠纷、向律师咨询的当事人", "person", source["background"]
    )
    profiles = {
        "client": {
            "name": source["client_name"],
            "background": source["background"],
            "topics": [t["topic"] for t in source["topics"]],
        },
        "agent": {},
    }
    return Draft(iid, "LC", src, profiles, _truth(source), LC.ending.max_turns, subject, _facets(source))
