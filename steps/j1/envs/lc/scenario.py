"""LC protocol (spec j1-envs §2.3): as KQ, with a background the agent must elicit, and 10 turns."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from steps.j1.envs.kq.scenario import KQ
from steps.simulate import Ending

LC = replace(
    KQ,
    code="LC",
    ending=Ending(max_turns=10, markers={"client": "结束对话"}),
    templates=str(Path(__file__).parent / "templates"),
)
