"""A run stopped by SIGTERM (or Ctrl-C) stops the commands it started, down to their own children
(flows/children.py): `dvc repro` and its stage get one Ctrl-C, the stage's clean-up runs, nothing is left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# "dvc": starts the "stage" and waits for it ignoring Ctrl-C, as dvc repro does (dvc/stage/run.py)
DVC = """
import signal, subprocess, sys
stage = subprocess.Popen([sys.executable, sys.argv[1], sys.argv[2]])
signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.exit(stage.wait())
"""
# "stage": on Ctrl-C it takes a moment to save its journal, then exits 130
STAGE = """
import os, sys, time
out = sys.argv[1]
open(out + ".pid", "w").write(str(os.getpid()))
try:
    time.sleep(600)
except KeyboardInterrupt:
    time.sleep(1.0)
    open(out, "w").write("journal saved")
    sys.exit(130)
"""
# the run: `runs` commands at once (threads, as `jurisflow agents run`), within `interruptible`
RUN = """
import sys, threading
from flows import children

folder, runs = sys.argv[1], int(sys.argv[2])
codes = {}

def one(i):
    codes[i] = children.run([sys.executable, f"{folder}/dvc.py", f"{folder}/stage.py", f"{folder}/stage{i}"])

try:
    with children.interruptible():
        if runs == 1:
            one(0)
        else:
            threads = [threading.Thread(target=one, args=(i,)) for i in range(runs)]
            [t.start() for t in threads]
            [t.join() for t in threads]
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie has ended
        return stat.read().split(") ")[1][0] != "Z"


@pytest.mark.parametrize("runs", [1, 2])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_run_stops_its_commands_and_their_stages_which_save_their_journal(tmp_path, runs, signum):
    for name, text in (("dvc.py", DVC), ("stage.py", STAGE), ("run.py", RUN)):
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen(
        [sys.executable, str(tmp_path / "run.py"), str(tmp_path), str(runs)], env=env, stdout=subprocess.PIPE, text=True
    )
    pid_files = [tmp_path / f"stage{i}.pid" for i in range(runs)]
    deadline = time.monotonic() + 60
    while not all(p.is_file() and p.read_text() for p in pid_files):
        assert time.monotonic() < deadline and run.poll() is None, "the stages did not start"
        time.sleep(0.1)
    stages = [int(p.read_text()) for p in pid_files]
    run.send_signal(signum)  # to the run alone, as `kill` does: its commands are in groups of their own
    out, _ = run.communicate(timeout=60)
    assert run.returncode == 130 and "interrupted" in out
    for i, pid in enumerate(stages):
        assert (tmp_path / f"stage{i}").read_text() == "journal saved"  # it got a Ctrl-C, and time to act on it
        assert not _alive(pid)
