"""KQ, knowledge questioning: a lay client asks a lawyer about a theme's legal topics (spec j1-envs §2.2)."""

from steps.j1.envs.common.profiles import KQAgent, KQClient, TopicsTruth
from steps.j1.envs.environment import Environment
from steps.j1.envs.kq.instances import draft_kq
from steps.j1.envs.kq.scenario import KQ

ENV = Environment(
    scenario=KQ,
    name="knowledge questioning",
    position=1,
    paper_size=98,
    population="topics",
    draft=draft_kq,
    profiles={"client": KQClient, "agent": KQAgent},
    truth=TopicsTruth,
    evaluator="consultation",
    metrics=("I-1", "I-2"),
    outcome=("I-1", "I-2"),
)
