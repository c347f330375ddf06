"""Decoding per environment role (`mile.role_decoding`, spec maser-mile §2.6): the preset, the merge over the
environment's decoding, the validation, which decoding each call of a real dialogue carries, and determinism."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.config import load_params
from flows.kit.models import read_usage_log
from flows.kit.stage import run_stage
from flows.run import mile_simulate
from steps.llm import Decoding, LLMSettings, ModelConfig, ModelDoor
from steps.mile.decoding import RoleDecodingSpeaker
from steps.mile.instances import build_instance
from steps.mile.opening import FixedOpening
from steps.mile.params import ROLES, MileParams, effective_decodings
from steps.mile.scenario import mile_scenario
from steps.mile.stages import spec_of
from steps.mile.supervisor import BLUR_INSTRUCTIONS
from steps.runs import run_id
from steps.simulate.engine import run_dialogue
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import project_paths
from tests.mile.conftest import ORACLE, PERSONA, row_of


class RecordingDoor(ModelDoor):
    """The real door, keeping what each call was sent with (model config, purpose, metadata) and its reply."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls: list[tuple[ModelConfig, dict, object]] = []

    async def complete(self, model, messages, *, purpose, metadata=None, fresh=False, response_format=None):
        reply = await super().complete(
            model, messages, purpose=purpose, metadata=metadata, fresh=fresh, response_format=response_format
        )
        self.calls.append((model, dict(metadata or {}), reply))
        return reply


def role_of_call(model: ModelConfig, meta: dict) -> str:
    """Which role a recorded call served, read from what the engine sent (not from the code under test)."""
    if model.name == "oracle":
        return "lawyer"
    if meta["role"] == "supervisor":
        return {"stage": "classifier", "review": "supervisor", "style": "styler"}[meta["purpose"]]
    blurring = meta["purpose"] == "revision" and meta["state"].get("pending", {}).get("mode") == "blur"
    return "blur" if blurring else "client"


def dialogue_calls(
    tmp_path: Path, mile, decodings: dict[str, Decoding], agent: ModelConfig = ORACLE, numbers=(1, 2, 3)
):
    """The recorded door calls of a few dialogues (style checks forced so every role speaks), and the turns."""
    door = RecordingDoor(LLMSettings(cache_dir=str(tmp_path / "llm"), max_attempts=1), run_id="test")
    options = MileParams(style_triggers_revision=True)
    speak = FixedOpening(RoleDecodingSpeaker(door, agent, PERSONA, decodings))
    turns = []
    for number in numbers:
        dialogue = asyncio.run(run_dialogue(mile_scenario(options), build_instance(row_of(mile, number)), speak))
        turns.append([(t.speaker, t.kind.value, t.text) for t in dialogue.turns])
    door.close()
    return door.calls, turns


DISTINCT = {role: Decoding(temperature=0.1 * i, max_tokens=100 + i) for i, role in enumerate(ROLES, start=1)}


def test_the_paper_preset_is_the_papers_table():
    got = {r: d.as_kwargs() for r, d in effective_decodings(Decoding(), "paper").items()}
    assert got == {
        "client": {"temperature": 0.5, "top_p": 1.0, "max_tokens": 2048},
        "supervisor": {"temperature": 0.0, "max_tokens": 2048},
        "classifier": {"temperature": 0.0, "max_tokens": 1024},
        "styler": {"temperature": 0.0, "max_tokens": 1024},
        "blur": {"temperature": 0.5},
    }
    assert MileParams().role_decoding == "paper"  # the default


def test_overrides_merge_field_by_field_over_the_environments_decoding():
    env = Decoding(temperature=0.2, top_p=0.9, max_tokens=300, seed=7, extra={"presence_penalty": 0.1})
    paper = effective_decodings(env, "paper")
    assert paper["client"] == Decoding(
        temperature=0.5, top_p=1.0, max_tokens=2048, seed=7, extra={"presence_penalty": 0.1}
    )
    assert paper["blur"] == Decoding(
        temperature=0.5, top_p=0.9, max_tokens=300, seed=7, extra={"presence_penalty": 0.1}
    )  # the paper names no cap for blurring
    assert effective_decodings(env, "none") == dict.fromkeys(ROLES, env)
    mapping = MileParams.model_validate(
        {
            "role_decoding": {
                "client": {"max_tokens": None, "extra": {"presence_penalty": 0.5, "stop": ["</s>"]}},
                "styler": {"seed": None, "top_p": 1},
            }
        }
    )
    merged = mapping.role_decodings(env)
    assert merged["client"] == Decoding(
        temperature=0.2, top_p=0.9, max_tokens=None, seed=7, extra={"presence_penalty": 0.5, "stop": ["</s>"]}
    )  # explicit null clears
    assert merged["styler"] == Decoding(
        temperature=0.2, top_p=1.0, max_tokens=300, seed=None, extra={"presence_penalty": 0.1}
    )
    assert merged["supervisor"] == merged["classifier"] == merged["blur"] == env  # roles not named


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"lawyer": {"temperature": 0}},
            "mile.role_decoding: unknown role 'lawyer'; roles are client, supervisor, "
            "classifier, styler, blur (the lawyer keeps agents.<name>.decoding)",
        ),
        ("greedy", "mile.role_decoding: unknown preset 'greedy'; expected a preset (paper | none)"),
        (
            {"client": {"temperature": -0.5}},
            "mile.role_decoding: role 'client': temperature: Input should be greater than or equal to 0 (got -0.5)",
        ),
        ({"blur": {"temp": 0.5}}, "mile.role_decoding: role 'blur': temp: Extra inputs are not permitted"),
        (
            {"supervisor": {"max_tokens": 0}},
            "role 'supervisor': max_tokens: Input should be greater than or equal to 1",
        ),
        ({"client": {"top_p": 1.5}}, "role 'client': top_p: Input should be less than or equal to 1"),
        ({"client": {"temperature": None}}, "role 'client': temperature: cannot be null"),
        (0.5, "mile.role_decoding: got float 0.5; expected a preset"),
    ],
)
def test_a_bad_setting_fails_with_one_clear_line(tmp_path, value, message):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"mile": {"role_decoding": value}}), encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        load_params(path)
    text = str(caught.value)
    assert "\n" not in text and text.startswith(f"{path}: ") and message in text


def test_each_call_carries_the_decoding_of_the_role_it_serves(tmp_path, mile):
    agent = ORACLE.model_copy(update={"decoding": Decoding(temperature=0, max_tokens=1024)})
    calls, _ = dialogue_calls(tmp_path, mile, DISTINCT, agent=agent)
    seen: dict[str, int] = {}
    for model, meta, reply in calls:
        role = role_of_call(model, meta)
        seen[role] = seen.get(role, 0) + 1
        assert model.decoding == (agent.decoding if role == "lawyer" else DISTINCT[role]), (role, meta["purpose"])
        assert model.model == ("scripted/oracle" if role == "lawyer" else "scripted/persona")
        assert reply.ok
    assert set(seen) == {*ROLES, "lawyer"}, seen  # every role spoke at least once


def test_a_roles_decoding_is_in_its_calls_cache_key_and_only_theirs(tmp_path, mile):
    first, turns = dialogue_calls(tmp_path, mile, DISTINCT)
    changed = {**DISTINCT, "styler": Decoding(temperature=0.9, max_tokens=77)}
    second, turns_again = dialogue_calls(tmp_path, mile, changed)  # same response cache
    assert turns_again == turns  # scripted answers do not depend on decoding
    assert len(first) == len(second)
    for (model, meta, before), (_, _, after) in zip(first, second, strict=True):
        styler = role_of_call(model, meta) == "styler"
        assert (before.call_key != after.call_key) is styler
        assert after.cache_hit is not styler  # only the style checks were asked again


def test_scripted_runs_stay_deterministic_whatever_the_decoding(tmp_path, mile):
    paper = effective_decodings(PERSONA.decoding, "paper")
    _, one = dialogue_calls(tmp_path / "a", mile, paper)
    _, two = dialogue_calls(tmp_path / "b", mile, paper)  # a fresh cache: every call made again
    _, none = dialogue_calls(tmp_path / "c", mile, effective_decodings(PERSONA.decoding, "none"))
    assert one == two == none


def test_the_run_id_changes_with_a_roles_decoding():
    paper, none = MileParams(), MileParams(role_decoding="none")
    tweak = MileParams.model_validate({"role_decoding": {**{r: {} for r in ROLES}, "blur": {"max_tokens": 512}}})
    ids = {run_id(spec_of(ORACLE, PERSONA, p)) for p in (paper, none, tweak)}
    assert len(ids) == 3
    spec = spec_of(ORACLE, PERSONA, paper)
    assert spec["environment"]["role_decoding"] == "paper"
    assert spec["environment"]["roles"]["supervisor"] == {
        "temperature": 0.0,
        "top_p": None,
        "max_tokens": 2048,
        "seed": None,
        "extra": {},
    }


def test_two_scripted_runs_of_the_stage_write_identical_tables(tmp_path, interim):
    outputs = []
    for name in ("a", "b"):  # separate caches and journals: every call is made again
        root = tmp_path / name
        params = {
            "agents": {"oracle": {"model": "scripted/oracle"}},
            "environment": {"model": "scripted/persona"},
            "llm": {"cache_dir": str(root / "llm")},
            "mile": {"sample": 3},
        }
        root.mkdir()
        (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
        args = {"params_file": root / "params.yaml", "paths": project_paths(root, interim)}
        assert run_stage("mile_simulate", mile_simulate, agent_name="oracle", **args) == 0
        run = root / "data" / "mile" / "runs" / "oracle"
        outputs.append(
            [(run / "run.json").read_text()]
            + [pd.read_parquet(run / f) for f in ("turns.parquet", "dialogues.parquet")]
        )
    assert outputs[0][0] == outputs[1][0]
    for one, two in zip(outputs[0][1:], outputs[1][1:], strict=True):
        pd.testing.assert_frame_equal(one, two)


def _env_reply(counter: dict[str, int]):
    """A stand-in GPT-4o environment: facts first, then claims; every client turn is sent back with style advice."""

    def reply(body: dict) -> str:
        first = body["messages"][0]["content"]
        if first.startswith("下面是律师询问案情"):
            counter["stage"] = counter.get("stage", 0) + 1
            return "<案件的事实>" if counter["stage"] == 1 else "<原告的诉讼请求>"
        if first.startswith("你是一名说话风格分析师"):
            return "不匹配。建议：说得更口语一些。"
        if first.startswith("你是一名对话监督者"):
            return "**对话监督者**：请把金额说清楚。"
        return "好的，我想想，大概是这样的。"

    return reply


def _role_of_request(body: dict) -> str:
    first, last = body["messages"][0]["content"], body["messages"][-1]["content"]
    if first.startswith("下面是律师询问案情"):
        return "classifier"
    if first.startswith("你是一名说话风格分析师"):
        return "styler"
    if first.startswith("你是一名对话监督者"):
        return "supervisor"
    return "blur" if any(last.startswith(i) for i in BLUR_INSTRUCTIONS) else "client"


def test_over_http_each_role_sends_the_papers_decoding_with_the_environments_seed(tmp_path, interim):
    with FakeOpenAIServer(reply=_env_reply({})) as server:
        params = {
            "agents": {"oracle": {"model": "scripted/oracle"}},
            "environment": {
                "model": "hosted_vllm/test-model",
                "api_base": server.url,
                "decoding": {"seed": 11, "max_tokens": 300},
            },
            "llm": {"cache_dir": str(tmp_path / "llm"), "max_attempts": 1},
            "mile": {"sample": 1, "max_turns": 4},
        }
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
        args = {"params_file": tmp_path / "params.yaml", "paths": project_paths(tmp_path, interim)}
        assert run_stage("mile_simulate", mile_simulate, agent_name="oracle", **args) == 0
        requests = list(server.requests)
    expected = {
        "client": {"temperature": 0.5, "top_p": 1.0, "max_tokens": 2048, "seed": 11},
        "supervisor": {"temperature": 0.0, "max_tokens": 2048, "seed": 11},
        "classifier": {"temperature": 0.0, "max_tokens": 1024, "seed": 11},
        "styler": {"temperature": 0.0, "max_tokens": 1024, "seed": 11},
        "blur": {"temperature": 0.5, "max_tokens": 300, "seed": 11},  # no cap in the paper: the environment's
    }
    seen = set()
    for body in requests:
        role = _role_of_request(body)
        seen.add(role)
        sent = {k: body[k] for k in ("temperature", "top_p", "max_tokens", "seed") if body.get(k) is not None}
        assert sent == expected[role], role
    assert seen == set(ROLES)
    usage = read_usage_log(
        tmp_path / "llm", tmp_path / "data" / "mile" / "runs" / "oracle" / "usage.parquet", last=True
    )
    live = usage[(usage.model == "hosted_vllm/test-model") & ~usage.cache_hit]
    assert len(live) == len(requests) and set(live.metadata.map(lambda m: json.loads(m)["role"])) == {
        "client",
        "supervisor",
    }
