"""Throughput of the LawBench scorers on the mirrored predictions (or any LawBench-style prediction folder).

First scores every (setting, model, task) group one after another in this process and prints items/s per
task; then scores everything again with `score_predictions` on N worker processes and prints the wall time
next to the ideal one (the sequential total divided by N) and items/s overall.

    python benchmarks/lawbench_scoring.py [--predictions DIR] [--workers N]

DIR is a `predictions/` folder with zero_shot/ and one_shot/ sub-folders, or a single setting folder;
default: the mirror's lawbench/predictions.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from steps.metrics.lawbench import read_prediction_tree, score_predictions, score_task  # noqa: E402
from steps.metrics.lawbench.tasks import TASK_IDS  # noqa: E402

DEFAULT_PREDICTIONS = (
    Path(os.environ.get("JURISFLOW_MIRROR", ROOT.parent / "shared" / "data")) / "lawbench" / "predictions"
)


def _sequential(df) -> dict[str, tuple[int, float]]:
    """Per task: (items, seconds) scoring each group in this process."""
    per_task: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for (_, _, task), group in df.groupby(["setting", "model", "task"]):
        group = group.sort_values("idx")
        prompts = group["prompt"].tolist()
        start = time.perf_counter()
        score_task(task, group["prediction"].tolist(), group["reference"].tolist(), prompts)
        per_task[task][0] += len(group)
        per_task[task][1] += time.perf_counter() - start
    return {t: (int(v[0]), v[1]) for t, v in per_task.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--predictions", type=Path, default=DEFAULT_PREDICTIONS)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    df, skipped = read_prediction_tree(args.predictions)
    groups = df.groupby(["setting", "model", "task"]).ngroups
    print(f"{len(df)} items in {groups} (setting, model, task) groups from {args.predictions}")
    if skipped:
        print(f"skipped {len(skipped)} file(s) with unknown task ids: {', '.join(skipped)}")

    sequential = _sequential(df)
    print(f"\n{'task':>5} {'items':>7} {'seconds':>9} {'items/s':>10}   (one process)")
    for task in sorted(sequential, key=TASK_IDS.index):
        items, seconds = sequential[task]
        print(f"{task:>5} {items:>7} {seconds:>9.2f} {items / seconds:>10.0f}")
    total_items = sum(v[0] for v in sequential.values())
    total_seconds = sum(v[1] for v in sequential.values())
    print(f"{'all':>5} {total_items:>7} {total_seconds:>9.2f} {total_items / total_seconds:>10.0f}")

    start = time.perf_counter()
    score_predictions(df, workers=args.workers)
    wall = time.perf_counter() - start
    ideal = total_seconds / args.workers
    print(f"\nscore_predictions, {args.workers} workers:")
    print(f"  wall {wall:.1f} s   ideal {ideal:.1f} s (sequential / workers)   efficiency {ideal / wall:.0%}")
    print(f"  {total_items / wall:.0f} items/s   ideal {total_items / ideal:.0f} items/s")


if __name__ == "__main__":
    main()
