"""Toy scenarios and scripted speakers for engine tests (no model door involved)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from steps.llm import CallFailure, Completion, FailureKind
from steps.simulate import Deliverable, Ending, Role, Scenario, SpeakCall
from steps.simulate.routing import Alternate, ByAddressee

TEMPLATES = Path(__file__).parent / "templates"


def court(max_turns: int = 10, **over) -> Scenario:
    roles = {
        "judge": Role("judge", "agent", "judge.j2", sees="all", label="审判长"),
        "defendant": Role("defendant", "environment", "party.j2", sees="addressed", label="被告人"),
        "procurator": Role("procurator", "environment", "party.j2", sees="addressed", label="公诉机关"),
    }
    return Scenario(
        code="TOYCOURT",
        version=1,
        roles=roles,
        opener="judge",
        driver="judge",
        next_speaker=ByAddressee("judge", {"对被告人说：": "defendant", "对公诉机关说：": "procurator"}),
        ending=Ending(max_turns=max_turns, markers={"judge": "<结束庭审>"}),
        deliverable=Deliverable("last_matching", role="judge", name="judgment", must_contain=("本院认为",)),
        templates=str(TEMPLATES),
        nudge="（请继续主持庭审。）",
        **over,
    )


def interview(max_turns: int = 5, **over) -> Scenario:
    roles = {"lawyer": Role("lawyer", "agent", "lawyer.j2"), "client": Role("client", "environment", "party.j2")}
    return Scenario(
        code="TOYCD",
        version=1,
        roles=roles,
        opener="lawyer",
        driver="lawyer",
        next_speaker=Alternate("lawyer", "client"),
        ending=Ending(max_turns=max_turns, markers={"lawyer": "<询问结束>"}),
        deliverable=Deliverable(
            "marker_message",
            role="lawyer",
            name="complaint",
            must_contain=("起诉状",),
            force_template="请现在输出完整的起诉状。",
        ),
        templates=str(TEMPLATES),
        **over,
    )


class Script:
    """A speak function that answers each role from its own list of lines, and records every call."""

    def __init__(
        self,
        lines: dict[str, list[str | None]],
        fail_at: set[tuple[str, int]] | None = None,
        fail_kind: FailureKind = FailureKind.SERVER,
    ):
        self.lines = {k: list(v) for k, v in lines.items()}
        self.fail_at, self.fail_kind = fail_at or set(), fail_kind
        self.calls: list[SpeakCall] = []
        self.count: dict[str, int] = defaultdict(int)

    async def __call__(self, call: SpeakCall):
        self.calls.append(call)
        name = call.role.name
        n = self.count[name]
        self.count[name] += 1
        if (name, n) in self.fail_at:
            return CallFailure(self.fail_kind, "injected", "scripted/x", f"k{len(self.calls)}", 3)
        queue = self.lines.get(name, [])
        text = queue.pop(0) if queue else "……"
        return Completion(text, "scripted/x", f"k{len(self.calls)}", 1, 1, 0.0, 0.01, 1, False)


def speaker_of(fn: Callable[[SpeakCall], str]):
    async def speak(call: SpeakCall):
        return Completion(fn(call), "scripted/x", "k", 1, 1, 0.0, 0.0, 1, False)

    return speak
