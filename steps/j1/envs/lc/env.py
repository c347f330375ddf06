"""LC, legal consultation: a client with a background the lawyer must elicit (spec j1-envs §2.3)."""

from typing import Any

from steps.j1.envs.common.profiles import LCAgent, LCClient, TopicsTruth
from steps.j1.envs.common.topics import BINARY
from steps.j1.envs.environment import Environment
from steps.j1.envs.kq.instances import draft_lc
from steps.j1.envs.lc.scenario import LC


def asks_yes_or_no(source: dict[str, Any]) -> bool:
    """A topic source with at least one yes/no topic (J1's LC has 116 of its 223 topics yes/no, App C)."""
    return any(t.get("kind") == BINARY for t in source.get("topics") or [])


ENV = Environment(
    scenario=LC,
    name="legal consultation",
    position=2,
    paper_size=62,
    population="topics",
    draft=draft_lc,
    profiles={"client": LCClient, "agent": LCAgent},
    truth=TopicsTruth,
    evaluator="consultation",
    metrics=("I-1", "I-2"),
    outcome=("I-1", "I-2"),
    prefer=asks_yes_or_no,
)
