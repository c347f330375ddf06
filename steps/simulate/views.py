"""What each role hears: its system prompt plus the utterances it can see, as chat messages.

Visibility: a role that `sees="all"` hears every utterance (two-party dialogues, the presiding judge); a
role that `sees="addressed"` hears only utterances addressed to it and its own (court parties), without the
control sentence that addressed it. The messages alternate user / assistant after the system prompt, as chat
templates require: a role that speaks first is given the scenario's kickoff line, and one that speaks again
with no one answering is given its nudge line, exactly as it was when it spoke. Supervisor
records, drafts sent back for revision and reviews are heard by nobody. A role's own utterances are
`assistant` messages; everyone else's are `user` messages, named by speaker when several others speak.
"""

from __future__ import annotations

from steps.llm.reasoning import strip_reasoning
from steps.simulate.model import Role, Scenario, Turn, TurnKind


def clean_utterance(text: str) -> str:
    """Strip reasoning traces (<think>…</think>, steps/llm/reasoning.py) before a reply is routed or scored (spec j1
    §9.3-25). The model door already gives answers without their trace (`Completion.reasoning` holds it); this
    also cleans a reply a journal recorded before it did."""
    return strip_reasoning(text)


def visible(turn: Turn, role: Role) -> bool:
    if turn.kind is not TurnKind.UTTERANCE or turn.failure is not None:
        return False
    if role.sees == "all" or turn.speaker == role.name:
        return True
    return turn.addressee == role.name


def view_messages(scenario: Scenario, role: Role, system_prompt: str, turns: list[Turn]) -> list[dict[str, str]]:
    """Chat messages for `role`'s next turn."""
    heard = [t for t in turns if visible(t, role)]
    others = {t.speaker for t in heard if t.speaker != role.name}
    named = len(others) > 1 or (role.sees == "all" and len(scenario.roles) > 2)
    messages: list[dict[str, str]] = [{"role": "system", "content": system_prompt}]
    strip = getattr(scenario.next_speaker, "strip", None) if role.sees == "addressed" else None
    for t in heard:
        if t.speaker == role.name:
            if messages[-1]["role"] != "user":  # it spoke first, or again with no one answering
                messages.append({"role": "user", "content": scenario.kickoff if len(messages) == 1 else scenario.nudge})
            messages.append({"role": "assistant", "content": t.text})
        else:
            text = strip(t.text) if strip else t.text
            label = scenario.roles[t.speaker].label or t.speaker
            _append(messages, "user", f"{label}：{text}" if named else text)
    if messages[-1]["role"] != "user":
        messages.append({"role": "user", "content": scenario.kickoff if len(messages) == 1 else scenario.nudge})
    return messages


def _append(messages: list[dict[str, str]], role: str, content: str) -> None:
    """Merge consecutive user messages (several others spoke before this role's turn)."""
    if messages[-1]["role"] == role and role != "system":
        messages[-1] = {"role": role, "content": f"{messages[-1]['content']}\n\n{content}"}
    else:
        messages.append({"role": role, "content": content})
