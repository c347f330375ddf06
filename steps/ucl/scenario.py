"""The UCL-Bench consultation on the dialogue engine (spec ucl-bench §3).

Two roles: the simulated user (the environment model) opens and drives; the assistant (the agent under test)
answers. The user holds the item's information and need, asks rather than answers, and writes 咨询结束 when
its need is met; that marker counts only after the assistant has spoken (a user cannot end a consultation it
never had). An exchange is one user message and the reply to it; the paper caps a dialogue at three exchanges
(Fig. 4: "limited to three … (6 turns in total)"), so the user is not asked again after the third reply. The
cap is a parameter (`Instance.max_turns`); the single-round variant is the cap 1.

The user's system prompt is its task's released role prompt (`UCL`, `ucl.prompts: released`) or ours
(`UCL_OURS`, templates/user.j2); `scenario_for` picks one. Both are scenario `UCL` to the scripted models.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from steps.simulate import Deliverable, Ending, Role, Scenario
from steps.simulate.routing import Alternate

END = "咨询结束"
MAX_EXCHANGES = 3
TEMPLATES = Path(__file__).parent / "templates"

UCL = Scenario(
    code="UCL",
    version=1,
    roles={
        "user": Role("user", "environment", "released_user.j2", label="用户"),
        "assistant": Role("assistant", "agent", "assistant.j2", label="AI助手"),
    },
    opener="user",
    driver="user",
    next_speaker=Alternate("user", "assistant"),
    ending=Ending(max_turns=MAX_EXCHANGES, markers={"user": END}, requires_reply=("user",)),
    deliverable=Deliverable("none"),
    templates=str(TEMPLATES),
    kickoff="（请开始你的咨询。）",
)
UCL_OURS = replace(UCL, roles={**UCL.roles, "user": replace(UCL.roles["user"], template="user.j2")})


def scenario_for(prompts: str) -> Scenario:
    """The UCL scenario whose user reads the `prompts` source's prompt (`released` or `ours`)."""
    return {"released": UCL, "ours": UCL_OURS}[prompts]
