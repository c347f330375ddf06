"""The KQ/LC supervisor: after each exchange it names the topic addressed and summarises the answer.

One environment-model call per exchange (spec j1-envs §6.3-a, §9.2-7): it returns JSON with the topic (one
of the list, verbatim, or "无") and the answer summary (for a yes/no topic strictly 是, 否 or 视情况而定; "无" when
the agent gave no answer). A topic leaves the unaddressed list once it has a substantive answer; the list is
the client's "topics not yet consulted" block, rewritten every turn. The records are the input of I-1/I-2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from steps.llm.structured import REPAIR, validate_answer
from steps.simulate.model import Dialogue, TurnKind
from steps.simulate.templates import render

NONE = "无"
TEMPLATES = Path(__file__).parent / "templates"


class CheckAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    topic: str
    answer: str


class TopicTracker:
    def __init__(self, template: str = "checker.j2", role: str = "supervisor", client: str = "client"):
        self.template, self.role, self.client = template, role, client  # the template is shared by KQ and LC

    def start(self, engine: Any) -> None:
        """The topics as the client has them (its own list); only their kinds come from the ground truth."""
        topics = list(engine.instance.profiles[self.client]["topics"])
        kinds = [t["kind"] for t in engine.instance.ground_truth["topics"]]
        if len(kinds) != len(topics):
            raise ValueError(f"{engine.instance.instance_id}: {len(topics)} client topics, {len(kinds)} in the truth")
        engine.dialogue.state.update(
            topics=topics,
            kinds=kinds,
            unaddressed=list(range(len(topics))),
            last_check=None,
        )

    async def after_exchange(self, engine: Any, dialogue: Dialogue) -> bool:
        question, answer = dialogue.utterances()[-2:]
        state = dialogue.state
        prompt = render(
            TEMPLATES,
            self.template,
            {
                "topics": [{"topic": t, "kind": k} for t, k in zip(state["topics"], state["kinds"], strict=True)],
                "last": state["last_check"],
                "question": question.text,
                "answer": answer.text,
            },
        )
        messages = [{"role": "user", "content": prompt}]
        for attempt in (1, 2):
            reply = await engine.call(self.role, messages, purpose="check")
            if not reply.ok:
                engine.record_note(self.role, TurnKind.CHECK, "", {"failure": reply.kind.value}, reply)
                return False
            try:
                check = validate_answer(reply.text, CheckAnswer)
                break
            except ValueError as e:
                if attempt == 2:
                    engine.record_note(
                        self.role, TurnKind.CHECK, reply.text, {"failure": "parse", "error": str(e)}, reply
                    )
                    return False
                messages += [
                    {"role": "assistant", "content": reply.text},
                    {"role": "user", "content": REPAIR.format(error=e)},
                ]
        index = state["topics"].index(check.topic) if check.topic in state["topics"] else None
        data = {"topic_index": index, "topic": check.topic, "answer": check.answer.strip()}
        engine.record_note(self.role, TurnKind.CHECK, f"{check.topic}；{check.answer}", data, reply)
        if index is not None and check.answer.strip() not in ("", NONE) and index in state["unaddressed"]:
            state["unaddressed"].remove(index)
        state["last_check"] = data
        return not state["unaddressed"]
