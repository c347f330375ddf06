"""A response cache that cannot be written ends a real stage (`python -m flows.run lawbench_predict`, the test server
over HTTP) with one line naming the database and the cause, and loses no answer it received (issue 35, item 8).

The faults are real: a read-only mount, and a file system that fills during the run (a small tmpfs), each mounted
over the cache folder in a private mount namespace (`unshare --user --map-root-user --mount`), which stops writes
whoever runs the tests (root included, for whom a chmod does not); a cache folder that is a file needs nothing."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from steps.llm.cache import RESERVE_BYTES
from tests.conftest import ROOT
from tests.fake_openai_server import FakeOpenAIServer, echo_reply
from tests.helpers import write_lawbench_interim

LIMIT = 2  # items per LawBench task: 40 calls
CALLS = 20 * LIMIT
LONG = 250_000  # characters of the answers in the full-disk test: 40 of them fill 10 MB


def long_reply(body: dict) -> str:
    return echo_reply(body) + " " + "x" * LONG


def _namespaces() -> bool:
    try:
        done = subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


needs_namespaces = pytest.mark.skipif(not _namespaces(), reason="needs unshare with user and mount namespaces")


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    return write_lawbench_interim(mirror, manifest, tmp_path_factory.mktemp("interim"))


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


def project(root: Path, interim: Path, server: FakeOpenAIServer, cache: Path, concurrency: int = 32) -> Path:
    """A working directory for stage lawbench_predict: the interim tables, an agent on the test server."""
    shutil.copytree(interim, root / "data" / "interim")
    shutil.copy(ROOT / "prefect.toml", root / "prefect.toml")
    params = {
        "agents": {"a": {"model": "openai/test-model", "api_base": server.url}},
        "llm": {"cache_dir": str(cache), "max_attempts": 1, "concurrency": concurrency},
        "lawbench": {"limit": LIMIT},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    return root


def stage(root: Path, prefect_api: str, setup: str = "", after: str = "") -> subprocess.CompletedProcess:
    """Run the stage in `root`; with `setup`, in a private user and mount namespace after the shell lines `setup`
    (and `after` once the stage has ended, keeping its exit code)."""
    command = [sys.executable, "-m", "flows.run", "lawbench_predict", "a", "zero_shot"]
    if setup:
        script = f'set -e; {setup}; set +e; "$@"; code=$?; {after or ":"}; exit $code'
        command = ["unshare", "-rm", "sh", "-c", script, "sh", *command]
    env = {**os.environ, "PREFECT_API_URL": prefect_api, "PYTHONPATH": str(ROOT), "LOCAL_LLM_KEY": "x"}
    env.pop("DVC_ROOT", None)
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=600)


def lines(done: subprocess.CompletedProcess) -> list[str]:
    """What the stage printed besides its progress (flows/kit/progress.py: its lines and its closing line start
    with the run's name, `lawbench_predict@a-zero_shot`)."""
    output = (done.stdout + done.stderr).splitlines()
    return [line for line in output if line.strip() and not line.startswith("lawbench_predict@")]


def stored(cache: Path) -> int:
    with sqlite3.connect(cache / "responses.sqlite") as db:
        return db.execute("SELECT count(*) FROM responses").fetchone()[0]


@needs_namespaces
def test_a_read_only_cache_ends_the_stage_in_one_line_before_any_call(tmp_path, interim, server, prefect_api):
    cache = tmp_path / "p" / ".cache" / "llm"
    root = project(tmp_path / "p", interim, server, cache)
    cache.mkdir(parents=True)
    done = stage(root, prefect_api, setup=f"mount --bind {cache} {cache}; mount -o remount,ro,bind {cache}")
    assert done.returncode == 1
    assert lines(done) == [
        f"lawbench_predict failed: response cache {cache / 'responses.sqlite'}: cannot open (EROFS: Read-only file "
        "system); no call was sent: free space or make it writable (or set llm.cache_dir), then rerun"
    ], done.stdout + done.stderr
    assert server.count == 0


def test_a_cache_folder_that_is_a_file_ends_the_stage_in_one_line(tmp_path, interim, server, prefect_api):
    cache = tmp_path / "p" / "cache-file"
    root = project(tmp_path / "p", interim, server, cache)
    cache.write_text("not a folder\n", encoding="utf-8")
    done = stage(root, prefect_api)
    assert done.returncode == 1
    (line,) = lines(done)
    assert line.startswith(f"lawbench_predict failed: response cache {cache / 'responses.sqlite'}: cannot open (E")
    assert "File exists" in line and server.count == 0


@needs_namespaces
def test_a_disk_that_fills_keeps_every_answer_received_and_the_rerun_sends_only_the_rest(
    tmp_path, interim, server, prefect_api
):
    cache, saved = tmp_path / "p" / ".cache" / "llm", tmp_path / "saved"
    server.reply = long_reply
    root = project(tmp_path / "p", interim, server, cache, concurrency=4)
    cache.mkdir(parents=True)
    saved.mkdir()
    # room for the cache's reserve and one or two answers; the 40 answers need four times the room: the disk fills
    # during the run (also without a reserve), with up to 4 answers on their way
    size = (RESERVE_BYTES + 2 * LONG) // 1024
    mount = f"mount -t tmpfs -o size={size}k tmpfs {cache}"
    done = stage(root, prefect_api, setup=mount, after=f"cp -a {cache}/. {saved}")
    assert done.returncode == 1
    assert len(lines(done)) == 1, done.stdout + done.stderr
    (line,) = lines(done)
    assert line.startswith(f"lawbench_predict failed: response cache {cache / 'responses.sqlite'}: cannot write (disk ")
    assert line.endswith(
        " bytes free); every answer received is stored, no new call is sent: free space or make it writable (or set "
        "llm.cache_dir), then rerun"
    ), done.stdout + done.stderr
    kept = stored(saved)
    assert 0 < kept < CALLS and server.count == kept  # every request that got an answer has it stored
    assert not list(saved.glob(".reserve-*"))  # the reserve went to the answers

    # space freed (the cache on the real disk): the rerun sends only the calls never answered
    shutil.copytree(saved, cache, dirs_exist_ok=True)
    again = stage(root, prefect_api)
    assert again.returncode == 0, again.stderr
    assert server.count == CALLS  # no call sent twice
    assert f"{kept} from the cache" in again.stderr.replace("\n", "")
    assert stored(cache) == CALLS
