"""The response cache that travels with the artifacts: a stage's shard (`call_cache.parquet`) holds the answers its
calls got, written the same whether they came from the model or the cache; a door whose SQLite cache lacks a call
answers it from a shard without a request; under DVC the shards are found through dvc.lock in DVC's cache."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.call_cache import locked_shards, shard_layer, write_call_cache
from flows.kit.config import Params
from flows.kit.models import open_door, read_usage_log, write_usage
from steps.llm import Completion, ModelConfig
from steps.llm.shards import ShardLayer
from tests.fake_openai_server import FakeOpenAIServer

ASK = [[{"role": "user", "content": f"问题 {i}"}] for i in range(3)]


def _params(cache: Path) -> Params:
    return Params.model_validate({"llm": {"cache_dir": str(cache), "max_attempts": 1}})


def _ask(door, model: ModelConfig, questions=ASK, fail_last: FakeOpenAIServer | None = None) -> list:
    async def calls():
        replies = [await door.complete(model, q, purpose="agent") for q in questions]
        if fail_last is not None:
            fail_last.inject(("400",))
            replies.append(await door.complete(model, [{"role": "user", "content": "坏"}], purpose="agent"))
        return replies

    return asyncio.run(calls())


def test_the_shard_is_the_same_bytes_cold_and_warm_and_holds_no_failure_or_latency(tmp_path):
    with FakeOpenAIServer(latency_s=0.01) as server:
        model = ModelConfig(name="local", model="hosted_vllm/test-model", api_base=server.url)
        cold = open_door(_params(tmp_path / "cache"), run_id="r")
        _ask(cold, model, fail_last=server)
        write_usage(cold, tmp_path / "cold" / "usage.parquet")
        warm = open_door(_params(tmp_path / "cache"), run_id="r")
        _ask(warm, model, questions=list(reversed(ASK)))  # another order, every answer from the cache
        write_usage(warm, tmp_path / "warm" / "usage.parquet")
        assert server.count == 4
    cold_shard, warm_shard = tmp_path / "cold" / "call_cache.parquet", tmp_path / "warm" / "call_cache.parquet"
    assert cold_shard.read_bytes() == warm_shard.read_bytes()
    shard = pd.read_parquet(cold_shard)
    assert list(shard.columns) == [
        "call_key",
        "model",
        "text",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "truncated",
    ]
    assert len(shard) == 3 and shard.call_key.is_monotonic_increasing and shard.call_key.is_unique  # no failure
    assert set(shard.text) == {f"echo: 问题 {i}" for i in range(3)}


def test_a_door_with_an_empty_cache_answers_from_a_shard_without_a_request(tmp_path):
    with FakeOpenAIServer() as server:
        model = ModelConfig(name="local", model="hosted_vllm/test-model", api_base=server.url)
        first = open_door(_params(tmp_path / "machine_a"), run_id="r")
        made = _ask(first, model, questions=ASK[:2])
        shard = write_call_cache(first, tmp_path / "a" / "usage.parquet")
        assert server.count == 2

        params = _params(tmp_path / "machine_b")  # another machine: an empty SQLite cache
        from steps.llm.door import ModelDoor

        layer = ShardLayer(lambda: [shard])
        second = ModelDoor(params.llm, run_id="r", cache_dir=tmp_path / "machine_b", shards=layer)
        replayed = _ask(second, model)  # two calls in the shard, one new
        assert server.count == 3 and layer.hits == 2
        assert [r.text for r in replayed[:2]] == [r.text for r in made]
        assert all(isinstance(r, Completion) for r in replayed)
        assert [r.cache_hit for r in replayed] == [True, True, False]
        write_usage(second, tmp_path / "b" / "usage.parquet")
        logged = read_usage_log(tmp_path / "machine_b", tmp_path / "b" / "usage.parquet")
        assert logged.cache_hit.tolist().count(True) == 2
        # a shard hit is stored in the SQLite cache: the next door needs neither the shard nor the server
        third = ModelDoor(params.llm, run_id="r", cache_dir=tmp_path / "machine_b", shards=ShardLayer(list))
        _ask(third, model)
        assert server.count == 3
        # the replaying machine's shard is the same bytes as that of a machine that sent all three calls
        fresh = open_door(_params(tmp_path / "machine_c"), run_id="r")
        _ask(fresh, model)
        assert server.count == 6
    write_call_cache(fresh, tmp_path / "c" / "usage.parquet")
    assert (tmp_path / "b" / "call_cache.parquet").read_bytes() == (tmp_path / "c" / "call_cache.parquet").read_bytes()


def test_the_first_listed_shard_wins_and_an_unreadable_shard_is_a_miss(tmp_path):
    from steps.llm.cache import CachedResponse
    from steps.llm.shards import shard_frame

    key = "k" * 64
    one, two, bad = tmp_path / "one.parquet", tmp_path / "two.parquet", tmp_path / "bad.parquet"
    shard_frame({key: ("openai/x", CachedResponse("first", 1, 2, None, 0.0))}).to_parquet(one)
    shard_frame({key: ("openai/x", CachedResponse("second", 1, 2, 0.5, 0.0))}).to_parquet(two)
    bad.write_bytes(b"not parquet")
    assert ShardLayer(lambda: [bad, one, two]).get(key)[1].text == "first"
    found = ShardLayer(lambda: [two, one]).get(key)
    assert found[0] == "openai/x" and found[1] == CachedResponse("second", 1, 2, 0.5, 0.0)
    assert ShardLayer(lambda: [bad]).get(key) is None


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_locked_shards_come_from_dvc_cache_then_the_workspace_with_the_running_stage_first(tmp_path):
    import subprocess
    import sys

    root = tmp_path / "project"
    root.mkdir()
    dvc = Path(sys.executable).parent / "dvc"
    subprocess.run([str(dvc), "init", "--no-scm", "-q"], cwd=root, check=True)
    pulled, local = (root / "data" / n / "call_cache.parquet" for n in ("pulled", "local"))
    for path in (pulled, local):
        path.parent.mkdir(parents=True)
        path.write_bytes(path.parent.name.encode())
    # `pulled` is in DVC's cache (its workspace file removed, as `dvc repro` does before a stage runs)
    cached = root / ".dvc" / "cache" / "files" / "md5" / _md5(pulled)[:2] / _md5(pulled)[2:]
    cached.parent.mkdir(parents=True)
    shutil.copy(pulled, cached)
    md5s = {"pulled": _md5(pulled), "local": _md5(local), "gone": "0" * 32}
    pulled.unlink()
    lock = {
        "schema": "2.0",
        "stages": {
            f"stage_{name}": {
                "cmd": "x",
                "outs": [
                    {"path": f"data/{name}/usage.parquet", "md5": "1" * 32},
                    {"path": f"data/{name}/call_cache.parquet", "md5": md5s[name]},
                ],
            }
            for name in ("pulled", "local", "gone")
        },
    }
    (root / "dvc.lock").write_text(yaml.safe_dump(lock), encoding="utf-8")
    assert locked_shards(root) == [local, cached]  # by stage name; `gone` exists nowhere
    assert locked_shards(root, first="stage_pulled") == [cached, local]
    assert locked_shards(tmp_path) == []  # no dvc.lock


def test_shards_are_read_only_under_dvc(monkeypatch, tmp_path):
    monkeypatch.delenv("DVC_ROOT", raising=False)
    assert shard_layer() is None  # a flow run by hand or by a test never reads the repository's shards
    monkeypatch.setenv("DVC_ROOT", str(tmp_path))
    layer = shard_layer()
    assert layer is not None and len(layer) == 0


@pytest.mark.parametrize("usage", ["usage.parquet", "judge_usage.parquet"])
def test_the_shard_sits_beside_its_usage_table(usage):
    from flows.kit.paths import call_cache_path

    expected = {"usage.parquet": "call_cache.parquet", "judge_usage.parquet": "judge_call_cache.parquet"}[usage]
    assert call_cache_path(Path("data/runs/oracle") / usage) == Path("data/runs/oracle") / expected


def test_the_shard_holds_no_api_key_and_nothing_about_how_the_call_ran(tmp_path, monkeypatch):
    secret = "sk-shard-test-0123456789"
    monkeypatch.setenv("SHARD_TEST_API_KEY", secret)
    with FakeOpenAIServer(latency_s=0.01) as server:
        model = ModelConfig(
            name="keyed", model="openai/test-model", api_base=server.url, api_key_env="SHARD_TEST_API_KEY"
        )
        door = open_door(_params(tmp_path / "cache"), run_id="r", models=[model])
        _ask(door, model, questions=[[{"role": "user", "content": f"my key is {secret}"}], *ASK[:1]])
        write_usage(door, tmp_path / "run" / "usage.parquet")
        assert server.count == 2
    shard = tmp_path / "run" / "call_cache.parquet"
    data = shard.read_bytes()
    assert secret.encode() not in data  # the echoed key was redacted before the door kept the answer
    frame = pd.read_parquet(shard)
    assert "echo: my key is ***" in set(frame.text)
    assert set(frame.columns).isdisjoint({"latency_s", "attempts", "cache_hit", "written_at", "run_id"})


def test_every_usage_table_in_dvc_yaml_has_its_shard_beside_it_as_an_output():
    from flows.kit.paths import call_cache_path
    from tests.conftest import ROOT

    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    missing = []
    for name, stage in stages.items():
        outs = {o if isinstance(o, str) else next(iter(o)) for o in stage.get("outs") or []}
        usage = {o for o in outs if o.endswith("usage.parquet")}
        missing += [f"{name}: {u}" for u in usage if str(call_cache_path(Path(u))) not in outs]
    assert not missing, f"a model-calling stage's shard is not a DVC output (push would leave it behind): {missing}"


def test_a_dvc_lock_being_rewritten_is_read_again_and_one_that_stays_broken_is_no_shards(tmp_path, monkeypatch, caplog):
    import flows.kit.call_cache as call_cache

    root = tmp_path / "project"
    shard = root / "data" / "a" / "call_cache.parquet"
    shard.parent.mkdir(parents=True)
    shard.write_bytes(b"shard")
    whole = yaml.safe_dump(
        {"schema": "2.0", "stages": {"a": {"cmd": "x", "outs": [{"path": "data/a/call_cache.parquet"}]}}}
    )
    lock = root / "dvc.lock"
    lock.write_text(whole[: len(whole) // 2] + '"', encoding="utf-8")  # DVC half way through writing it
    pauses = []

    def another_process_finishes(seconds):  # the pause between two reads: DVC's write ends meanwhile
        pauses.append(seconds)
        lock.write_text(whole, encoding="utf-8")

    monkeypatch.setattr(call_cache.time, "sleep", another_process_finishes)
    assert locked_shards(root) == [shard] and len(pauses) == 1
    lock.write_text("", encoding="utf-8")  # just truncated
    assert locked_shards(root) == [shard] and len(pauses) == 2
    monkeypatch.setattr(call_cache.time, "sleep", pauses.append)  # it never gets whole again
    lock.write_text("stages: [", encoding="utf-8")
    with caplog.at_level("WARNING"):
        assert locked_shards(root) == []
    assert len(pauses) == 2 + call_cache.READ_ATTEMPTS and "does not parse" in caplog.text
