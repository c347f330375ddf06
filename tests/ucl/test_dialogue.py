"""The UCL consultation on the engine: who speaks, when it ends, the exchange cap, and failures as rows."""

from __future__ import annotations

import pandas as pd
import pytest

from steps.llm import Completion, ModelConfig
from steps.schemas import Turns, validate
from steps.simulate import EndReason
from steps.simulate.journal import Journal
from steps.simulate.records import RunLabel
from steps.simulate.runner import simulate
from steps.ucl.dialogues import ucl_tables
from steps.ucl.instances import build_instances
from steps.ucl.scenario import END, UCL
from steps.ucl.schemas import UclDialogues
from steps.ucl.simulation import simulate_run
from steps.ucl.speaking import EMPTY_USER, UclSpeaker
from tests.fake_openai_server import FakeOpenAIServer
from tests.ucl.conftest import NULL, ORACLE, USER

PRISON = "Prison Term Prediction/1"  # the assistant's prompt holds the case facts
REAL_CASE = "Real Case Consulting/0"  # only the user holds the information


def pick(items: pd.DataFrame, *ids: str) -> pd.DataFrame:
    out = items[items.item_id.isin(ids)].reset_index(drop=True)
    assert len(out) == len(ids), f"not all of {ids} are public items"
    return out


def run_scripted(door, items, assistant: ModelConfig, tmp_path, exchanges: int = 3):
    instances = build_instances(items, max_exchanges=exchanges)
    dialogues = simulate_run(door, assistant, USER, instances, Journal(tmp_path / f"{assistant.name}.jsonl"))
    return dialogues, *ucl_tables(dialogues, RunLabel("r", assistant.name, "ucl"))


def test_the_oracle_satisfies_the_user_in_one_round(door, ucl_items, tmp_path):
    items = pick(ucl_items, PRISON, REAL_CASE)
    dialogues, turns, rows = run_scripted(door, items, ORACLE, tmp_path)
    assert [d.ended_by for d in dialogues] == [EndReason.MARKER, EndReason.MARKER]
    # the user's closing message is an utterance of the dialogue, not a round
    assert rows.rounds.tolist() == [1, 1] and rows.utterances.tolist() == [3, 3]
    by_id = rows.set_index("instance_id")
    # the user states its information only when the assistant's prompt lacks it
    assert by_id.loc[PRISON, "first_query"] == "你好，给出刑期"
    assert "有加班记录" in by_id.loc[REAL_CASE, "first_query"]
    # the closing message is a turn of the dialogue but not part of what the judge reads
    assert (turns.text == END).sum() == 2 and END not in "".join(rows.transcript)
    assert (
        by_id.loc[PRISON, "transcript"].startswith("用户：你好，给出刑期\nAI助手：")
        and "9-14个月" in by_id.loc[PRISON, "transcript"]
    )
    validate(turns, Turns, table="turns"), validate(rows, UclDialogues, table="dialogues")


def test_an_assistant_that_says_nothing_ends_the_dialogue_after_one_round(door, ucl_items, tmp_path):
    """The engine passes no empty speech on: the null agent's dialogue ends as `empty_reply`, judged as it is."""
    dialogues, turns, rows = run_scripted(door, pick(ucl_items, PRISON, REAL_CASE), NULL, tmp_path)
    assert all(d.ended_by is EndReason.EMPTY_REPLY for d in dialogues)
    assert rows.rounds.tolist() == [1, 1] and rows.failure.isna().all()
    validate(turns, Turns, table="turns"), validate(rows, UclDialogues, table="dialogues")


def test_an_unsatisfied_user_stops_at_the_cap(door, ucl_items, tmp_path):
    items = pick(ucl_items, PRISON, REAL_CASE)
    with FakeOpenAIServer(reply=lambda body: "这个问题我需要再想想。") as server:
        vague = ModelConfig(name="vague", model="hosted_vllm/test-model", api_base=server.url)
        for cap in (3, 2, 1):
            door.usage.clear()
            dialogues, turns, rows = run_scripted(door, items, vague, tmp_path / str(cap), exchanges=cap)
            _assert_capped(door, dialogues, turns, rows, cap)


def _assert_capped(door, dialogues, turns, rows, cap: int) -> None:
    assert all(d.ended_by is EndReason.MAX_TURNS for d in dialogues)
    assert rows.rounds.tolist() == [cap, cap] and rows.utterances.tolist() == [2 * cap, 2 * cap]
    said = turns[turns.kind == "utterance"]
    assert said.speaker.value_counts().to_dict() == {"user": 2 * cap, "assistant": 2 * cap}
    # the user is never asked after the last reply: one user call per exchange
    assert sum(u.metadata.get("role") == "user" for u in door.usage) == 2 * cap
    assert said.groupby("instance_id").speaker.last().eq("assistant").all()


def test_the_user_cannot_end_before_the_assistant_spoke(ucl_items, tmp_path):
    calls: list[str] = []

    async def speak(call):
        calls.append(call.role.name)
        text = END if call.role.name == "user" else "答复：刑期九个月。"
        return Completion(text, "scripted/x", f"k{len(calls)}", 1, 1, 0.0, 0.0, 1, False)

    instances = build_instances(pick(ucl_items, PRISON), max_exchanges=3)
    [d] = run(simulate(instances, lambda _: UCL, UclSpeaker(speak, "v"), Journal(tmp_path / "j.jsonl")))
    assert calls == ["user", "assistant", "user"]
    assert d.ended_by is EndReason.MARKER
    _, rows = ucl_tables([d], RunLabel("r", "a", "ucl"))
    assert rows.rounds.tolist() == [1]


def run(coro):
    import asyncio

    return asyncio.run(coro)


@pytest.fixture
def servers():
    started: list[FakeOpenAIServer] = []

    def start(reply) -> ModelConfig:
        server = FakeOpenAIServer(reply=reply).start()
        started.append(server)
        return server, ModelConfig(name=f"http{len(started)}", model="hosted_vllm/test-model", api_base=server.url)

    yield start
    for s in started:
        s.stop()


def test_an_assistant_api_failure_ends_the_dialogue_as_a_recorded_failure(door, ucl_items, servers, tmp_path):
    server, agent = servers(lambda body: "刑期九个月。")
    server.inject(("500",), ("500",))  # both attempts of the first reply fail (max_attempts=2)
    instances = build_instances(pick(ucl_items, PRISON), max_exchanges=3)
    dialogues = simulate_run(door, agent, USER, instances, Journal(tmp_path / "j.jsonl"))
    turns, rows = ucl_tables(dialogues, RunLabel("r", "http", "ucl"))
    assert dialogues[0].ended_by is EndReason.CALL_FAILED
    assert rows.failure.iloc[0].startswith("assistant: server") and rows.rounds.iloc[0] == 0
    failed = turns[turns.failure.notna()]
    assert len(failed) == 1 and failed.speaker.iloc[0] == "assistant" and failed.text.iloc[0] == ""
    assert turns.speaker.tolist() == ["user", "assistant"]  # no user turn after the failure
    validate(turns, Turns, table="turns"), validate(rows, UclDialogues, table="dialogues")


def test_a_rate_limited_call_is_retried_and_the_dialogue_completes(door, ucl_items, servers, tmp_path):
    server, agent = servers(lambda body: "答复：刑期的范围是：9-14个月")
    server.inject(("429", 0.01))
    instances = build_instances(pick(ucl_items, PRISON), max_exchanges=3)
    [d] = simulate_run(door, agent, USER, instances, Journal(tmp_path / "j.jsonl"))
    assert d.ended_by is EndReason.MARKER and server.count == 2


def test_a_user_api_failure_or_empty_message_is_never_an_empty_user_turn(door, ucl_items, servers, tmp_path):
    _, silent_user = servers(lambda body: "   ")
    server, failing_user = servers(lambda body: "你好")
    server.inject(("500",), ("500",))
    instances = build_instances(pick(ucl_items, PRISON), max_exchanges=3)
    for user, reason in ((silent_user, EMPTY_USER), (failing_user, "server")):
        [d] = run(
            simulate(
                instances,
                lambda _: UCL,
                UclSpeaker(_door_speaker(door, ORACLE, user), "v"),
                Journal(tmp_path / f"{user.name}.jsonl"),
            )
        )
        turns, rows = ucl_tables([d], RunLabel("r", "oracle", "ucl"))
        assert d.ended_by is EndReason.CALL_FAILED and reason in rows.failure.iloc[0]
        assert d.utterances() == [] and turns.speaker.tolist() == ["user"] and turns.failure.notna().all()
        validate(rows, UclDialogues, table="dialogues")


def _door_speaker(door, agent, user):
    from steps.simulate.runner import DoorSpeaker

    return DoorSpeaker(door, agent, user)


def test_scripted_calls_carry_the_task_and_protocol_version(door, ucl_items, tmp_path):
    run_scripted(door, pick(ucl_items, PRISON), ORACLE, tmp_path)
    assert {u.metadata["task"] for u in door.usage} == {"Prison Term Prediction"}
    assert {u.metadata["scenario"] for u in door.usage} == {"UCL"}
