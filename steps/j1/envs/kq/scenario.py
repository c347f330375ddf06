"""KQ protocol (spec j1-envs §2.2): the client opens and drives; the supervisor tracks the topics."""

from __future__ import annotations

from pathlib import Path

from steps.j1.envs.common.tracker import TopicTracker
from steps.simulate import Deliverable, Ending, Role, Scenario
from steps.simulate.routing import Alternate

END = "结束对话"

KQ = Scenario(
    code="KQ",
    version=1,
    roles={
        "client": Role("client", "environment", "client.j2"),
        "agent": Role("agent", "agent", "agent.j2"),
        "supervisor": Role("supervisor", "environment", "", sees="addressed"),
    },
    opener="client",
    driver="client",
    next_speaker=Alternate("client", "agent"),
    ending=Ending(max_turns=15, markers={"client": END}),
    deliverable=Deliverable("none", name="consultation"),
    templates=str(Path(__file__).parent / "templates"),
    kickoff="（咨询开始，请你先开口。）",
    tracker=TopicTracker(),
)
