"""The CPU table (`pytest --cpu-table`, tests/cputime.py): a real pytest run in a subprocess writes one row per test
with the CPU its children used, and `python -m tests.cputime` sums the rows per file."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.cputime import HEADER, by_file

ROOT = Path(__file__).resolve().parents[1]


def test_each_test_gets_a_row_with_its_childrens_cpu_and_start_and_the_files_are_summed(tmp_path):
    tests = tmp_path / "test_sample.py"
    tests.write_text(
        "import subprocess, sys\n"
        "def test_spins_a_child():\n"
        "    subprocess.run([sys.executable, '-c', 'import time\\nt = time.process_time()\\n"
        "while time.process_time() - t < 0.3: pass'], check=True)\n"
        "def test_idle():\n"
        "    pass\n",
        encoding="utf-8",
    )
    table = tmp_path / "cpu.tsv"
    before = time.time()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", f"--cpu-table={table}", str(tests)],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "JURISFLOW_CPU_TABLE"))},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = table.read_text(encoding="utf-8").splitlines()
    assert lines[0] == HEADER and len(lines) == 4 and lines[3].startswith("# this process: ")
    rows = {line.split("\t")[-1].split("::")[1]: line.split("\t") for line in lines[1:3]}
    spin, idle = rows["test_spins_a_child"], rows["test_idle"]
    assert float(spin[2]) >= 0.3 > float(idle[0])  # the child's CPU is counted for the test that waited for it
    assert lines[1].split("\t") == spin  # costliest first
    assert before <= float(idle[4]) <= time.time() and spin[5] == idle[5] == "passed"
    [(cpu, _, count, name)] = by_file([table])
    assert count == 2 and name.endswith("test_sample.py") and cpu == float(spin[0]) + float(idle[0])
