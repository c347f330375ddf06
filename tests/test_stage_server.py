"""The warm stage server (flows/stage_server.py) through real processes: a `python -m flows.<module>` command is
forked from the server and is that command (arguments, folder, DVC's variables, output, exit code, signals), and a
command from another environment runs in its own process. The whole pipeline through it: the small run's test."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows.stage_server import ENV_VAR, OFF_VAR, TERM_GRACE_S, served, stage_server

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, os, sys, time
mode = sys.argv[1]
if mode == "echo":
    print(json.dumps({"pid": os.getpid(), "ppid": os.getppid(), "argv": sys.argv, "cwd": os.getcwd(),
                      "stage": os.environ.get("DVC_STAGE"), "loaded": "json" in sys.modules,
                      "warmed": getattr(sys.modules.get("flows.warm"), "WARMED", 0)}))
    print("a line on stderr", file=sys.stderr)
    sys.exit(int(sys.argv[2]))
if mode == "raise":
    raise RuntimeError("boom")
if mode == "sleep":
    with open(sys.argv[2], "w") as out:
        out.write(str(os.getpid()))
    time.sleep(120)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with the `flows` package's hand-over (its __init__ and the server) and a probe module."""
    flows = tmp_path / "proj" / "flows"
    flows.mkdir(parents=True)
    for name in ("__init__.py", "stage_server.py"):
        shutil.copy(ROOT / "flows" / name, flows / name)
    (flows / "probe.py").write_text(PROBE, encoding="utf-8")
    return flows.parent


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    return {**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"}


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flows.probe", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_forked_command_is_the_command(project: Path, tmp_path: Path):
    log = tmp_path / "server.log"
    with stage_server(_env(), project, log=log, preload=("json",)) as env:
        proc = subprocess.Popen(
            [sys.executable, "-m", "flows.probe", "echo", "3"],
            cwd=project,
            env={**env, "DVC_STAGE": "probe@x", "DVC_ROOT": str(project)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        out, err = proc.communicate(timeout=60)
    seen = json.loads(out)
    assert proc.returncode == 3, err
    assert seen["pid"] != proc.pid and seen["ppid"] != proc.pid  # a child of the server, not of the command
    assert seen["loaded"]  # with what the server imported
    assert seen["argv"] == [str(project / "flows" / "probe.py"), "echo", "3"]
    assert seen["cwd"] == str(project)
    assert seen["stage"] == "probe@x"  # DVC's per-stage variables reach the stage
    assert "a line on stderr" in err
    assert served(log.read_text(encoding="utf-8")) == (1, 0)


def test_a_module_function_entry_is_called_once_in_the_server(project: Path, tmp_path: Path):
    """`module:function` in the preloads: the server imports the module and calls the function (jieba's dictionary,
    litellm's tokenizer), and every forked command starts with what it did."""
    (project / "flows" / "warm.py").write_text("WARMED = 0\n\n\ndef warm():\n    global WARMED\n    WARMED += 1\n")
    with stage_server(_env(), project, preload=("json", "flows.warm:warm")) as env:
        first, second = (json.loads(_run(["echo", "0"], project, env).stdout) for _ in range(2))
    assert first["warmed"] == second["warmed"] == 1
    assert first["pid"] != second["pid"]


def test_a_server_that_takes_no_command_loads_nothing(project: Path, tmp_path: Path):
    """The preloads wait for the first command (a `dvc repro` with every stage up to date sends none); a refused
    command does not load them either."""
    (project / "flows" / "warm.py").write_text(
        "from pathlib import Path\n\n\ndef warm():\n    Path('warmed').touch()\n"
    )
    with stage_server(_env(), project, preload=("flows.warm:warm",)) as env:
        time.sleep(1)
        assert _run(["echo", "0"], project, {**env, "OTHER": "1"}).returncode == 0  # refused, run on its own
    assert not (project / "warmed").exists()
    with stage_server(_env(), project, preload=("flows.warm:warm",)) as env:
        assert _run(["echo", "0"], project, env).returncode == 0
    assert (project / "warmed").exists()


def test_preloads_that_fail_refuse_every_command_with_the_reason(project: Path, tmp_path: Path):
    log = tmp_path / "server.log"
    with stage_server(_env(), project, log=log, preload=("json", "flows.no_such_module")) as env:
        runs = [_run(["echo", "0"], project, env) for _ in range(2)]
    assert all(done.returncode == 0 for done in runs)  # each ran in its own process
    text = log.read_text(encoding="utf-8")
    assert served(text) == (0, 2)
    assert "the preloads failed: ModuleNotFoundError: No module named 'flows.no_such_module'" in text


def test_an_uncaught_exception_prints_its_traceback_and_fails(project: Path, tmp_path: Path):
    with stage_server(_env(), project, preload=("json",)) as env:
        done = _run(["raise"], project, env)
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "RuntimeError: boom" in done.stderr


def test_another_environment_or_folder_runs_in_its_own_process(project: Path, tmp_path: Path):
    log = tmp_path / "server.log"
    other = tmp_path / "elsewhere"
    shutil.copytree(project, other)
    with stage_server(_env(), project, log=log, preload=("json",)) as env:
        changed = {**env, "PREFECT_API_URL": "http://secret-host.invalid/api"}
        by_env = subprocess.Popen(
            [sys.executable, "-m", "flows.probe", "echo", "0"], cwd=project, env=changed, stdout=subprocess.PIPE
        )
        by_folder = subprocess.Popen(
            [sys.executable, "-m", "flows.probe", "echo", "0"], cwd=other, env=env, stdout=subprocess.PIPE
        )
        outs = [p.communicate(timeout=60)[0] for p in (by_env, by_folder)]
    assert [json.loads(o)["pid"] for o in outs] == [by_env.pid, by_folder.pid]  # ran where they were started
    text = log.read_text(encoding="utf-8")
    assert served(text) == (0, 2)
    assert "environment differs: PREFECT_API_URL" in text and "secret-host" not in text  # names, never values


def test_a_command_through_a_non_interactive_bash_is_served_with_an_exported_prompt(project: Path, tmp_path: Path):
    """DVC runs a stage with `$SHELL -c`; bash then unsets PS1, which a virtualenv's `activate` had exported."""
    log = tmp_path / "server.log"
    with stage_server({**_env(), "PS1": "(.venv) $ "}, project, log=log, preload=("json",)) as env:
        done = subprocess.run(
            ["bash", "-c", f"{sys.executable} -m flows.probe echo 0"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert served(log.read_text(encoding="utf-8")) == (1, 0)


def test_no_server_there_runs_the_command_itself(project: Path, tmp_path: Path):
    done = _run(["echo", "0"], project, {**_env(), ENV_VAR: str(tmp_path / "gone.sock")})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["argv"][1:] == ["echo", "0"]


def _wait_for(path: Path) -> int:
    deadline = time.monotonic() + 60
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, "the probe did not start"
        time.sleep(0.05)
    return int(path.read_text())


def test_a_signal_to_the_command_reaches_the_stage(project: Path, tmp_path: Path):
    with stage_server(_env(), project, preload=("json",)) as env:
        proc = subprocess.Popen(
            [sys.executable, "-m", "flows.probe", "sleep", str(tmp_path / "pid")], cwd=project, env=env
        )
        child = _wait_for(tmp_path / "pid")
        assert child != proc.pid
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == -signal.SIGTERM  # ended by the signal, as the stage was
        assert not _alive(child)


def test_a_killed_command_takes_its_stage_with_it(project: Path, tmp_path: Path):
    with stage_server(_env(), project, preload=("json",)) as env:
        proc = subprocess.Popen(
            [sys.executable, "-m", "flows.probe", "sleep", str(tmp_path / "pid")], cwd=project, env=env
        )
        child = _wait_for(tmp_path / "pid")
        proc.kill()  # SIGKILL: nothing is forwarded; the server sees the command's end of the connection close
        proc.wait(timeout=30)
        deadline = time.monotonic() + TERM_GRACE_S + 30
        while _alive(child):
            assert time.monotonic() < deadline, "the stage outlived its command"
            time.sleep(0.1)


def test_switched_off_every_command_runs_in_its_own_process(project: Path):
    with stage_server({**_env(), OFF_VAR: "1"}, project, preload=("json",)) as env:
        assert ENV_VAR not in env
        proc = subprocess.Popen(
            [sys.executable, "-m", "flows.probe", "echo", "0"], cwd=project, env=env, stdout=subprocess.PIPE
        )
        out = proc.communicate(timeout=60)[0]
    assert json.loads(out)["pid"] == proc.pid
