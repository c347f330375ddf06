"""`make smoke-real`: every benchmark on a small sample with a real local model as agent, environment and judge.

The project is copied (tracked files only, no data/) into a separate folder, its params.yaml gets the small
sample sizes below and the local llama.cpp server (`jurisflow serve local`) as every model, and `dvc repro
--keep-going` runs the whole pipeline there, up to the reports. The committed default run is not touched. At the
end the outcome of every output (scored, or the typed failure with its reason) is counted per stage into
`reports/real_model.md` of the copy, which is also copied to the given `--report` path. Every stage reports to one
Prefect server (as under `make run`: the one PREFECT_API_URL names, else one started for the run) instead of each
starting a temporary server of its own.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from flows.dvc_cli import command as dvc_command
from flows.kit.config import runs_of
from flows.pipeline import prefect_server
from steps.benchmarks import benchmarks, judged_tables
from steps.llm.local_server import LOCAL_KEY_ENV, LOCAL_KEY_PLACEHOLDER
from steps.reports.real_model import (
    echo_counts,
    instruction_windows,
    judge_share_section,
    outcome_counts,
    outcome_section,
    read_stage_tables,
    run_windows,
)
from steps.tables import write_text_atomic

ROOT = Path(__file__).resolve().parents[1]
AGENT = "smollm2_135m"
# The samples of each profile come from the registrations (`smoke`: steps/<benchmark>/smoke.py). Profile `small`
# (`make smoke-real`): the smallest samples that still run every benchmark's every path; turn caps are low because a
# tiny model rarely ends a dialogue by itself, and every output is capped at max_tokens (repetition up to the cap is
# common). Profile `slice` (the slow CI test, tests/real/test_real_slice.py): one item or instance per benchmark,
# every stage still run, up to every report.
PROFILE_NAMES = ("small", "slice")


def profile_sections(profile: str) -> dict[str, dict[str, Any]]:
    """Benchmark → its params.yaml section overrides in `profile`."""
    return {name: b.smoke_profile(profile) for name, b in benchmarks().items()}


# New tokens per call by role: the server decodes 20-60 tokens/s on a shared 2-core machine, and a tiny model
# greedy-decoding usually runs to the cap, so the caps set most of the run's cost.
MAX_TOKENS = {"agent": 96, "environment": 64, "judge": 96}
# The slice (CI) caps lower still: its calls decode about 2,200 tokens at 40-60 ms each on a busy machine, and the
# tiny model's judge answers were unparsable at 64 as they are at 32 (a cut answer is a typed failure too).
SLICE_MAX_TOKENS = {"agent": 48, "environment": 32, "judge": 32}
PROFILE_MAX_TOKENS = {"small": MAX_TOKENS, "slice": SLICE_MAX_TOKENS}
# `make smoke-real` runs beside a developer's other work, so the model server, dvc and the stages yield (niceness 10);
# the slice test passes --nice 0: among the suite's workers a niced server is starved and the slice finishes last.
NICE = 10
# The model server's threads. The slice test passes 1: a second thread makes a prompt about 1.8 times quicker on an idle
# machine but costs 7 % more CPU (9,216 prompt tokens: 83.8 s on two threads, 78.2 s on one), and beside the suite's
# other workers it seldom has both cores.
THREADS = 2


# Calls in flight at once. The slice (CI) sends one at a time: its 32 calls then read 26,638 prompt tokens instead of
# 28,197 (a call that shares its start with the previous one finds it in the server's one busy slot) and the server
# spent 246 s of CPU instead of 307 s, on one thread, in the same wall time on an idle machine (2026-11-27).
PROFILE_CONCURRENCY = {"small": 2, "slice": 1}


def model_entry(
    api_base: str, alias: str, max_tokens: int, concurrency: int = 2, structured: str = "auto"
) -> dict[str, Any]:
    return {
        "model": f"openai/{alias}",
        "api_base": api_base,
        "api_key_env": LOCAL_KEY_ENV,
        "decoding": {"temperature": 0, "max_tokens": max_tokens, "seed": 0},
        "concurrency": concurrency,
        "timeout_s": 300,
        "structured_output": structured,
    }


def real_params(
    params: dict[str, Any],
    api_base: str,
    alias: str,
    cache_dir: Path,
    profile: str = "small",
    structured: str = "auto",
) -> dict[str, Any]:
    """params.yaml with the local model in every role, the profile's samples, and the door sized for one CPU server;
    `structured` is every role's `structured_output` (`auto`: as `record_structured` measured)."""
    sample, caps, calls = profile_sections(profile), PROFILE_MAX_TOKENS[profile], PROFILE_CONCURRENCY[profile]
    out = {**params, **{k: merged(params.get(k), v) for k, v in sample.items()}}
    out["agents"] = {AGENT: model_entry(api_base, alias, caps["agent"], calls, structured)}
    out["runs"] = runs_of(out["agents"])
    out["environment"] = model_entry(api_base, alias, caps["environment"], calls, structured)
    out["judge"] = model_entry(api_base, alias, caps["judge"], calls, structured)
    # A failed call is counted in the report, not a reason to stop: a stage exits 1 only when every call failed, so
    # the stages after it still meet what the tiny model wrote.
    door = {
        "concurrency": calls,
        "timeout_s": 300,
        "max_attempts": 2,
        "retry_budget_s": 900,
        "cache_dir": str(cache_dir),
        "max_failed_fraction": 1.0,
    }
    out["llm"] = {**params.get("llm", {}), **door}
    return out


def merged(current: Any, values: Any) -> Any:
    """`values` over `current`: mappings merged key by key at every depth, anything else replaced."""
    if not (isinstance(current, dict) and isinstance(values, dict)):
        return values
    return {**current, **{k: merged(current.get(k), v) for k, v in values.items()}}


def copy_tracked_files(dest: Path) -> None:
    """Copy the project's tracked and untracked-but-not-ignored files, less .venv/ and the untracked ones under data/,
    to `dest`: what a clone has (data/'s tracked files, e.g. data/human_labels/README.md, are inputs of stages)."""

    def listed(*which: str) -> list[str]:
        args = ["git", "ls-files", *which]
        return [
            r
            for r in subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\n")
            if r
        ]

    untracked_data = {r for r in listed("-o", "--exclude-standard") if r.startswith("data/")}
    for rel in listed("-co", "--exclude-standard"):
        src = ROOT / rel
        if src.is_file() and rel not in untracked_data and not rel.startswith(".venv/"):
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def copy_project(dest: Path, params: dict[str, Any], start: Path | None = None) -> None:
    """Tracked and untracked-but-not-ignored files, without data/ and .venv/, plus the given params.yaml.

    Copied over an earlier copy, so that dvc there skips the stages whose inputs did not change: an interrupted
    smoke run resumes (the response cache outside the copy keeps every answer already received). With `start` (a
    DVC project of this tree, e.g. the test session's copy after the stages that call no model), that folder is
    copied instead, its finished stages included: dvc finds them up to date unless the new params change them.
    """
    if start is None:
        copy_tracked_files(dest)
    else:
        dest.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cp", "-a", f"{start}/.", str(dest)], check=True)
    text = yaml.safe_dump(params, allow_unicode=True, sort_keys=False)
    (dest / "params.yaml").write_text(
        "# The real-model smoke profile (flows/smoke_real.py).\n" + text, encoding="utf-8"
    )
    if not (dest / ".git").exists():
        subprocess.run(["git", "init", "-q"], cwd=dest, check=True)


def start_server(
    port: int, log_path: Path, nice: int = NICE, threads: int = THREADS
) -> tuple[subprocess.Popen, str, str]:
    """`jurisflow serve local` in the background at niceness `nice` on `threads` threads; returns the process, its
    api_base and the model alias."""
    log = log_path.open("w")
    jurisflow = Path(sys.executable).parent / "jurisflow"
    models = ROOT / ".cache" / "models"
    options = ["--port", str(port), "--nice", str(nice), "--threads", str(threads), "--cache-dir", str(models)]
    proc = subprocess.Popen(
        [str(jurisflow), "serve", "local", *options],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    alias = ""
    for line in proc.stdout:
        print(f"  serve local: {line.rstrip()}", flush=True)
        if line.startswith("ready: "):
            named = re.search(r"openai/(\S+?),", line)
            alias = named.group(1) if named else ""
        if line.startswith("serving until interrupted"):
            return proc, f"http://127.0.0.1:{port}/v1", alias
    raise RuntimeError(f"serve local exited with code {proc.wait()} before it was ready (log: {log_path})")


def calibrate_copy(project: Path, env: dict[str, str], log_path: Path, nice: int = NICE) -> list[str]:
    """`jurisflow models check --no-context` in the copy, so that its `.cache/calibration.json` holds the served
    model's record (the server's tokenizer ratio, its speeds, and as judge its repair rate) and `jurisflow estimate`
    or perf/estimate_vs_run.py run there are calibrated as a user's would be after `models check`. A line per record
    (or why there is none: the smoke run goes on without one)."""
    from flows.calibrate import load

    record_file = project / ".cache" / "calibration.json"
    record_file.unlink(missing_ok=True)  # an earlier run's record must not pass for this one's
    jurisflow = Path(sys.executable).parent / "jurisflow"
    command = ["nice", "-n", str(nice), str(jurisflow), "models", "check", "--no-context"]
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    log_path.write_text(done.stdout + done.stderr, encoding="utf-8")
    records = load(record_file)
    if not records:
        return [
            f"models check wrote no calibration (exit {done.returncode}, log: {log_path}); estimates are uncalibrated"
        ]
    return [
        f"{key}: server/estimate prompt tokens {c.prompt_ratio:.2f}, generation {c.generation_tps:.1f} tokens/s, "
        + ("judge repair rate -" if c.judge_repair_rate is None else f"judge repair rate {c.judge_repair_rate:.2f}")
        + f" ({c.judge_probes} probes)"
        for key, c in records.items()
    ]


def record_structured(api_base: str, alias: str, cache_dir: Path) -> str:
    """Probe the server for constrained output as `jurisflow models check` does and record the result in the run's
    response cache (what `structured_output: auto` reads); the probe's line."""
    from flows.models_check import probe_structured
    from steps.llm import LLMSettings, ModelConfig, ModelDoor
    from steps.llm.capabilities import save_record

    os.environ.setdefault(LOCAL_KEY_ENV, LOCAL_KEY_PLACEHOLDER)
    model = ModelConfig(name="probe", **model_entry(api_base, alias, 16))
    door = ModelDoor(LLMSettings(cache_dir=str(cache_dir), max_attempts=2), run_id="smoke-real-structured")
    try:
        (check,) = probe_structured(door, [model])
    finally:
        door.close()
    save_record(cache_dir, [check])
    return f"structured output {check.model} @ {check.endpoint}: {check.detail}"


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


def stage_exits(dvc_output: str) -> dict[str, int]:
    """Each stage dvc ran: 0, or 1 when dvc reports it failed (with --keep-going the others still run)."""
    ran = re.findall(r"Running stage '([^']+)'", dvc_output)
    failed = set(re.findall(r"failed to reproduce '([^']+)'", dvc_output))
    failed |= set(re.findall(r"ERROR: failed to reproduce '([^']+)'", dvc_output))
    return {name: int(name in failed) for name in ran} | {name: 1 for name in failed}


def _repro(project: Path, env: dict[str, str], log_path: Path, nice: int = NICE) -> subprocess.Popen:
    """`nice -n NICE dvc repro --keep-going` in the copy, appending to the log; its own process group."""
    with log_path.open("a") as log:
        log.write("\n---- dvc repro attempt\n")
        log.flush()
        command = ["nice", "-n", str(nice), *dvc_command("repro", "--keep-going")]
        repro = subprocess.Popen(
            command, cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            repro.wait()
        finally:  # an interrupted smoke run ends dvc and the stage it is running (dvc starts it in its own group)
            if repro.poll() is None:
                import psutil

                stages = psutil.Process(repro.pid).children(recursive=True)
                os.killpg(repro.pid, signal.SIGTERM)
                for stage in stages:
                    with contextlib.suppress(psutil.NoSuchProcess):
                        stage.terminate()
                repro.wait()
                psutil.wait_procs(stages, timeout=30)
        return repro


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Every benchmark on a small sample with a real local model.")
    parser.add_argument("--out", type=Path, default=ROOT / ".cache" / "smoke-real", help="where the copy runs")
    parser.add_argument("--port", type=int, default=8089)
    parser.add_argument("--report", type=Path, default=ROOT / "reports" / "real_model.md")
    parser.add_argument("--attempts", type=int, default=3, help="dvc repro runs when a signal ends a stage")
    parser.add_argument("--report-only", action="store_true", help="recount the outcomes of the last run only")
    parser.add_argument(
        "--nice",
        type=int,
        default=NICE,
        help=f"niceness of the model server, dvc and the stages (default {NICE}: the run yields to other work)",
    )
    parser.add_argument("--threads", type=int, default=THREADS, help=f"model server threads (default {THREADS})")
    parser.add_argument(
        "--from",
        dest="start",
        type=Path,
        default=None,
        help="start from a copy of this DVC project (its finished stages are kept when the profile leaves them be)",
    )
    parser.add_argument(
        "--profile",
        choices=sorted(PROFILE_NAMES),
        default="small",
        help="small: a few items of every task and environment; slice: one item per benchmark",
    )
    parser.add_argument(
        "--calibrate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run `jurisflow models check` in the copy first, so its estimate is calibrated (default: profile small)",
    )
    parser.add_argument(
        "--structured",
        choices=["auto", "json_schema", "off"],
        default="auto",
        help="every role's structured_output (auto: probe the server first and ask where it works; off: the judges' "
        "answers are parsed from free text, as before constrained output)",
    )
    args = parser.parse_args(argv)
    if args.report_only:
        return write_report(args.out, args.report)
    mirror = os.environ.get("JURISFLOW_MIRROR") or str((ROOT / "../shared/data").resolve())
    args.out.mkdir(parents=True, exist_ok=True)
    # SIGTERM ends the run as Ctrl-C does: the `finally` blocks stop dvc and the model server.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    started = time.monotonic()
    proc, api_base, alias = start_server(args.port, args.out / "server.log", args.nice, args.threads)
    repro: subprocess.Popen | None = None
    calibration: list[str] = []
    interrupted = False
    stack = contextlib.ExitStack()
    try:
        # Every stage reports to one Prefect server (the one PREFECT_API_URL names, else one started here, its
        # state under --out), instead of each stage process starting and stopping a temporary server of its own.
        prefect_api = os.environ.get("PREFECT_API_URL") or stack.enter_context(prefect_server(args.out / "prefect"))
        params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
        project = args.out / "jurisflow"
        if args.structured == "auto":
            print(record_structured(api_base, alias, args.out / "llm-cache"), flush=True)
        door_params = real_params(params, api_base, alias, args.out / "llm-cache", args.profile, args.structured)
        copy_project(project, door_params, args.start)
        env = {
            **os.environ,
            "JURISFLOW_MIRROR": mirror,
            LOCAL_KEY_ENV: LOCAL_KEY_PLACEHOLDER,
            "PREFECT_API_URL": prefect_api,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        }
        if args.calibrate if args.calibrate is not None else args.profile == "small":
            calibration = calibrate_copy(project, env, args.out / "models_check.log", args.nice)
            for line in calibration:
                print(f"  models check: {line}", flush=True)
        print(f"dvc repro --keep-going in {project} (log: {args.out / 'dvc.log'})", flush=True)
        (args.out / "dvc.log").write_text("", encoding="utf-8")
        for attempt in range(1, args.attempts + 1):
            repro = _repro(project, env, args.out / "dvc.log", args.nice)
            log_text = (args.out / "dvc.log").read_text(encoding="utf-8")
            # A stage or the model server ended by a signal from outside (a shared machine) is run again; a stage
            # that failed on its own is not. The calls that failed are not cached, so they are made again.
            server_died = proc.poll() is not None
            killed = "termination signal" in log_text.split("dvc repro attempt")[-1]
            if repro.returncode == 0 or not (server_died or killed) or attempt == args.attempts:
                break
            print(f"{'the model server' if server_died else 'a stage'} was ended from outside; again ({attempt + 1})")
            if server_died:
                proc, _, _ = start_server(args.port, args.out / f"server-{attempt + 1}.log", args.nice, args.threads)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the outputs written so far are still counted
        print("smoke-real interrupted; counting what the finished stages wrote", flush=True)
        interrupted = True
    finally:
        stop_server(proc)
        stack.close()
    minutes = (time.monotonic() - started) / 60
    run = {
        "minutes": round(minutes, 1),
        "dvc_exit": repro.returncode if repro is not None else None,
        "profile": args.profile,
    }
    if calibration:
        run["calibration"] = calibration
    if interrupted:
        run["interrupted"] = True
    (args.out / "run.json").write_text(json.dumps(run), encoding="utf-8")
    return write_report(args.out, args.report)


def write_report(out: Path, report_path: Path) -> int:
    """Count every output's outcome in the copy under `out` and write the report; 1 if a stage failed."""
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    exits: dict[str, int] = {}
    for attempt in (out / "dvc.log").read_text(encoding="utf-8").split("---- dvc repro attempt"):
        exits |= stage_exits(attempt)  # a stage run again in a later attempt counts as it ended there
    last = stage_exits((out / "dvc.log").read_text(encoding="utf-8").split("---- dvc repro attempt")[-1])
    stopped = run["dvc_exit"] or run.get("interrupted")
    if stopped and last and not any(last.values()):  # interrupted: the stage it was running did not finish
        exits[list(last)[-1]] = run["dvc_exit"] or -int(signal.SIGTERM)
    tables = read_stage_tables(out / "jurisflow" / "data")
    # the instructions a reply may recite: our templates, and per run the released prompts it used (UCL-Bench's)
    windows = run_windows(out / "jurisflow" / "data", instruction_windows(out / "jurisflow"))
    counts = pd.concat([outcome_counts(tables), echo_counts(tables, windows)], ignore_index=True)
    counts = counts.sort_values(["stage", "table", "column", "kind"], kind="stable")
    state = "interrupted, " if run.get("interrupted") else ""
    name = run.get("profile")
    profile = f"Profile `{name}` (`python -m flows.smoke_real --profile {name}`). " if name else ""
    head = (
        f"# A real but tiny model, end to end\n\n{profile}Wall time {run['minutes']} min "
        f"({state}dvc exit {run['dvc_exit']})."
    )
    if run.get("calibration"):
        head += " Calibrated first by `jurisflow models check` in the copy: " + "; ".join(run["calibration"]) + "."
    head += "\n\n"
    shares = judge_share_section(out / "jurisflow" / "data", judged_tables())
    report = head + shares + "\n" + outcome_section(counts, exits)
    write_text_atomic(out / "jurisflow" / "reports" / "real_model.md", report)
    write_text_atomic(report_path, report)
    failed = sorted(name for name, code in exits.items() if code)
    print(f"smoke-real: {len(exits)} stages ran, {len(failed)} failed {failed} in {run['minutes']} min; {report_path}")
    return 0 if run["dvc_exit"] == 0 and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
