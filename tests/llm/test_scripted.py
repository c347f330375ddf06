"""Scripted offline models travel the litellm path: policies, metadata, cache and accounting."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from steps.llm import FailureKind, LLMSettings, ModelConfig, ModelDoor, ScriptedRequest, register_policy
from steps.llm.scripted import policy_for

ROOT = Path(__file__).resolve().parents[2]


def test_null_answers_nothing_for_every_purpose(tmp_path):
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)))
    null = ModelConfig(name="null", model="scripted/null")
    for scenario in ("lawbench", "j1.KQ", "judge.pointwise"):
        reply = asyncio.run(
            door.complete(null, [{"role": "user", "content": "问题"}], purpose="agent", metadata={"scenario": scenario})
        )
        assert reply.ok and reply.text == ""


def test_policies_see_messages_and_metadata_and_replies_are_cached(tmp_path):
    seen: list[ScriptedRequest] = []

    def oracle(request: ScriptedRequest) -> str:
        seen.append(request)
        return f"答案：{request.metadata['reference']}"

    register_policy("oracle", "test.scripted", oracle)
    model = ModelConfig(name="oracle", model="scripted/oracle")
    messages = [{"role": "user", "content": "请回答"}]
    meta = {"scenario": "test.scripted", "instance_id": "x/1", "reference": "甲"}
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)), run_id="r")
    first = asyncio.run(door.complete(model, messages, purpose="agent", metadata=meta))
    second = asyncio.run(door.complete(model, messages, purpose="agent", metadata=meta))
    assert first.text == second.text == "答案：甲" and second.cache_hit and len(seen) == 1
    assert seen[0].last_user == "请回答" and seen[0].scenario == "test.scripted"
    assert [u.cache_hit for u in door.usage] == [False, True] and door.usage[0].cost_usd == 0.0
    assert door.usage[0].metadata == {"instance_id": "x/1", "scenario": "test.scripted"}


def test_missing_policy_is_a_typed_failure_not_a_retry_loop(tmp_path):
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)))
    reply = asyncio.run(
        door.complete(
            ModelConfig(name="o", model="scripted/oracle"),
            [{"role": "user", "content": "q"}],
            purpose="agent",
            metadata={"scenario": "no.such.scenario"},
        )
    )
    assert not reply.ok and reply.kind is FailureKind.BAD_REQUEST and reply.attempts == 1
    assert "no policy for scripted/oracle in scenario 'no.such.scenario'" in reply.message


def test_unknown_scripted_model_is_rejected_at_registration():
    with pytest.raises(ValueError, match="unknown scripted model"):
        register_policy("genius", "x", lambda r: "")
    assert policy_for("null", "anything")(ScriptedRequest("null", [])) == ""


def test_only_the_model_door_imports_litellm():
    offenders = []
    for path in [*ROOT.glob("steps/**/*.py"), *ROOT.glob("flows/**/*.py"), *ROOT.glob("perf/**/*.py")]:
        if path.is_relative_to(ROOT / "steps/llm"):
            continue
        if re.search(r"^\s*(import litellm|from litellm)", path.read_text(encoding="utf-8"), re.M):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_editing_a_policy_changes_its_cache_key(tmp_path):
    """The policy's source enters the key of scripted calls: a changed policy is never served stale answers."""
    import importlib.util
    import sys

    from steps.llm import LLMSettings, ModelConfig, ModelDoor

    def load(version: str):
        path = tmp_path / f"policy_{version}.py"
        path.write_text(
            "from steps.llm import register_policy\n"
            f"register_policy('oracle', 'edited', lambda request: 'answer {version}')\n",
            encoding="utf-8",
        )
        spec = importlib.util.spec_from_file_location(f"policy_{version}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)

    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / "cache")))
    oracle = ModelConfig(name="oracle", model="scripted/oracle")
    ask = [{"role": "user", "content": "same question"}]
    texts = []
    for version in ("one", "two"):
        load(version)
        reply = asyncio.run(door.complete(oracle, ask, purpose="agent", metadata={"scenario": "edited"}))
        texts.append((reply.text, reply.cache_hit))
    door.close()
    assert texts == [("answer one", False), ("answer two", False)]


def test_a_scripted_call_that_a_busy_machine_delays_past_its_timeout_is_retried(tmp_path):
    """A scripted policy's own errors are deterministic (not retried), but a call that a loaded machine holds past
    `timeout_s` before the policy even runs is a delay, not the policy's answer: retried like a server's timeout."""

    class Busy(ModelDoor):  # the first attempt waits longer than timeout_s, as a starved event loop or thread pool does
        delayed = 0

        async def _litellm_call(self, *args, **kwargs):
            if not Busy.delayed:
                Busy.delayed += 1
                await asyncio.sleep(0.5)
            return await super()._litellm_call(*args, **kwargs)

    register_policy("oracle", "test.busy", lambda request: "好")
    door = Busy(LLMSettings(cache_dir=str(tmp_path), timeout_s=0.2, backoff_base_s=0.01, backoff_max_s=0.01))
    model = ModelConfig(name="o", model="scripted/oracle")
    reply = asyncio.run(
        door.complete(model, [{"role": "user", "content": "q"}], purpose="agent", metadata={"scenario": "test.busy"})
    )
    assert Busy.delayed == 1 and reply.ok and reply.text == "好" and reply.attempts == 2
