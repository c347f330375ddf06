"""CD, complaint drafting: the lawyer interviews the plaintiff and drafts the complaint (spec j1-envs §2.4)."""

from steps.j1.envs.cd.instances import draft
from steps.j1.envs.cd.scenario import CD
from steps.j1.envs.common.profiles import CDLawyer, CDPlaintiff, CDTruth
from steps.j1.envs.environment import Drafting, Environment, JudgedSection

ENV = Environment(
    scenario=CD,
    name="complaint drafting",
    position=3,
    paper_size=93,
    population="civil",
    draft=draft,
    profiles={"plaintiff": CDPlaintiff, "lawyer": CDLawyer},
    truth=CDTruth,
    evaluator="drafting",
    metrics=("II-1", "II-2"),
    outcome=("II-2",),
    process=("II-1",),
    drafting=Drafting(
        document="complaint",
        parties={"PLA": "plaintiffs", "DEF": "defendants"},
        judged={
            "CLA": JudgedSection("claims", "claims", "诉讼请求"),
            "EVI": JudgedSection("evidence", "evidence", "证据和证据来源"),
            "F&R": JudgedSection("facts", "case_details", "事实和理由"),
        },
    ),
)
