"""`jurisflow estimate` beside the run it estimates: per stage and role, the estimate's calls, distinct requests and
tokens against the usage tables the last `dvc repro` wrote (dvc.lock names each stage's), and the estimate's time.

Run it after `make run` in this project (or `--root` another): for a scripted configuration every figure should
match (the stand-ins are the models); for a real agent the estimate's expected figure (the real-model-like filler,
replies of max_tokens that end no dialogue early) is compared. Then, per benchmark, the estimate's error against
the run on calls, prompt tokens and completion tokens, each beyond ±25 % flagged `!` (issue 37's target). Time is
CPU seconds of the whole estimate (user + system), and wall seconds per stage. With the calibration record of
`jurisflow models check` (`.cache/calibration.json`) the estimate's prompt tokens are scaled as `jurisflow
estimate` scales them, and a judge's measured repair rate adds its repair rounds (the script says where each
judge's rate came from).

    python perf/estimate_vs_run.py [--root DIR] [--label TEXT] [--record]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import yaml


def usage_tables(root: Path) -> dict[str, list[Path]]:
    """Each stage of dvc.lock with its usage tables. A stage whose tables are not on disk (an entry DVC kept from an
    earlier configuration, e.g. the committed agents in `make smoke-real`'s copy) is left out and named."""
    lock = yaml.safe_load((root / "dvc.lock").read_text(encoding="utf-8"))
    tables = {
        name: [root / o["path"] for o in stage.get("outs", []) if o["path"].endswith("usage.parquet")]
        for name, stage in lock["stages"].items()
    }
    absent = sorted(name for name, paths in tables.items() if paths and not all(p.is_file() for p in paths))
    if absent:
        print(f"left out, their usage tables are not on disk (not in this run): {', '.join(absent)}")
    return {name: paths for name, paths in tables.items() if paths and name not in absent}


TOLERANCE = 0.25  # issue 37: calls and tokens within ±25 % of a real run, per benchmark
ERROR_FIGURES = ("calls", "prompt_tokens", "completion_tokens")


def error(estimated: int, run: int) -> str:
    """The estimate's relative error against the run, `!` beyond the tolerance; `-` when the run has none."""
    if run == 0:
        return "-" if estimated == 0 else f"+inf ({estimated:,} vs 0) !"
    e = (estimated - run) / run
    return f"{e:+.1%}" + (" !" if abs(e) > TOLERANCE else "")


def benchmark_errors(both: pd.DataFrame, benchmark_of: Callable[[str], str]) -> pd.DataFrame:
    """Per benchmark (its stages' rows summed): run and estimate of each figure and the estimate's error."""
    by = both.groupby([benchmark_of(stage) for stage, _, _ in both.index]).sum()
    out = pd.DataFrame(index=by.index)
    for figure in ERROR_FIGURES:
        out[f"{figure} run"] = by[f"{figure}_run"].map("{:,}".format)
        out[f"{figure} est"] = by[f"{figure}_est"].map("{:,}".format)
        out[figure] = [error(int(e), int(r)) for e, r in zip(by[f"{figure}_est"], by[f"{figure}_run"], strict=True)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument(
        "--label", default="", help="what run this is, before each recorded figure (e.g. the real-model smoke run)"
    )
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args()
    root = args.root.resolve()
    os.chdir(root)
    from flows.estimate import benchmark_of, estimate, load_calibrations
    from flows.kit.config import load_params

    started, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    report = estimate(load_params(root / "params.yaml"), calibrations=load_calibrations())
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF)
    cpu_s = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    estimated = pd.DataFrame(
        [(s.stage, s.purpose, s.model_name, s.call_key, s.input_tokens, s.output_tokens) for s in report.sent],
        columns=["stage", "purpose", "model_name", "call_key", "prompt_tokens", "completion_tokens"],
    )
    frames = []
    for stage, paths in usage_tables(root).items():
        usage = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
        frames.append(usage.assign(stage=stage))
    run = pd.concat(frames, ignore_index=True) if frames else estimated.iloc[0:0]

    def summary(df: pd.DataFrame) -> pd.DataFrame:
        return df.groupby(["stage", "purpose", "model_name"]).agg(
            calls=("call_key", "size"),
            requests=("call_key", "nunique"),
            prompt_tokens=("prompt_tokens", "sum"),
            completion_tokens=("completion_tokens", "sum"),
        )

    both = summary(run).merge(
        summary(estimated), how="outer", left_index=True, right_index=True, suffixes=("_run", "_est")
    )
    both = both.fillna(0).astype(int)
    both["seconds"] = [round(report.seconds.get(stage, 0.0), 1) for stage, _, _ in both.index]
    pd.set_option("display.width", 250)
    pd.set_option("display.max_rows", 500)
    print(both.to_string())
    totals = both.sum()
    for figure in ("calls", "requests", "prompt_tokens", "completion_tokens"):
        run_total, est_total = int(totals[f"{figure}_run"]), int(totals[f"{figure}_est"])
        error = (est_total - run_total) / run_total if run_total else 0.0
        print(f"{figure}: run {run_total:,}, estimate {est_total:,} ({error:+.3%})")
    print(f"estimate: {cpu_s:.1f} s CPU, {wall:.1f} s wall, {len(report.sent):,} requests recorded")
    for line in report.notes:  # where each real judge's repair rate came from (models check's record, or none)
        if line.startswith("judge "):
            print(line)
    errors = benchmark_errors(both, benchmark_of)
    print(errors.to_string())
    flagged = [b for b, row in errors.iterrows() if any(str(v).endswith("!") for v in row)]
    print(f"beyond ±{TOLERANCE:.0%}: {', '.join(flagged) if flagged else 'none'}")
    if args.record:
        matches = ", ".join(
            f"{figure} run {int(totals[f'{figure}_run']):,} / estimate {int(totals[f'{figure}_est']):,}"
            for figure in ("calls", "requests", "prompt_tokens", "completion_tokens")
        )
        prefix = f"{args.label}: " if args.label else ""
        record(
            "jurisflow estimate against a real run",
            [
                (
                    f"{prefix}the estimate vs the usage tables the last run wrote",
                    f"{matches} ({len(both)} (stage, role) rows)",
                ),
                *(
                    (
                        f"{prefix}{benchmark}: estimate vs run",
                        ", ".join(f"{figure} {row[figure]}" for figure in ERROR_FIGURES),
                    )
                    for benchmark, row in errors.iterrows()
                ),
                (
                    f"{prefix}time of the whole estimate",
                    f"{cpu_s:.1f} s of CPU ({wall:.1f} s wall), {len(report.sent):,} requests",
                ),
            ],
        )


if __name__ == "__main__":
    main()
