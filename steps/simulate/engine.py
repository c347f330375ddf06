"""The turn loop: run one instance of a scenario to its end, and take its deliverable.

The engine knows nothing about any particular scenario: roles, routing, ending, deliverable, review and
tracking hooks all come from the `Scenario` value. Every model call goes through the injected `speak`.
"""

from __future__ import annotations

from typing import Any

from steps.llm import FailureKind, Reply, reasoning_of
from steps.simulate.instance import Instance
from steps.simulate.model import Dialogue, EndReason, Scenario, Speak, SpeakCall, Turn, TurnKind
from steps.simulate.templates import render
from steps.simulate.views import clean_utterance, view_messages


def recites_marker(text: str, marker: str, instructions: str, lead: int = 4) -> bool:
    """True when every end marker in `text` comes right after words copied from the role's instructions.

    Small real models recite their system prompt ("…最后写上“<结束庭审>”。"): a marker quoted together with the
    `lead` or more characters that introduce it in the instructions ends nothing. A marker after the model's own
    words does.
    """
    starts = [i for i in range(len(text)) if text.startswith(marker, i)]
    return bool(starts) and all(i >= lead and text[i - lead : i] + marker in instructions for i in starts)


class Engine:
    """Runs one instance: `run` is the turn loop; `utter`, `messages` and `call` are what hooks use."""

    def __init__(self, scenario: Scenario, instance: Instance, speak: Speak):
        self.scenario, self.instance, self.speak = scenario, instance, speak
        self.dialogue = Dialogue(instance.instance_id, scenario.code)
        self.max_turns = instance.max_turns or scenario.ending.max_turns

    # ------------------------------------------------------------------ the loop
    async def run(self) -> Dialogue:
        d, sc = self.dialogue, self.scenario
        if sc.tracker is not None:
            sc.tracker.start(self)
        speaker = sc.opener
        while True:
            if speaker == sc.driver:
                if d.exchanges >= self.max_turns:
                    d.ended_by = EndReason.MAX_TURNS
                    break
                d.exchanges += 1
            turn = await self.utter(speaker)
            if turn is None:
                d.ended_by = self._failed_end()
                break
            if not turn.text:
                d.ended_by = EndReason.EMPTY_REPLY
                break
            if self._ends(turn):
                d.ended_by = EndReason.MARKER
                break
            if speaker != sc.driver and sc.tracker is not None and await sc.tracker.after_exchange(self, d):
                d.ended_by = EndReason.TOPICS_DONE
                break
            speaker = sc.next_speaker.route(speaker, turn.text)[1]
        if d.ended_by not in (EndReason.CALL_FAILED, EndReason.EMPTY_REPLY):
            # at the agent's context limit, only a deliverable that needs no call is taken (one more would not fit)
            await self._take_deliverable(call=d.ended_by is not EndReason.CONTEXT_EXCEEDED)
        return d

    def _failed_end(self) -> EndReason:
        """How the dialogue ends at the failed call just recorded: `context_exceeded` when it was a role the agent
        under test plays whose request outgrew its context (the model's limit), else `call_failed`."""
        last = self.dialogue.turns[-1]
        role = self.scenario.roles.get(last.speaker)
        overflow = last.failure is not None and last.failure.startswith(f"{FailureKind.CONTEXT_EXCEEDED.value}:")
        return (
            EndReason.CONTEXT_EXCEEDED
            if overflow and role is not None and role.model == "agent"
            else EndReason.CALL_FAILED
        )

    def _ends(self, turn: Turn) -> bool:
        marker = self.scenario.ending.markers.get(turn.speaker)
        if not marker or marker not in turn.text:
            return False
        role = self.scenario.role(turn.speaker)
        instructions = render(self.scenario.templates, role.template, self.template_context(turn.speaker))
        if recites_marker(turn.text, marker, instructions):
            return False
        if turn.speaker in self.scenario.ending.requires_reply:
            return any(t.speaker != turn.speaker for t in self.dialogue.utterances())
        return True

    # ------------------------------------------------------------------ one utterance
    async def utter(self, role_name: str) -> Turn | None:
        """One turn of `role_name` (revised under review when the scenario has a reviewer)."""
        reply = await self.call(role_name, self.messages(role_name), purpose="dialogue")
        revision = 0
        reviewer = self.scenario.reviewer
        while reply.ok and reviewer is not None and role_name in reviewer.reviews:
            verdict = await reviewer.review(self, role_name, clean_utterance(reply.text))
            if verdict is None or verdict.accepted or revision >= reviewer.max_revisions:
                break
            self.record(role_name, TurnKind.DRAFT, reply, revision=revision)
            self.record_note(reviewer.role, TurnKind.REVIEW, verdict.advice, data={"accepted": False})
            revision += 1
            reply = await self.call(
                role_name, reviewer.revise_messages(self, role_name, reply.text, verdict), purpose="revision"
            )
        if not reply.ok:
            self.record(role_name, TurnKind.UTTERANCE, reply)
            return None
        return self.record(role_name, TurnKind.UTTERANCE, reply, revision=revision)

    def messages(self, role_name: str, extra_user: str | None = None) -> list[dict[str, str]]:
        role = self.scenario.role(role_name)
        system = render(self.scenario.templates, role.template, self.template_context(role_name))
        messages = view_messages(self.scenario, role, system, self.dialogue.turns)
        if extra_user:
            if messages[-1]["role"] == "user":
                messages[-1] = {"role": "user", "content": f"{messages[-1]['content']}\n\n{extra_user}"}
            else:
                messages.append({"role": "user", "content": extra_user})
        return messages

    def template_context(self, role_name: str) -> dict[str, Any]:
        return {**self.instance.profiles.get(role_name, {}), "state": self.dialogue.state, "max_turns": self.max_turns}

    async def call(self, role_name: str, messages: list[dict[str, str]], *, purpose: str) -> Reply:
        role = self.scenario.role(role_name)
        context = {
            "profile": self.instance.profiles.get(role_name, {}),
            "state": self.dialogue.state,
            "own_turns": sum(t.speaker == role_name for t in self.dialogue.utterances()),
            "exchange": self.dialogue.exchanges,
            "purpose": purpose,
        }
        if role.model == "agent":
            context["ground_truth"] = self.instance.ground_truth  # read by the scripted oracle only
        return await self.speak(
            SpeakCall(
                self.instance.instance_id,
                self.scenario.code,
                role,
                messages,
                len(self.dialogue.turns),
                purpose,
                context,
            )
        )

    # ------------------------------------------------------------------ records
    def record(
        self, speaker: str, kind: TurnKind, reply: Reply, *, revision: int = 0, data: dict[str, Any] | None = None
    ) -> Turn:
        """Record a model reply as a turn (an utterance is routed to its addressee)."""
        text = clean_utterance(reply.text) if reply.ok else ""
        addressee = None
        if kind is TurnKind.UTTERANCE and reply.ok:
            addressee = self.scenario.next_speaker.route(speaker, text)[0]
        return self._append(speaker, kind, text, reply, addressee, revision, data)

    def record_note(
        self, speaker: str, kind: TurnKind, text: str, data: dict[str, Any] | None = None, reply: Reply | None = None
    ) -> Turn:
        """A record that is not speech (a supervisor's check, a review), optionally with its model call."""
        return self._append(speaker, kind, text, reply, None, 0, data)

    def _append(
        self,
        speaker: str,
        kind: TurnKind,
        text: str,
        reply: Reply | None,
        addressee: str | None,
        revision: int,
        data: dict[str, Any] | None,
    ) -> Turn:
        turn = Turn(
            instance_id=self.instance.instance_id,
            turn_index=len(self.dialogue.turns),
            exchange=self.dialogue.exchanges,
            speaker=speaker,
            addressee=addressee,
            kind=kind,
            text=text,
            model=reply.model if reply else "",
            call_key=reply.call_key if reply else "",
            prompt_tokens=getattr(reply, "prompt_tokens", 0),
            completion_tokens=getattr(reply, "completion_tokens", 0),
            latency_s=getattr(reply, "latency_s", 0.0),
            cache_hit=getattr(reply, "cache_hit", False),
            truncated=getattr(reply, "truncated", False),
            failure=None if reply is None or reply.ok else f"{reply.kind.value}: {reply.message}",
            reasoning=None if reply is None else reasoning_of(reply),
            revision=revision,
            data=data or {},
        )
        self.dialogue.turns.append(turn)
        return turn

    # ------------------------------------------------------------------ deliverable
    async def _take_deliverable(self, call: bool = True) -> None:
        """The dialogue's deliverable; with `call` False, only one that needs no model call."""
        spec, d = self.scenario.deliverable, self.dialogue
        if spec.kind == "none":
            return
        own = [t for t in d.utterances() if t.speaker == spec.role]
        marker = self.scenario.ending.markers.get(spec.role, "")
        if spec.kind == "last_matching":
            match = [t for t in own if all(s in t.text for s in spec.must_contain)]
            d.deliverable = (match[-1].text.replace(marker, "").strip() or None) if match else None
            return
        if spec.kind == "marker_message" and d.ended_by is EndReason.MARKER and own and marker in own[-1].text:
            text = own[-1].text.replace(marker, "").strip()
            if all(s in text for s in spec.must_contain):
                d.deliverable = text
                return
        if not call:
            return
        reply = await self.call(
            spec.role, self.messages(spec.role, extra_user=spec.force_template), purpose="deliverable"
        )
        self.record(spec.role, TurnKind.DELIVERABLE, reply)
        d.deliverable = (clean_utterance(reply.text).replace(marker, "").strip() or None) if reply.ok else None
        d.deliverable_forced = spec.kind == "marker_message"
        if not reply.ok:
            d.ended_by = self._failed_end()


async def run_dialogue(scenario: Scenario, instance: Instance, speak: Speak) -> Dialogue:
    """Run one instance to its end (see `Engine`)."""
    return await Engine(scenario, instance, speak).run()
