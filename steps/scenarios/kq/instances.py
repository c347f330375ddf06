"""KQ and LC instances from derived topic lists (steps/scenarios/j1/topics.py) and personas."""

from __future__ import annotations

from steps.personas.generate import Persona
from steps.personas.seeded import rng_for
from steps.scenarios.j1.built import Built, Skipped
from steps.scenarios.j1.occupations import occupation_for
from steps.scenarios.j1.topics import TopicSource
from steps.scenarios.kq.scenario import KQ
from steps.scenarios.lc.scenario import LC

LEGAL_ROLE = "律师"
_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高"
_GIVEN = ("建国", "秀英", "志强", "丽华", "海涛", "春梅", "晓东", "桂芳", "国庆", "淑珍", "文杰", "雪梅")


def _truth(source: TopicSource) -> dict:
    return {
        "topics": [
            {
                "topic": t.topic,
                "kind": t.kind,
                "answer": t.answer,
                "statutes": [{"law": law, "article": a} for law, a in t.statutes],
            }
            for t in source.topics
        ],
        "theme": source.theme,
        "derivation": source.derivation,
    }


def build_kq(source: TopicSource, persona: Persona | None, *, seed: int) -> Built | Skipped:
    iid = f"KQ/{source.source_id}"
    if persona is None or not persona.style:
        return Skipped(iid, "KQ", source.items, "missing: persona")
    occupation = occupation_for(source.field_hint or source.theme, seed=seed, key=iid)
    profiles = {
        "client": {
            "occupation": occupation,
            "legal_role": LEGAL_ROLE,
            "theme": source.theme,
            "style": persona.style,
            "topics": [t.topic for t in source.topics],
        },
        "agent": {"legal_role": LEGAL_ROLE, "occupation": occupation},
    }
    return Built(iid, "KQ", source.items, profiles, _truth(source), KQ.ending.max_turns, (persona.key,))


def client_name(*, seed: int, key: str) -> str:
    rng = rng_for(seed, key, "name")
    return rng.choice(_SURNAMES) + rng.choice(_GIVEN)


def build_lc(source: TopicSource, persona: Persona | None, *, seed: int) -> Built | Skipped:
    iid = f"LC/{source.source_id}"
    if persona is None or not persona.style:
        return Skipped(iid, "LC", source.items, "missing: persona")
    profiles = {
        "client": {
            "name": client_name(seed=seed, key=iid),
            "background": source.background,
            "style": persona.style,
            "topics": [t.topic for t in source.topics],
        },
        "agent": {},
    }
    return Built(iid, "LC", source.items, profiles, _truth(source), LC.ending.max_turns, (persona.key,))
