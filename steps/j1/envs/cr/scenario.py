"""CR protocol (spec j1-envs §2.7): the judge addresses the defendant, the defence or the procurator."""

from __future__ import annotations

from pathlib import Path

from steps.simulate import Deliverable, Ending, Role, Scenario
from steps.simulate.routing import ByAddressee

END = "<结束庭审>"
TO_DEFENDANT, TO_DEFENCE, TO_PROCURATOR = "对被告人说：", "对被告辩护人说：", "对公诉机关说："

CR = Scenario(
    code="CR",
    version=1,
    roles={
        "judge": Role("judge", "agent", "judge.j2", sees="all", label="审判长"),
        "defendant": Role("defendant", "environment", "defendant.j2", sees="addressed", label="被告人"),
        "defence": Role("defence", "environment", "defence.j2", sees="addressed", label="被告辩护人"),
        "procurator": Role("procurator", "environment", "procurator.j2", sees="addressed", label="公诉机关"),
    },
    opener="judge",
    driver="judge",
    next_speaker=ByAddressee(
        "judge",
        {
            TO_DEFENDANT: "defendant",
            "对被告当事人说：": "defendant",
            TO_DEFENCE: "defence",
            TO_PROCURATOR: "procurator",
        },
    ),
    ending=Ending(max_turns=35, markers={"judge": END}),
    deliverable=Deliverable("last_matching", role="judge", name="judgment", must_contain=("本院认为",)),
    templates=str(Path(__file__).parent / "templates"),
    kickoff="（各方已经到庭，请审判长主持庭审。）",
    nudge="（法庭内无人回应。请继续主持庭审，需要某一方发言时，请以控制语句开头。）",
)
