"""CI protocol (spec j1-envs §2.6): the judge addresses one lawyer per turn with a control sentence."""

from __future__ import annotations

from pathlib import Path

from steps.simulate import Deliverable, Ending, Role, Scenario
from steps.simulate.routing import ByAddressee

END = "<结束庭审>"
TO_PLAINTIFF, TO_DEFENDANT = "对原告说：", "对被告说："

CI = Scenario(
    code="CI",
    version=1,
    roles={
        "judge": Role("judge", "agent", "judge.j2", sees="all", label="审判长"),
        "plaintiff_lawyer": Role(
            "plaintiff_lawyer", "environment", "plaintiff_lawyer.j2", sees="addressed", label="原告代理律师"
        ),
        "defendant_lawyer": Role(
            "defendant_lawyer", "environment", "defendant_lawyer.j2", sees="addressed", label="被告代理律师"
        ),
    },
    opener="judge",
    driver="judge",
    next_speaker=ByAddressee("judge", {TO_PLAINTIFF: "plaintiff_lawyer", TO_DEFENDANT: "defendant_lawyer"}),
    ending=Ending(max_turns=50, markers={"judge": END}),
    deliverable=Deliverable("last_matching", role="judge", name="judgment", must_contain=("本院认为",)),
    templates=str(Path(__file__).parent / "templates"),
    kickoff="（各方已经到庭，请审判长主持庭审。）",
    nudge="（法庭内无人回应。请继续主持庭审，需要某一方发言时，请以控制语句开头。）",
)
