"""The engine's vocabulary: roles, scenarios, turns, dialogues and why a dialogue ended."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol

from steps.llm import Reply


class EndReason(StrEnum):
    MARKER = "marker"  # a role wrote the scenario's end marker
    TOPICS_DONE = "topics_done"  # the supervisor found every topic addressed (KQ/LC)
    MAX_TURNS = "max_turns"
    CALL_FAILED = "call_failed"  # a model call failed after retries: recorded, never passed on as speech
    EMPTY_REPLY = "empty_reply"  # a role said nothing (after reasoning traces are stripped): nothing to pass on
    # the agent under test's request was longer than its context (a `context_exceeded` failed call): the model's
    # limit, where its dialogue ends, not a harness failure (an environment role's is CALL_FAILED)
    CONTEXT_EXCEEDED = "context_exceeded"


class TurnKind(StrEnum):
    UTTERANCE = "utterance"  # speech that the addressed roles hear
    CHECK = "check"  # a supervisor's record after an exchange (e.g. topic and answer summary)
    DRAFT = "draft"  # a reviewed turn that the reviewer sent back for revision (heard by no one)
    REVIEW = "review"  # the reviewer's verdict on a draft
    DELIVERABLE = "deliverable"  # a forced final document (does not count as a turn)


@dataclass(frozen=True)
class Role:
    """A participant. `model` says which configured model plays it; `sees` which turns it hears."""

    name: str
    model: Literal["agent", "environment"]
    template: str  # Jinja template of its system prompt, relative to the scenario's templates folder
    sees: Literal["all", "addressed"] = "all"
    label: str = ""  # how others hear it named in multi-party views, e.g. 原告代理律师


@dataclass(frozen=True)
class Ending:
    max_turns: int
    markers: dict[str, str] = field(default_factory=dict)  # role -> end marker it may write
    requires_reply: tuple[str, ...] = ()  # roles whose marker counts only after another role has spoken


@dataclass(frozen=True)
class Deliverable:
    """What the dialogue produces: `marker_message` (the message carrying the end marker, or a forced
    extra call when it holds no document), `last_matching` (the last message of `role` that contains every
    string in `must_contain`, never forced), `after_dialogue` (always one extra call) or `none`."""

    kind: Literal["marker_message", "last_matching", "after_dialogue", "none"] = "none"
    role: str = ""
    name: str = ""  # complaint, defence, judgment ...
    must_contain: tuple[str, ...] = ()
    force_template: str = ""  # the user message that asks for the document when it must be forced


@dataclass(frozen=True)
class Turn:
    """One row of a transcript, keyed by (instance_id, turn_index)."""

    instance_id: str
    turn_index: int
    exchange: int
    speaker: str
    addressee: str | None
    kind: TurnKind
    text: str
    model: str = ""
    call_key: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cache_hit: bool = False
    truncated: bool = False  # the reply was cut at max_tokens (an answer, perhaps not a whole one)
    failure: str | None = None
    reasoning: str | None = None  # the reply's reasoning trace, removed from `text` (steps/llm/reasoning.py)
    revision: int = 0
    data: dict[str, Any] = field(default_factory=dict)  # structured extras (checker fields, review verdicts)


@dataclass
class Dialogue:
    instance_id: str
    scenario: str
    turns: list[Turn] = field(default_factory=list)
    ended_by: EndReason | None = None
    exchanges: int = 0
    deliverable: str | None = None
    deliverable_forced: bool = False
    state: dict[str, Any] = field(default_factory=dict)

    def utterances(self) -> list[Turn]:
        """The speech of the dialogue: utterances that were produced (failed calls are not speech)."""
        return [t for t in self.turns if t.kind is TurnKind.UTTERANCE and t.failure is None]


@dataclass(frozen=True)
class SpeakCall:
    """Everything the model door needs for one role's turn; `context` reaches scripted models only."""

    instance_id: str
    scenario: str
    role: Role
    messages: list[dict[str, str]]
    turn_index: int
    purpose: str
    context: dict[str, Any] = field(default_factory=dict)


Speak = Callable[[SpeakCall], Awaitable[Reply]]


class Hook(Protocol):
    """A supervisor that runs beside the turn loop (topic tracker, reviewer)."""

    async def after_exchange(self, engine: Any, dialogue: Dialogue) -> bool:
        """Called when an exchange completes; returns True when the dialogue should end (topics done)."""
        ...


@dataclass(frozen=True)
class Scenario:
    """A scenario is data: its roles, protocol, ending, deliverable and templates."""

    code: str
    version: int
    roles: dict[str, Role]
    opener: str
    driver: str  # each utterance of the driver starts a new exchange (the paper's turn unit)
    next_speaker: Any  # Alternate | ByAddressee (steps.simulate.routing)
    ending: Ending
    deliverable: Deliverable = Deliverable()
    templates: str = ""  # folder with the Jinja templates
    kickoff: str = "（对话开始，请你先发言。）"  # user line given to a role that must speak first
    nudge: str = "（请继续。）"  # user line given to a role that speaks twice in a row
    reviewer: Any = None  # optional Reviewer (steps.simulate.review)
    tracker: Any = None  # optional after-exchange hook (e.g. a topic tracker)

    def role(self, name: str) -> Role:
        return self.roles[name]
