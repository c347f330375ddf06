"""Reviewed turns: a supervisor checks a role's candidate turn and accepts it or sends it back with advice.

The engine's side of the protocol (`Engine.utter`): for a role in `reviewer.reviews`, it asks
`await reviewer.review(engine, role, text)` for a verdict (`.accepted`, `.advice`); when the verdict is not
accepted and `reviewer.max_revisions` allows, it records the draft (heard by no one) and the advice, then asks
the role again with `reviewer.revise_messages(engine, role, text, verdict)`. The kept turn carries its
revision count.

`Reviewer` is the generic base a scenario's supervisor extends (it implements `check`):
- a revised turn is not reviewed again once `max_revisions` are spent (`review` answers None without a call);
- every verdict is kept as a CHECK record (heard by no one) with the supervisor's data, accepted or not;
- the default revision request is one user message appended to the role's own view: its original incoming
  message, the advice, the rejected draft and a cue for the revised reply (MASER's revision call);
- a verdict may instead ask for a *replacement* (`replace=True`): the scenario builds that call itself
  (MASER's fact blurring, whose output becomes the turn verbatim);
- the supervisor's own calls (`ask`) go to the environment model under the reviewer's role name, which is
  not a dialogue role, so the speakers' views are unchanged;
- a supervisor call that fails after the door's retries leaves the candidate unreviewed and is recorded
  (CHECK with `failure`), so a model outage is counted, never mistaken for approval; an answer that holds no
  verdict (the request recited back, `steps/simulate/echo.py`) is recorded too (CHECK with `unusable`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from steps.llm import Completion, Reply
from steps.simulate.model import Role, SpeakCall, Turn, TurnKind

REVISE = (
    "对话监督者建议修改你刚才准备说的话。\n\n建议：{advice}\n\n你刚才准备说的话：\n{draft}\n\n"
    "请按照建议修改，只输出修改后的回复："
)


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    advice: str = ""
    replace: bool = False  # the advice asks for a replacement turn rather than a revision of the draft
    data: dict[str, Any] = field(default_factory=dict)


def parse_advice(text: str, accept_phrase: str, label: str = "") -> Verdict:
    """A supervisor's one-line answer: accepted when it contains `accept_phrase`, else the advice itself.

    The speaker label the answer is asked to start with (`**对话监督者**：`) is stripped from the advice.
    """
    body = text.strip()
    if label:
        for variant in (f"**{label}**：", f"**{label}**:", f"{label}：", f"{label}:"):
            body = body.replace(variant, "")
    body = body.strip()
    if accept_phrase in text:
        return Verdict(True, "")
    return Verdict(False, body)


def revisions_done(turns: list[Turn], role: str) -> int:
    """Drafts of `role` sent back since its last kept turn (the revisions already spent on this turn)."""
    count = 0
    for turn in reversed(turns):
        if turn.kind in (TurnKind.UTTERANCE, TurnKind.DELIVERABLE):
            break
        if turn.kind is TurnKind.DRAFT and turn.speaker == role:
            count += 1
    return count


class Reviewer:
    """Base supervisor: subclasses set `reviews` and implement `check`."""

    role: str = "supervisor"
    reviews: frozenset[str] = frozenset()
    max_revisions: int = 1
    accept_phrase: str = "回复无误"

    async def review(self, engine: Any, role: str, text: str) -> Verdict | None:
        if revisions_done(engine.dialogue.turns, role) >= self.max_revisions:
            return None
        verdict = await self.check(engine, role, text)
        if verdict is not None:
            note = verdict.advice or self.accept_phrase
            engine.record_note(
                self.role,
                TurnKind.CHECK,
                note,
                data={"reviewed": role, "accepted": verdict.accepted, "replace": verdict.replace, **verdict.data},
            )
        return verdict

    async def check(self, engine: Any, role: str, text: str) -> Verdict | None:
        """The verdict on `role`'s candidate `text`; None leaves it unreviewed."""
        raise NotImplementedError

    def revision_request(self, advice: str, draft: str) -> str:
        return REVISE.format(advice=advice, draft=draft)

    def revise_messages(self, engine: Any, role: str, text: str, verdict: Verdict) -> list[dict[str, str]]:
        """The role's own view with the revision request appended to its last incoming message."""
        return engine.messages(role, extra_user=self.revision_request(verdict.advice, text))

    async def ask(
        self, engine: Any, messages: list[dict[str, str]], *, purpose: str, context: dict[str, Any] | None = None
    ) -> Reply:
        """One environment-model call as the supervisor (`context` reaches scripted models only)."""
        call = SpeakCall(
            engine.instance.instance_id,
            engine.scenario.code,
            Role(self.role, "environment", ""),
            messages,
            len(engine.dialogue.turns),
            purpose,
            {
                "profile": engine.instance.profiles.get(self.role, {}),
                "state": engine.dialogue.state,
                "exchange": engine.dialogue.exchanges,
                "purpose": purpose,
                **(context or {}),
            },
        )
        return await engine.speak(call)

    def failed(self, engine: Any, reviewed: str, step: str, reply: Reply) -> None:
        """Record a supervisor call that failed after retries (the candidate stays unreviewed)."""
        engine.record_note(
            self.role,
            TurnKind.CHECK,
            "",
            {"reviewed": reviewed, "step": step, "failure": getattr(reply, "kind", "")},
            reply,
        )

    def unusable(self, engine: Any, reviewed: str, step: str, reply: Completion, why: str) -> None:
        """Record a supervisor answer that holds no verdict (e.g. `echoed_prompt`); the candidate stays unreviewed."""
        engine.record_note(
            self.role, TurnKind.CHECK, reply.text, {"reviewed": reviewed, "step": step, "unusable": why}, reply
        )
