"""Interaction evaluation (spec maser-mile §4.2) and client consistency (§4.4) of one dialogue.

The judge grades the lawyer's response of turn i on INT, PROF and LOGI (1–10) given the dialogue before it.
Windows follow the reference's two-turn stride, with its crash fixed: every even turn i ≤ T, plus turn T when
T is odd (so the last inquiry turn, and a one-turn dialogue, are scored); never the complaint. The context is
the whole history from the turn-0 greetings (`windows="full"`, the reference) or only turn i − 1
(`windows="strict"`), then the client's message of turn i. Each call is stateless (the reference's shared
judge history is a defect). Client consistency is one call per dialogue over the client's statements from
turn 1 on (blurred and revised ones included) against its persona.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from steps.judges.graded import Scale
from steps.mile.judging import JudgeTask, judge_version, render_judge

INTERACTION = Scale(("互动性", "专业性", "逻辑性"))
INTERACTION_METRICS = {"互动性": "INT", "专业性": "PROF", "逻辑性": "LOGI"}
SPEAKERS = {"client": "原告", "lawyer": "律师"}


@dataclass(frozen=True)
class Utterance:
    turn: int
    speaker: str  # client | lawyer
    text: str


def scored_turns(last_turn: int) -> list[int]:
    """Even turns up to T, plus T itself when odd."""
    turns = list(range(2, last_turn + 1, 2))
    if last_turn % 2 == 1:
        turns.append(last_turn)
    return turns


def _line(u: Utterance) -> str:
    return f"{SPEAKERS[u.speaker]}：{u.text}"


def interaction_tasks(
    instance_id: str, utterances: list[Utterance], less: str, windows: Literal["full", "strict"] = "full"
) -> list[JudgeTask]:
    """One judge task per scored lawyer turn of a dialogue (turn T + 1, the complaint, is never scored)."""
    lawyer = {u.turn: u for u in utterances if u.speaker == "lawyer" and u.turn >= 1}
    last = max(lawyer, default=0)
    tasks = []
    for i in scored_turns(last):
        if i not in lawyer:
            continue
        first = 0 if windows == "full" else i - 1
        context = [u for u in utterances if first <= u.turn < i or (u.turn == i and u.speaker == "client")]
        response = lawyer[i].text
        history = "\n".join(_line(u) for u in context)
        prompt = render_judge("interaction.j2", {"history": history, "response": response, "less": less})
        tasks.append(
            JudgeTask(
                instance_id,
                "interaction",
                INTERACTION_METRICS,
                prompt,
                INTERACTION,
                judge_version("interaction.j2"),
                "mile.interaction",
                turn=i,
                inputs={
                    "response": response,
                    "less": less,
                    "history": [{"speaker": u.speaker, "text": u.text} for u in context],
                },
            )
        )
    return tasks


def consistency_task(instance_id: str, utterances: list[Utterance], persona: dict[str, Any]) -> JudgeTask | None:
    """The client-consistency call of one dialogue (None when the client said nothing after turn 0)."""
    statements = [u.text for u in utterances if u.speaker == "client" and u.turn >= 1]
    if not statements:
        return None
    context = {**persona, "statements": statements}
    return JudgeTask(
        instance_id,
        "consistency",
        {"分数": "CONS"},
        render_judge("consistency.j2", context),
        Scale(("分数",)),
        judge_version("consistency.j2"),
        "mile.consistency",
        inputs={"statements": statements},
    )
