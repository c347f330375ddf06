"""CPU seconds per test (`pytest --cpu-table PATH`): the test process's own CPU time plus that of the children it
waited for during the test (stages run by `dvc` are grandchildren that `dvc` reaps, so they count once `dvc`
returns). Wall time on a shared machine is noise; CPU time is not. Each process (an xdist worker too) writes its
rows to PATH (`PATH.<worker>` under xdist) as tab-separated `cpu_s self_s children_s wall_s started outcome nodeid`
(`started`: the Unix time the test began, to lay the workers side by side), one line as each test ends (an
interrupted run keeps what it measured), sorted costliest first when the session ends; `python -m tests.cputime
PATH...` merges files and sums them per test file. Lines starting with `#` are notes: each process's total CPU
at the end of its table, and the xdist controller's Prefect server's in PATH itself (tests/conftest.py)."""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HEADER = "cpu_s\tself_s\tchildren_s\twall_s\tstarted\toutcome\tnodeid"
Row = tuple[float, float, float, float, float, str, str]


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _line(row: Row) -> str:
    cpu, own, children, wall, started, outcome, nodeid = row
    return f"{cpu:.2f}\t{own:.2f}\t{children:.2f}\t{wall:.2f}\t{started:.2f}\t{outcome}\t{nodeid}"


@dataclass(eq=False)
class CpuTable:
    """The pytest plugin: times setup, call and teardown of every test together."""

    path: Path
    rows: list[Row] = field(default_factory=list)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        own, children = _cpu()
        started, start = time.time(), time.perf_counter()
        self._outcome = "passed"
        yield
        own_after, children_after = _cpu()
        d_own, d_children = own_after - own, children_after - children
        wall = time.perf_counter() - start
        row = (d_own + d_children, d_own, d_children, wall, started, self._outcome, item.nodeid)
        self.rows.append(row)
        path = self._path(item.config)
        if len(self.rows) == 1:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(HEADER + "\n", encoding="utf-8")
        with path.open("a", encoding="utf-8") as out:
            out.write(_line(row) + "\n")

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self._outcome = "failed"
        elif report.skipped and self._outcome == "passed":
            self._outcome = "skipped"

    def _path(self, config) -> Path:
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        if worker is None and hasattr(config, "workerinput"):
            worker = config.workerinput.get("workerid")
        return self.path if worker is None else self.path.with_name(f"{self.path.name}.{worker}")

    def pytest_sessionfinish(self, session) -> None:
        if self.rows:  # the xdist controller runs no test
            own, children = _cpu()
            lines = [HEADER, *(_line(row) for row in sorted(self.rows, reverse=True))]
            lines.append(f"# this process: {own + children:.1f} s CPU ({own:.1f} own, {children:.1f} children)")
            self._path(session.config).write_text("\n".join(lines) + "\n", encoding="utf-8")

    def note(self, text: str) -> None:
        """Append `# text` to PATH (the xdist controller's own file; its tests' rows go to PATH.<worker>)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(f"# {text}\n")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.rows:
            return
        total = sum(r[0] for r in self.rows)
        terminalreporter.write_sep("-", f"CPU time: {total:.0f} s over {len(self.rows)} tests (table in {self.path})")
        for cpu, _, _, wall, _, _, nodeid in sorted(self.rows, reverse=True)[:15]:
            terminalreporter.write_line(f"{cpu:8.1f} s CPU {wall:8.1f} s wall  {nodeid}")


def by_file(paths: list[Path]) -> list[tuple[float, float, int, str]]:
    """Rows of one or more tables summed per test file: (cpu_s, wall_s, tests, file), costliest first."""
    cpu: dict[str, float] = defaultdict(float)
    wall: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            if line.startswith("#"):
                continue
            parts = line.split("\t")
            name = parts[-1].split("::")[0]
            cpu[name] += float(parts[0])
            wall[name] += float(parts[3])
            count[name] += 1
    return sorted(((cpu[n], wall[n], count[n], n) for n in cpu), reverse=True)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tests.cputime TABLE [TABLE ...]", file=sys.stderr)
        return 2
    rows = by_file([Path(a) for a in argv])
    for cpu, wall, n, name in rows:
        print(f"{cpu:9.1f} s CPU {wall:9.1f} s wall {n:5d} tests  {name}")
    print(f"{sum(r[0] for r in rows):9.1f} s CPU {sum(r[1] for r in rows):9.1f} s wall  total")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
