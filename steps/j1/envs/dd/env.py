"""DD, defence drafting: the lawyer interviews the defendant and drafts the defence (spec j1-envs §2.5)."""

from steps.j1.envs.common.profiles import DDDefendant, DDLawyer, DDTruth
from steps.j1.envs.dd.instances import draft
from steps.j1.envs.dd.scenario import DD
from steps.j1.envs.environment import Drafting, Environment, JudgedSection

ENV = Environment(
    scenario=DD,
    name="defence drafting",
    position=4,
    paper_size=93,
    population="civil",
    draft=draft,
    profiles={"defendant": DDDefendant, "lawyer": DDLawyer},
    truth=DDTruth,
    evaluator="drafting",
    metrics=("II-1", "II-2"),
    outcome=("II-2",),
    process=("II-1",),
    drafting=Drafting(
        document="defence",
        parties={"RES": "respondent"},
        judged={
            "DEF": JudgedSection("arguments", "defence", "答辩意见"),
            "EVI": JudgedSection("evidence", "evidence", "证据和证据来源"),
        },
    ),
)
