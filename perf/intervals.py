"""What the error bars cost `make run` (issue 39: its time grows by less than 10 %): on the current run's data
(data/<benchmark>/runs/, reports/*.csv), the statistics the stages compute beside their numbers, each timed as
the stages call it:

- per benchmark, its report's intervals: the registered item scores of every agent with a run, then
  `cell_intervals` (a cluster bootstrap, B = 2,000, for each aggregate);
- the data card's smallest detectable differences (`power_rows`);
- the HTML overview's tie groups (`headline_ranks`: paired tests of each agent with the leader).

Their sum is set beside the newest idle `make run` wall time in perf/results/commands.jsonl (or `--make-run-s`).

    .venv/bin/python perf/intervals.py [--make-run-s 600] [--record]

Prints measurements; asserts nothing.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from record import RESULTS, add_flag, record  # noqa: E402  (perf/ is the script's folder)

from steps.benchmarks import benchmarks  # noqa: E402
from steps.paths import Paths  # noqa: E402
from steps.registry import resolve  # noqa: E402
from steps.reports.stages import power_rows  # noqa: E402
from steps.results import headline_ranks, headline_rows  # noqa: E402
from steps.stats.cells import cell_intervals, read_each  # noqa: E402

MINUTES = re.compile(r"(\d+) min (\d+) s wall")


def newest_make_run() -> tuple[float, str] | None:
    """The newest idle `make run` wall time recorded in perf/results/commands.jsonl: (seconds, commit)."""
    found = None
    path = RESULTS / "commands.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        row = json.loads(line)
        m = MINUTES.search(row["value"])
        if row["figure"].startswith("`make run`: install") and "nothing else running" in row["machine"] and m:
            found = (int(m[1]) * 60 + int(m[2]), row["commit"])
    return found


def timed(what, *args):
    start = time.process_time()
    out = what(*args)
    return out, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--make-run-s", type=float, help="the make run wall time to compare with (seconds)")
    add_flag(parser)
    args = parser.parse_args()
    paths = Paths(data=ROOT / "data", reports=ROOT / "reports", cache=ROOT / ".cache")
    figures: list[tuple[str, str]] = []
    total = 0.0
    for name, reg in benchmarks().items():
        runs = paths.runs(name)
        agents = sorted(p.name for p in runs.iterdir() if p.is_dir()) if runs.is_dir() else []
        if reg.item_scores is None or not agents:
            continue
        scores, read_s = timed(read_each, functools.partial(resolve(reg.item_scores), paths), agents)
        if scores is None:
            continue
        cells, interval_s = timed(cell_intervals, scores)
        total += read_s + interval_s
        value = (
            f"{read_s + interval_s:.1f} s CPU ({read_s:.1f} s reading {len(scores.items):,} item scores of "
            f"{len(agents)} agents, {interval_s:.1f} s for {len(cells):,} cells' intervals)"
        )
        print(f"{name}: {value}")
        figures.append((f"{name}: the report's intervals", value))
    _, power_s = timed(power_rows, paths)
    _, ranks_s = timed(headline_ranks, headline_rows(paths.reports), paths)
    total += power_s + ranks_s
    print(f"data card's detectable differences: {power_s:.1f} s CPU; the overview's tie groups: {ranks_s:.1f} s CPU")
    figures.append(("the data card's smallest detectable differences", f"{power_s:.1f} s CPU"))
    figures.append(("the HTML overview's tie groups", f"{ranks_s:.1f} s CPU"))
    reference = (args.make_run_s, "given") if args.make_run_s else newest_make_run()
    share = ""
    if reference:
        share = f" = {100 * total / reference[0]:.1f} % of make run's {reference[0]:.0f} s ({reference[1]})"
    print(f"all the statistics: {total:.1f} s CPU{share}")
    figures.append(("all the statistics of a make run, against its idle wall time", f"{total:.1f} s CPU{share}"))
    if args.record:
        record("Error bars: what they cost make run", figures)


if __name__ == "__main__":
    main()
