"""`dvc repro` with DVC's dvc.lock rewrite and with ours (flows/dvc_cli.py), side by side in one run.

Part 1, this project's own dvc.lock: the rewrite DVC does after every stage (read the whole file, change one stage's
entry, dump it back), N times each with DVC's round-trip loader, with the C loader, and with `LockWriter` (which reuses
what the previous rewrite wrote); CPU seconds per rewrite and whether all three wrote the same bytes.
Part 2, a whole `dvc repro`: two copies of a generated project with as many stages and code dependencies per stage
as ours (shell commands, so that DVC's own work is what is measured), one run by `dvc repro`, one by
`python -m flows.dvc_cli repro`; the CPU time of each (DVC and its stages) and whether their dvc.lock files are the
same bytes. CPU time rather than wall time: the machine is shared.

    python benchmarks/dvc_lock.py [--rewrites N] [--stages S] [--deps D] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dvc.utils.serialize import _yaml  # noqa: E402

from flows.dvc_cli import LockWriter, command, parse_lock_for_update  # noqa: E402


def rewrites(text: str, n: int, way: str) -> tuple[float, str]:
    """CPU seconds per rewrite of the lock `text` (n rewrites, each reading what the previous one wrote), and the
    text the last one wrote. `way`: "dvc" (the round-trip loader), "c-loader" (`parse_lock_for_update`, DVC's dump),
    "writer" (`LockWriter`, as `python -m flows.dvc_cli` rewrites)."""
    writer = LockWriter(_yaml._dump)
    parse = {"dvc": _yaml.parse_yaml_for_update, "c-loader": parse_lock_for_update, "writer": writer.parse}[way]
    dump = writer.dump if way == "writer" else _yaml._dump
    start = time.process_time()
    for i in range(n):
        data = parse(text, "dvc.lock")
        next(iter(data["stages"].values()))["deps"][0]["md5"] = f"{i:032x}"
        stream = io.StringIO()
        dump(data, stream)
        text = stream.getvalue()
    return (time.process_time() - start) / n, text


def make_project(root: Path, stages: int, deps: int) -> Path:
    """A git + DVC project of `stages` chained stages, each depending on `deps` source files and the previous out."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([str(Path(sys.executable).parent / "dvc"), "init", "-q"], cwd=root, check=True, env=env)
    (root / "src").mkdir()
    for d in range(deps):
        (root / "src" / f"m{d}.py").write_text(f"X = {d}\n", encoding="utf-8")
    (root / "out").mkdir()
    lines = ["stages:"]
    for s in range(stages):
        lines += [f"  s{s}:", f"    cmd: echo {s} > out/s{s}.txt", "    deps:"]
        lines += [f"      - src/m{(s + d) % deps}.py" for d in range(deps)]
        lines += [f"      - out/s{s - 1}.txt"] if s else []
        lines += ["    outs:", f"      - out/s{s}.txt"]
    (root / "dvc.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def repro_side(project: Path, argv: list[str]) -> tuple[float, float]:
    """CPU and wall seconds of `argv` (a `dvc repro`) in `project`."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("JURISFLOW_STAGE_SERVER", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(argv, cwd=project, env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rewrites", type=int, default=10)
    parser.add_argument("--stages", type=int, default=35, help="stages of the generated project (ours: 35)")
    parser.add_argument("--deps", type=int, default=33, help="code files per stage (ours: 33 on average)")
    parser.add_argument("--workdir", type=Path, default=None)
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args(argv)

    text = (ROOT / "dvc.lock").read_text(encoding="utf-8")
    ways = {way: rewrites(text, args.rewrites, way) for way in ("dvc", "c-loader", "writer")}
    print(f"this project's dvc.lock ({len(text.encode()):,} bytes), CPU per rewrite over {args.rewrites}:")
    print(
        f"  DVC's round-trip loader {ways['dvc'][0]:.3f} s | C loader {ways['c-loader'][0]:.3f} s | "
        f"LockWriter {ways['writer'][0]:.3f} s | same bytes: {len({out for _, out in ways.values()}) == 1}"
    )
    theirs_out, ours_out = ways["dvc"][1], ways["writer"][1]

    work = Path(args.workdir or tempfile.mkdtemp(prefix="dvc-lock-bench-"))
    dvc = [str(Path(sys.executable).parent / "dvc"), "repro"]
    sides = {"dvc repro": dvc, "python -m flows.dvc_cli repro": command("repro")}
    results = {}
    for name, cmd in sides.items():
        project = make_project(work / name.split()[-2].replace(".", "_"), args.stages, args.deps)
        results[name] = (*repro_side(project, cmd), (project / "dvc.lock").read_bytes())
    print(f"`dvc repro` of {args.stages} stages with {args.deps} code dependencies each:")
    for name, (cpu, wall, lock) in results.items():
        print(f"  {name:<32} CPU {cpu:6.1f} s | wall {wall:6.1f} s | dvc.lock {len(lock):,} bytes")
    locks = {lock for _, _, lock in results.values()}
    print(f"  same dvc.lock bytes: {len(locks) == 1}")
    if args.record:
        rewrite = ", ".join(f"{way} {cpu:.3f} s" for way, (cpu, _) in ways.items())
        repro = ", ".join(f"`{name}` {cpu:.1f} s" for name, (cpu, _, _) in results.items())
        record(
            "DVC's dvc.lock rewrite",
            [
                ("one rewrite of this project's dvc.lock (CPU)", f"{rewrite}; same bytes: {theirs_out == ours_out}"),
                (
                    f"`dvc repro` of a generated project, {args.stages} stages × {args.deps} code deps (CPU)",
                    f"{repro}; same dvc.lock: {len(locks) == 1}",
                ),
            ],
        )
    return 0 if theirs_out == ours_out and len(locks) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
