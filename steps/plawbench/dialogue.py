"""Ours, not the paper's: a multi-turn variant of the consultation task on the dialogue engine.

The paper's T1 is single-turn: the model reads the client's narrative once and lists its questions. Here the
lawyer (the agent under test) has the same narrative, asks over several turns, and a simulated client (the
environment model) answers from the narrative only, saying it does not know anything else. The lawyer ends
with `<咨询结束>` or at the turn cap. What is judged, against the same rubric, is every question the lawyer
asked, in order (the first N, as in T1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from steps.simulate import Deliverable, Dialogue, Ending, Role, Scenario
from steps.simulate.instance import Instance
from steps.simulate.routing import Alternate

SCENARIO = "plawbench/consultation_multiturn"
VARIANT = "multiturn"
END = "<咨询结束>"
VERSION = 1


def scenario(max_turns: int) -> Scenario:
    return Scenario(
        code=SCENARIO,
        version=VERSION,
        roles={"lawyer": Role("lawyer", "agent", "lawyer.j2"), "client": Role("client", "environment", "client.j2")},
        opener="lawyer",
        driver="lawyer",
        next_speaker=Alternate("lawyer", "client"),
        ending=Ending(max_turns=max_turns, markers={"lawyer": END}),
        deliverable=Deliverable("none"),
        templates=str(Path(__file__).parent / "templates" / "dialogue"),
        kickoff="（当事人讲完了，请开始追问。）",
    )


def instances(tasks: Any, rubric_questions: dict[str, list[str]], max_turns: int) -> list[Instance]:
    """One instance per consultation task; the rubric's questions are the oracle's ground truth only."""
    out = []
    for t in tasks.itertuples(index=False):
        profile = {"conversation": t.query}
        out.append(
            Instance(
                instance_id=t.item_id,
                scenario=SCENARIO,
                profiles={"lawyer": {**profile, "end_marker": END}, "client": profile},
                ground_truth={"questions": rubric_questions.get(t.item_id, [])},
                max_turns=max_turns,
            )
        )
    return out


def consultations(tasks: pd.DataFrame, rubric: pd.DataFrame, max_turns: int) -> tuple[pd.DataFrame, list[Instance]]:
    """The multi-turn variant of a run's tasks: its consultation tasks, and one instance each (the rubric's award
    questions, in rubric order, as the oracle's ground truth)."""
    consult = tasks[tasks.category == "consultation"].reset_index(drop=True)
    units = rubric[rubric.judged & (rubric.kind == "award")].sort_values("order")
    questions = {k: list(g.award_text) for k, g in units.groupby("item_id", sort=False)}
    return consult, instances(consult, questions, max_turns)


def lawyer_questions(dialogue: Dialogue) -> str:
    """Every lawyer utterance in order, the end marker removed: the text the judge reads."""
    said = [t.text.replace(END, "").strip() for t in dialogue.utterances() if t.speaker == "lawyer"]
    return "\n".join(s for s in said if s)
