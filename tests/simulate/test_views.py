"""Property: no role's view ever holds another role's private profile or the ground truth.

Every profile field of every role, and every ground-truth field, is filled with a unique marker. Random
dialogues (random addressees, aliases, missing or misplaced control sentences, end markers, failed calls) are
run on the real J1 scenarios; in every call each role may see only its own markers, and a court party hears
only what was addressed to it, without the control sentence.
"""

from __future__ import annotations

import asyncio
import random
import types
import typing
from typing import Any, get_args, get_origin

import pytest
from pydantic import BaseModel

from steps.j1.envs.catalog import environment
from steps.j1.envs.registry import SCENARIOS
from steps.llm import CallFailure, Completion, FailureKind
from steps.simulate.engine import run_dialogue
from steps.simulate.instance import Instance
from steps.simulate.model import SpeakCall

MARK = "〔"


def _value(annotation: Any, marker: str) -> Any:
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return _value(get_args(annotation)[0], marker)
    if origin in (typing.Union, types.UnionType):
        return _value(next(a for a in get_args(annotation) if a is not type(None)), marker)
    if origin is typing.Literal:
        return get_args(annotation)[0]
    if origin is list:
        return [_value(get_args(annotation)[0], f"{marker}#{i}") for i in range(2)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {n: _value(f.annotation, f"{marker}.{n}") for n, f in annotation.model_fields.items()}
    if annotation is int:
        return 7
    if annotation is float:
        return 7.0
    return f"{MARK}{marker}〕"


def marked_instance(code: str) -> Instance:
    profiles = {role: _value(model, role) for role, model in environment(code).profiles.items()}
    truth = _value(environment(code).truth, "truth")
    if code in ("KQ", "LC"):
        truth["topics"] = [{**t, "kind": "open_phrase"} for t in truth["topics"]]
    return Instance(f"{code}/marked", code, profiles, truth, SCENARIOS[code].ending.max_turns)


def own(role: str, text: str) -> bool:
    """Whether every marker in `text` belongs to `role`'s own profile (the KQ/LC supervisor also checks the
    client's topic list, spec j1-envs §6.3-a: the topics, never their answers)."""
    markers = [m.split("〕")[0].split("#")[0] for m in text.split(MARK)[1:]]
    allowed = ("client.topics",) if role == "supervisor" else ()
    return all(m.split(".")[0] == role or m in allowed for m in markers)


class RandomSpeaker:
    """Random but marker-free utterances; the chair uses every form of control sentence; some calls fail."""

    def __init__(self, code: str, rng: random.Random):
        self.code, self.rng, self.calls = code, rng, []
        routing = SCENARIOS[code].next_speaker
        self.prefixes = list(getattr(routing, "prefixes", {}))

    async def __call__(self, call: SpeakCall):
        self.calls.append(call)
        r = self.rng.random()
        if r < 0.01:
            return CallFailure(FailureKind.TIMEOUT, "injected", "x/y", "k", 3)
        words = self.rng.choice(["请说明。", "好的。", "我不清楚。", "请继续陈述。", "是否申请回避？"])
        if call.role.name == "judge" and self.prefixes:
            form = self.rng.choice(["prefix", "prefix", "ascii", "none", "middle"])
            prefix = self.rng.choice(self.prefixes)
            words = {
                "prefix": prefix + words,
                "ascii": prefix.replace("：", ":") + words,
                "none": words,
                "middle": words + prefix + "再说。",
            }[form]
        if r > 0.97:
            words += self.rng.choice(["<结束庭审>", "<询问结束>", "结束对话"])
        if call.purpose == "check":
            words = '{"topic": "无", "answer": "无"}'
        return Completion(words, "x/y", "k", 1, 1, 0.0, 0.0, 1, False)


@pytest.mark.parametrize("code", ["KQ", "LC", "CD", "DD", "CI", "CR"])
def test_no_view_holds_another_roles_profile_or_the_ground_truth(code):
    scenario, instance = SCENARIOS[code], marked_instance(code)
    checked = 0
    for seed in range(60):
        speak = RandomSpeaker(code, random.Random(seed))
        asyncio.run(run_dialogue(scenario, instance, speak))
        for call in speak.calls:
            role = call.role.name
            for m in call.messages:
                assert own(role, m["content"]), (seed, role, m["content"][:200])
                assert "〔truth" not in m["content"]
            if scenario.roles[role].sees == "addressed" and speak.prefixes:  # a court party
                heard = [m["content"] for m in call.messages[1:] if m["role"] == "user"]
                controls = [*speak.prefixes, *(p.replace("：", ":") for p in speak.prefixes)]
                assert not any(h.startswith(tuple(controls)) for h in heard)  # stripped before it is heard
            checked += 1
    assert checked > 500


def test_a_party_hears_exactly_the_utterances_addressed_to_it():
    scenario, instance = SCENARIOS["CR"], marked_instance("CR")
    for seed in range(40):
        speak = RandomSpeaker("CR", random.Random(seed))
        d = asyncio.run(run_dialogue(scenario, instance, speak))
        routing = scenario.next_speaker
        for party in ("defendant", "defence", "procurator"):
            addressed = [routing.strip(t.text) for t in d.utterances() if t.speaker == "judge" and t.addressee == party]
            calls = [c for c in speak.calls if c.role.name == party]
            if calls:
                last = calls[-1].messages
                heard = [m["content"] for m in last[1:] if m["role"] == "user"]
                assert heard == addressed[: len(heard)] and len(heard) >= len(addressed) - 1
