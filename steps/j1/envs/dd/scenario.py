"""DD protocol (spec j1-envs §2.5): as CD, for the defendant, ending with the defence (15 turns)."""

from __future__ import annotations

from pathlib import Path

from steps.simulate import Deliverable, Ending, Role, Scenario
from steps.simulate.routing import Alternate

END = "<询问结束>"
FORCE = "询问已经结束。请根据以上对话，按照模板输出完整的民事答辩状，并在最后写上<询问结束>。"

DD = Scenario(
    code="DD",
    version=1,
    roles={"lawyer": Role("lawyer", "agent", "lawyer.j2"), "defendant": Role("defendant", "environment", "client.j2")},
    opener="lawyer",
    driver="lawyer",
    next_speaker=Alternate("lawyer", "defendant"),
    ending=Ending(max_turns=15, markers={"lawyer": END}),
    deliverable=Deliverable(
        "marker_message", role="lawyer", name="defence", must_contain=("答辩",), force_template=FORCE
    ),
    templates=str(Path(__file__).parent / "templates"),
    kickoff="（当事人已经坐下，请你开始询问。）",
)
