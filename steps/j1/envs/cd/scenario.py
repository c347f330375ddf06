"""CD protocol (spec j1-envs §2.4): the lawyer asks one question per turn and ends with the complaint."""

from __future__ import annotations

from pathlib import Path

from steps.simulate import Deliverable, Ending, Role, Scenario
from steps.simulate.routing import Alternate

END = "<询问结束>"
FORCE = "询问已经结束。请根据以上对话，按照模板输出完整的民事起诉状，并在最后写上<询问结束>。"

CD = Scenario(
    code="CD",
    version=1,
    roles={"lawyer": Role("lawyer", "agent", "lawyer.j2"), "plaintiff": Role("plaintiff", "environment", "client.j2")},
    opener="lawyer",
    driver="lawyer",
    next_speaker=Alternate("lawyer", "plaintiff"),
    ending=Ending(max_turns=20, markers={"lawyer": END}),
    deliverable=Deliverable(
        "marker_message", role="lawyer", name="complaint", must_contain=("诉讼请求",), force_template=FORCE
    ),
    templates=str(Path(__file__).parent / "templates"),
    kickoff="（当事人已经坐下，请你开始询问。）",
)
