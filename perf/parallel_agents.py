"""Two agents evaluated one after the other vs at once, and the response-cache hit rate on a second clone.

    .venv/bin/python perf/parallel_agents.py [--latency 1.0] [--concurrency 4] [--keep DIR]

One run, side by side, against the fake OpenAI server (tests/fake_openai_server.py) answering after `--latency`
seconds, in a project copy with the tests' small samples and two agents, `a1` and `a2`, two model names on that
server (no call in common; `--concurrency` calls at a time each, like a server with few slots) in LawBench and
UCL-Bench:

1. the stages both agents need (`ingest`, `ucl_reference`) run once; the copy is then duplicated, data and DVC cache
   included, so that both runs start from the same state, each with an empty response cache;
2. sequential: `dvc repro` of a1's stages, then a2's, then the reports; concurrent: `jurisflow agents run --agents
   a1,a2 --jobs 2` (the same stages, both agents at once); one Prefect server for both; wall time, requests/s at the
   server, CPU seconds (user + system of every process the run started);
3. the concurrent copy is pushed to a local DVC remote and cloned (`git clone`, `dvc pull`, an empty response
   cache): `dvc repro -f` of both agents' stages; then, the clone's response cache emptied again, a1's LawBench
   stages with its `limit` raised by 2; each counting the requests the server saw and the calls answered without a
   request (the clone's usage log: answered by the pulled shards).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flows.agents import agent_stages, report_stages  # noqa: E402
from flows.kit.models import read_usage_log  # noqa: E402
from flows.pipeline import prefect_server  # noqa: E402
from tests.fake_openai_server import FakeOpenAIServer  # noqa: E402
from tests.helpers import SMALL, copy_project  # noqa: E402

BIN = Path(sys.executable).parent
BENCHMARKS = ["lawbench", "ucl"]
AGENTS = ("a1", "a2")
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sh(args: list, cwd: Path, env: dict, label: str = "") -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(
            f"{label or args[0]} failed ({done.returncode}) in {cwd}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done


def measure(label: str, server: FakeOpenAIServer, run) -> dict:
    server.reset_stats()
    cpu, wall = children_cpu(), time.monotonic()
    run()
    wall, cpu = time.monotonic() - wall, children_cpu() - cpu
    calls = server.count
    row = {"run": label, "wall_s": wall, "requests": calls, "requests_per_s": calls / wall, "cpu_s": cpu}
    print(f"{label:<12} wall {wall:6.1f} s  {calls:5d} requests  {calls / wall:5.2f} requests/s  CPU {cpu:6.1f} s")
    return row


def shard_hits(project: Path, stages_usage: list[Path]) -> tuple[int, int]:
    """(calls answered without a request, calls) over the usage tables' latest writes in the clone's usage log."""
    hits = calls = 0
    for table in stages_usage:
        logged = read_usage_log(project / ".cache/llm", project / table, last=True)
        hits, calls = hits + int(logged.cache_hit.sum()), calls + len(logged)
    return hits, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the server takes per answer")
    parser.add_argument("--concurrency", type=int, default=4, help="calls in flight per agent")
    parser.add_argument("--keep", type=Path, help="work here and keep the copies (default: a temporary directory)")
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="jurisflow-parallel-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "JURISFLOW_MIRROR": os.environ.get("JURISFLOW_MIRROR", str(ROOT.parent / "shared" / "data")),
    }
    with FakeOpenAIServer(latency_s=args.latency) as server, prefect_server(work / "prefect") as api:
        env["PREFECT_API_URL"] = api
        agent = {"api_base": server.url, "concurrency": args.concurrency, "benchmarks": BENCHMARKS}
        agents = {a: {"model": f"openai/model-{a}", **agent} for a in AGENTS}  # two models: no call in common
        seq, conc, remote, clone = (work / n for n in ("sequential", "concurrent", "remote", "clone"))
        for d in (seq, conc, remote, clone):
            shutil.rmtree(d, ignore_errors=True)
        copy_project(seq, {**SMALL, "agents": agents}, replace=("agents",))
        sh([BIN / "dvc", "remote", "modify", "--local", "local", "url", remote], seq, env)
        sh([BIN / "dvc", "repro", "ingest", "ucl_reference", "lawbench_score"], seq, env, "the shared stages")
        shutil.copytree(seq, conc, symlinks=True)
        stages = {a: agent_stages(a, BENCHMARKS) for a in AGENTS}
        reports = report_stages(set(BENCHMARKS))
        print(f"latency {args.latency} s per answer, {args.concurrency} calls in flight per agent; stages per agent:")
        print("  " + ", ".join(stages["a1"]) + f"; then {', '.join(reports)}")

        def one_after_the_other() -> None:
            for a in AGENTS:
                sh([BIN / "dvc", "repro", *stages[a]], seq, env, f"dvc repro ({a})")
            sh([BIN / "dvc", "repro", *reports], seq, env, "the reports")

        def at_once() -> None:
            sh([BIN / "jurisflow", "agents", "run", "--agents", ",".join(AGENTS), "--jobs", "2"], conc, env, "agents")

        rows = [measure("sequential", server, one_after_the_other), measure("concurrent", server, at_once)]
        same = all(
            (seq / "reports" / r).read_bytes() == (conc / "reports" / r).read_bytes()
            for r in ("lawbench.csv", "ucl.csv")
        )
        print(f"speed-up {rows[0]['wall_s'] / rows[1]['wall_s']:.2f}x; reports identical: {same}")

        # the second clone: pull from the remote, force the agents' stages, count requests and shard hits
        sh(["git", "add", "-A"], conc, env)
        sh([*GIT, "commit", "-qm", "run"], conc, env)
        sh([BIN / "dvc", "push"], conc, env, "dvc push")
        sh(["git", "clone", "-q", conc, clone], work, env)
        sh([BIN / "dvc", "remote", "modify", "--local", "local", "url", remote], clone, env)
        sh([BIN / "dvc", "pull", "--allow-missing"], clone, env, "dvc pull")  # (stages this copy never ran)
        forced = [s for a in AGENTS for s in stages[a]]
        rows.append(measure("clone -f", server, lambda: sh([BIN / "dvc", "repro", "-f", *forced], clone, env)))
        usage = [Path(u) for u in _usage_tables(clone, forced)]
        hits, calls = shard_hits(clone, usage)
        print(f"clone, forced: {hits} of {calls} calls answered from the pulled shards ({hits / calls:.1%})")
        forced_hits = f"{hits} of {calls} calls from the pulled shards"
        shutil.rmtree(clone / ".cache" / "llm")  # what follows is answered by the shards alone, or by the server
        params = yaml.safe_load((clone / "params.yaml").read_text(encoding="utf-8"))
        params["agents"]["a1"]["limit"] = SMALL["lawbench"]["limit"] + 2
        params["lawbench"]["limit"] = None
        (clone / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), "utf-8")
        grown = stages["a1"][:2]
        rows.append(measure("clone +2", server, lambda: sh([BIN / "dvc", "repro", *grown], clone, env)))
        hits, calls = shard_hits(clone, [Path(u) for u in _usage_tables(clone, grown)])
        print(f"clone, limit +2: {hits} of {calls} calls answered from the pulled shards ({hits / calls:.1%})")
    if args.record:
        setting = f"test server, {args.latency} s per answer, {args.concurrency} in flight each"
        labels = (
            f"two agents one after the other ({setting}; LawBench and UCL-Bench, small samples)",
            "the same at once (`jurisflow agents run --jobs 2`)",
            "a second clone: `dvc pull`, `dvc repro -f` of both agents' stages",
            "the second clone, response cache emptied, a1's LawBench limit raised by 2",
        )
        notes = (
            "",
            f"{rows[0]['wall_s'] / rows[1]['wall_s']:.2f}× faster; reports identical: {same}",
            forced_hits,
            f"{hits} of {calls} calls from the shards",
        )
        figures = []
        for label, row, note in zip(labels, rows, notes, strict=True):
            value = f"{row['wall_s']:.1f} s wall; {row['requests']} requests; {row['cpu_s']:.1f} s of CPU"
            figures.append((label, f"{value}; {note}" if note else value))
        record("Parallel agents", figures)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def _usage_tables(project: Path, stages: list[str]) -> list[str]:
    """The usage tables (`*usage.parquet` outputs) of the given stages, from dvc.lock."""
    lock = yaml.safe_load((project / "dvc.lock").read_text(encoding="utf-8"))["stages"]
    return [o["path"] for s in stages for o in lock[s]["outs"] if o["path"].endswith("usage.parquet")]


if __name__ == "__main__":
    main()
