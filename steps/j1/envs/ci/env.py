"""CI, civil court: the agent presides over a civil trial and gives the judgment (spec j1-envs §2.6)."""

from steps.j1.envs.ci.instances import draft
from steps.j1.envs.ci.scenario import CI
from steps.j1.envs.common.profiles import CIDefendantLawyer, CIJudge, CIPlaintiffLawyer, CITruth
from steps.j1.envs.common.stages import CIVIL
from steps.j1.envs.environment import Environment

ENV = Environment(
    scenario=CI,
    name="civil court",
    position=5,
    paper_size=93,
    population="civil",
    draft=draft,
    profiles={"judge": CIJudge, "plaintiff_lawyer": CIPlaintiffLawyer, "defendant_lawyer": CIDefendantLawyer},
    truth=CITruth,
    evaluator="court",
    metrics=("III-1", "III-2", "III-5", "III-6"),
    outcome=("III-2",),
    process=("III-1", "III-5", "III-6"),
    court="civil",
    stages=CIVIL,
)
