"""The response cache travels with the artifacts through a DVC remote: a stage's shard (`call_cache.parquet`) is
pushed with its outputs, and in another clone that pulled it, `dvc repro -f` of the stage (whose outputs DVC deletes
before running it) replays every call from the shard DVC's cache holds: no request reaches the model server. Two
clones pushing their results of one stage at once leave a remote from which either commit pulls complete.

A small DVC project with one model-calling stage (the door, a usage table and its shard, as every stage writes them)
keeps this quick; tests/test_small_run.py does the same for the whole pipeline (e2e)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

from tests.fake_openai_server import FakeOpenAIServer

BIN = Path(sys.executable).parent
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]

STAGE = """
import asyncio, sys
from pathlib import Path
from flows.kit.config import Params
from flows.kit.models import open_door, write_usage
from steps.llm import ModelConfig

params = Params.model_validate({"llm": {"cache_dir": ".cache/llm", "max_attempts": 1}})
model = ModelConfig(name="m", model="openai/test-model", api_base=sys.argv[1])
door = open_door(params, run_id="r")
questions = Path("questions.txt").read_text(encoding="utf-8").split()

async def ask():
    return [await door.complete(model, [{"role": "user", "content": q}], purpose="agent") for q in questions]

replies = asyncio.run(ask())
Path("out").mkdir(exist_ok=True)
Path("out/answers.txt").write_text("\\n".join(r.text for r in replies) + "\\n", encoding="utf-8")
write_usage(door, Path("out/usage.parquet"))
"""


def sh(args: list, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    env.pop("DVC_ROOT", None)
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]} {done.stderr[-2000:]}"
    return done


def project(root: Path, url: str, remote: Path) -> None:
    root.mkdir()
    sh(["git", "init", "-q"], root)
    sh([BIN / "dvc", "init", "-q"], root)
    (root / "stage.py").write_text(STAGE, encoding="utf-8")
    (root / "questions.txt").write_text("甲 乙 丙\n", encoding="utf-8")
    (root / ".gitignore").write_text("/.cache/\n", encoding="utf-8")
    (root / "dvc.yaml").write_text(
        "stages:\n"
        "  ask:\n"
        f"    cmd: python stage.py {url}\n"
        "    deps: [stage.py, questions.txt]\n"
        "    outs: [out/answers.txt, out/usage.parquet, out/call_cache.parquet]\n",
        encoding="utf-8",
    )
    sh([BIN / "dvc", "remote", "add", "-d", "local", remote], root)


def remote_objects(remote: Path) -> dict[str, bytes]:
    return {str(p.relative_to(remote)): p.read_bytes() for p in sorted(remote.rglob("*")) if p.is_file()}


def test_a_clone_that_pulled_replays_a_forced_stage_from_the_shards_without_a_request(tmp_path):
    remote = tmp_path / "remote"
    with FakeOpenAIServer() as server:
        first = tmp_path / "first"
        project(first, server.url, remote)
        sh([BIN / "dvc", "repro"], first)
        assert server.count == 3
        shard = pd.read_parquet(first / "out" / "call_cache.parquet")
        assert sorted(shard.text) == ["echo: 丙", "echo: 乙", "echo: 甲"]
        sh([BIN / "dvc", "push"], first)
        sh(["git", "add", "-A"], first)
        sh([*GIT, "commit", "-qm", "run"], first)

        second = tmp_path / "second"
        sh(["git", "clone", "-q", first, second], tmp_path)
        sh([BIN / "dvc", "pull"], second)
        assert not (second / ".cache").exists()  # no response cache: only what the remote brought
        forced = sh([BIN / "dvc", "repro", "-f"], second)
        assert "Running stage 'ask'" in forced.stdout
        assert server.count == 3  # every answer came from the pulled shard
        for name in ("answers.txt", "usage.parquet", "call_cache.parquet"):
            assert (second / "out" / name).read_bytes() == (first / "out" / name).read_bytes(), name
        assert "up to date" in sh([BIN / "dvc", "status"], second).stdout
        assert sh(["git", "status", "--porcelain"], second).stdout == ""  # dvc.lock as committed

        # one more question: the clone sends only the new one
        (second / "questions.txt").write_text("甲 乙 丙 丁\n", encoding="utf-8")
        sh([BIN / "dvc", "repro"], second)
        assert server.count == 4
        sh([*GIT, "commit", "-qam", "four questions"], second)

    # both clones push their results of the same stage to one remote at once: one consistent state
    before = remote_objects(remote)
    pushes = [subprocess.Popen([BIN / "dvc", "push"], cwd=c, stdout=subprocess.PIPE) for c in (first, second)]
    assert [p.wait(timeout=300) for p in pushes] == [0, 0]
    after = remote_objects(remote)
    assert after.keys() > before.keys() and all(after[k] == before[k] for k in before)  # added, nothing replaced
    for name, data in after.items():  # every object is whole: its bytes hash to its name
        assert hashlib.md5(data).hexdigest() == name.replace("/", "")[-32 - 4 * name.endswith(".dir") :][:32]
    for source in (first, second):  # either commit pulls complete from the shared remote
        third = tmp_path / f"from_{source.name}"
        sh(["git", "clone", "-q", source, third], tmp_path)
        sh([BIN / "dvc", "pull"], third)
        assert "up to date" in sh([BIN / "dvc", "status"], third).stdout
        lines = (third / "out" / "answers.txt").read_text(encoding="utf-8").split()
        assert len(lines) == (3 if source == first else 4) * 2  # "echo:" and the question
