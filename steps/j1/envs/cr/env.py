"""CR, criminal court: the agent presides over a criminal trial and passes sentence (spec j1-envs §2.7)."""

from steps.j1.envs.common.profiles import CRDefence, CRDefendant, CRJudge, CRProcurator, CRTruth
from steps.j1.envs.common.stages import CRIMINAL
from steps.j1.envs.cr.instances import draft
from steps.j1.envs.cr.scenario import CR
from steps.j1.envs.environment import Environment

ENV = Environment(
    scenario=CR,
    name="criminal court",
    position=6,
    paper_size=69,
    population="criminal",
    draft=draft,
    profiles={"judge": CRJudge, "defendant": CRDefendant, "defence": CRDefence, "procurator": CRProcurator},
    truth=CRTruth,
    evaluator="court",
    metrics=("III-1", "III-3", "III-4", "III-5", "III-6"),
    outcome=("III-3",),
    process=("III-1", "III-5", "III-6"),
    court="criminal",
    stages=CRIMINAL,
)
