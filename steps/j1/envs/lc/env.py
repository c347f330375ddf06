"""LC, legal consultation: a client with a background the lawyer must elicit (spec j1-envs §2.3)."""

from steps.j1.envs.common.profiles import LCAgent, LCClient, TopicsTruth
from steps.j1.envs.environment import Environment
from steps.j1.envs.kq.instances import draft_lc
from steps.j1.envs.lc.scenario import LC

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
)
