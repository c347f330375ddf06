"""`make run` with and without the warm stage server (flows/stage_server.py), side by side in one run.

Two copies of the project (tracked files, no data) each run the whole pipeline on the embedded defaults through
`python -m flows.pipeline` (its own Prefect server, as `make run`): one with every stage forked from the stage
server, one with JURISFLOW_NO_STAGE_SERVER=1 (every stage a fresh interpreter, as before the server). Reported per
side: the CPU time of the run (user + sys of everything it started: dvc, the stages, the stage and Prefect
servers), its wall time and the stages dvc ran; then whether both copies wrote the same bytes (dvc.lock, every
report). CPU time rather than wall time: the machine is shared. The server's side runs first unless --reverse.

    python perf/stage_server.py [--workdir DIR] [--reverse] [dvc repro arguments, e.g. a stage name]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flows.smoke_real import copy_tracked_files  # noqa: E402
from flows.stage_server import OFF_VAR  # noqa: E402


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_side(project: Path, served: bool, targets: list[str]) -> dict[str, object]:
    """`python -m flows.pipeline` in `project`; its CPU and wall time and the stages it ran."""
    copy_tracked_files(project)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", OFF_VAR)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["JURISFLOW_MIRROR"] = env.get("JURISFLOW_MIRROR", str(ROOT.parent / "shared" / "data"))
    env["PREFECT_HOME"] = str(project.parent / f"prefect-{project.name}")
    if not served:
        env[OFF_VAR] = "1"
    cpu, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "flows.pipeline", *targets], cwd=project, env=env, capture_output=True, text=True
    )
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(
            f"{project.name}: make run failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return {"cpu_s": cpu, "wall_s": wall, "stages": done.stdout.count("Running stage")}


def digests(project: Path) -> dict[str, str]:
    """sha256 of dvc.lock and of every file under reports/."""
    files = [project / "dvc.lock", *sorted(p for p in (project / "reports").rglob("*") if p.is_file())]
    return {str(p.relative_to(project)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, help="where the two copies go (default: a temporary folder)")
    parser.add_argument("--reverse", action="store_true", help="run the side without the server first")
    from record import add_flag, record

    add_flag(parser)
    args, targets = parser.parse_known_args(argv)
    with tempfile.TemporaryDirectory(prefix="jurisflow-stage-server-") as tmp:
        work = args.workdir or Path(tmp)
        sides = [("server", True), ("no server", False)]
        figures = {}
        for name, served in reversed(sides) if args.reverse else sides:
            print(f"{name}: make run ...", file=sys.stderr, flush=True)
            figures[name] = run_side(work / name.replace(" ", "-"), served, targets)
        same = digests(work / "server") == digests(work / "no-server")
    print("| side | CPU s | wall s | stages run |\n|---|---:|---:|---:|")
    for name, _ in sides:
        f = figures[name]
        print(f"| {name} | {f['cpu_s']:.1f} | {f['wall_s']:.1f} | {f['stages']} |")
    saved = figures["no server"]["cpu_s"] - figures["server"]["cpu_s"]  # type: ignore[operator]
    print(f"CPU saved by the server: {saved:.1f} s; dvc.lock and every report identical: {same}")
    if args.record:
        rows = [
            (
                f"`make run` ({f['stages']} stages), "
                + ("stages forked from the stage server" if served else "every stage its own interpreter"),
                f"{f['cpu_s']:.1f} s of CPU, {f['wall_s']:.1f} s wall; the same bytes either way: {same}",
            )
            for name, served in sides
            for f in [figures[name]]
        ]
        record("make run with and without the stage server", rows)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
