"""What a stage process spends before its first useful line: the CPU time of importing each stage's flow module.

`make run` starts one Python process per stage (`python -m flows.<stage>`, ~30 of them in `dvc.yaml`); the fault
soak and the whole-pipeline test start them several times over. Each process pays for its imports before it reads
a byte. This measures, side by side in one run:

- a bare interpreter (`python -c pass`), the floor;
- the import of each heavy library on its own (prefect, litellm, pandera, duckdb, numba, ...), the ceilings;
- `import flows.<stage>` for every stage module in `dvc.yaml`, in this tree and (with `--against REF`, e.g.
  `main`) in a git ref's tree extracted to a temporary folder: before and after;
- a Prefect flow run that does nothing, against one shared Prefect server (as under `make run`): what the
  engine adds to every stage on top of its imports.

CPU time (user + sys of the child) rather than wall time: the machine is shared and wall time is noisy; the
minimum over `--repeat` runs is reported. Which heavy libraries a stage loads is listed too.

    python perf/stage_startup.py [--against main] [--repeat 3] [--no-flow]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "prefect",
    "litellm",
    "pandera",
    "duckdb",
    "numba",
    "pandas",
    "pyarrow",
    "jieba",
    "pypinyin",
    "cn2an",
    "jinja2",
    "openai",
    "rouge_chinese",
    "opencc",
)
PROBE = "import json, sys; import {module}; print(json.dumps(sorted(n for n in {heavy!r} if n in sys.modules)))"
EMPTY_FLOW = "from prefect import flow\n@flow\ndef nothing() -> int:\n    return 1\nassert nothing() == 1\n"


def stage_modules(dvc_yaml: Path) -> list[str]:
    """The flow modules `dvc.yaml` runs, in stage order, each once."""
    found = re.findall(r"cmd:\s*python -m (flows\.\w+)", dvc_yaml.read_text(encoding="utf-8"))
    return list(dict.fromkeys(found))


def cpu_of(code: str, cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """(CPU seconds user+sys, wall seconds, stdout) of `python -c code` in `cwd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{code!r} in {cwd} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


def best(code: str, cwd: Path, env: dict[str, str], repeat: int) -> tuple[float, float, str]:
    runs = [cpu_of(code, cwd, env) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[-1][2]


def extract_ref(ref: str, dest: Path) -> Path:
    """The `flows/` and `steps/` of git ref `ref` (plus dvc.yaml and params.yaml) in `dest`."""
    archive = subprocess.run(
        ["git", "archive", ref, "flows", "steps", "dvc.yaml", "params.yaml", "prefect.toml"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default=None, help="a git ref to compare with (e.g. main)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the minimum is reported")
    parser.add_argument("--no-flow", action="store_true", help="skip the empty Prefect flow run")
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args()
    figures = []
    # A clean environment for the children: no inherited Prefect API, our tree first on sys.path.
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "PYTHONPATH")}
    env["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"

    floor, _, _ = best("pass", ROOT, env, args.repeat)
    print(f"python -c pass: {floor:.2f} s CPU (the floor; every figure below includes it)\n")
    figures.append(("`python -c pass`", f"{floor:.2f} s"))
    print("| library | import CPU s |\n|---|---:|")
    for name in HEAVY:
        module = "pandera.pandas" if name == "pandera" else name
        # litellm as the project imports it: with the price map pinned with the package (no network fetch)
        lib_env = {**env, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        cpu, _, _ = best(f"import {module}", ROOT, lib_env, args.repeat)
        print(f"| {name} | {cpu:.2f} |")
        figures.append((f"`import {module}`", f"{cpu:.2f} s"))

    modules = stage_modules(ROOT / "dvc.yaml")
    other = None
    with tempfile.TemporaryDirectory(prefix="stage-startup-") as tmp:
        if args.against:
            other = extract_ref(args.against, Path(tmp))
        head = f"| stage module | {args.against} CPU s | " if other else "| stage module | "
        print(f"\n{head}now CPU s | now wall s | heavy libraries loaded now |")
        print("|---|" + ("---:|" if other else "") + "---:|---:|---|")
        totals = [0.0, 0.0]
        for module in modules:
            code = PROBE.format(module=module, heavy=HEAVY)
            cpu, wall, out = best(code, ROOT, env, args.repeat)
            totals[1] += cpu
            cells = [module]
            if other is not None:
                then, _, _ = best(code, other, env, args.repeat)
                totals[0] += then
                cells.append(f"{then:.2f}")
            cells += [f"{cpu:.2f}", f"{wall:.2f}", ", ".join(json.loads(out))]
            print("| " + " | ".join(cells) + " |")
        per_run = ", ".join(f"{t:.1f}" for t in (totals if other else totals[1:]))
        print(f"\nsum over the {len(modules)} stage modules (each once; some run per agent): {per_run} s CPU")
        figures.append((f"`import flows.<stage>`, the {len(modules)} stage modules together", f"{totals[1]:.1f} s"))

    if not args.no_flow:
        sys.path.insert(0, str(ROOT))
        from flows.pipeline import prefect_server

        with tempfile.TemporaryDirectory(prefix="stage-startup-prefect-") as home, prefect_server(Path(home)) as url:
            flow_env = {**env, "PREFECT_API_URL": url, "PREFECT_HOME": home}
            imp, _, _ = best("import prefect", ROOT, flow_env, args.repeat)
            run, wall, _ = best(EMPTY_FLOW, ROOT, flow_env, args.repeat)
        print(
            f"\nan empty Prefect flow run against one shared server: {run:.2f} s CPU ({wall:.2f} s wall), "
            f"of which `import prefect` {imp:.2f} s: the engine adds {run - imp:.2f} s CPU per stage process"
        )
        figures.append(
            ("an empty Prefect flow run against a shared server", f"{run - imp:.2f} s on top of `import prefect`")
        )
    if args.record:
        record("Stage start-up (CPU seconds)", figures)


if __name__ == "__main__":
    main()
