"""Fault-injection soak: every model-calling stage of the five benchmarks against a server that misbehaves.

Two copies of the project (small samples, one agent and the environment model on one OpenAI-compatible test
server on loopback, every key from one environment variable; the judge and the extraction on the offline proxies,
whose answer formats an echo never meets) are built from the same
`ingest`. The *clean* copy runs `dvc repro` against the healthy server. The *soak* copy runs `dvc repro
--keep-going` while the server injects faults into a share of the requests (429, 5xx, slow replies beyond the
timeout, bodies trickled slower than the timeout, malformed, cut and non-UTF-8 bodies, dropped connections, null
content, content filters with partial text, replies cut off inside their reasoning, refusals that echo the
Authorization header), then `dvc repro` again against the healthy server. Figures:

- calls made and faults injected by kind (the server's counts), failures recorded by kind (usage rows);
- rows lost: per-item tables of the faulty run with fewer rows than the clean run's (must be 0);
- stages that exited 0 with failures: stages DVC locked whose usage holds failed calls (must be 0);
- files containing the injected key, in both copies, the Prefect home and every log (must be 0);
- whether the soak copy's finished outputs are byte-identical to the clean copy's (must be).

    python perf/fault_soak.py [--rate 0.2] [--seed 7] [--workdir DIR] [--no-reports]

With --no-reports (the test's setting) the three runs stop at the stages that call a model and what they need
upstream (every per-agent stage of every benchmark, `dvc repro` of those targets): the report stages call no
model, and they are a function of the data compared byte for byte.

Content filters and replies cut off inside their reasoning are in the mix as faults of the server, not of the
model: a provider's filter is deterministic, but what the soak measures is the pipeline's handling of one. Neither is
retried, so each is a recorded failure of the faulty run (kind `content_filter` or `truncated`; its stage exits
non-zero and is not locked, nothing of it is cached or scored), and the healthy rerun answers it, after which the
outputs must match the clean run's byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flows.agents import agent_stages  # noqa: E402
from flows.dvc_cli import command as dvc_command  # noqa: E402
from flows.kit.config import BENCHMARKS  # noqa: E402
from flows.smoke_real import stage_exits  # noqa: E402
from tests.fake_openai_server import FakeOpenAIServer, echo_reply  # noqa: E402
from tests.helpers import SMALL, copy_project, prefect_server  # noqa: E402

KEY_ENV = "SOAK_API_KEY"
AGENT = "fake"  # the agent under test, on the test server like the environment model and the judge
# Everything transient or malformed, plus what ends a call for good (the healthy rerun must then call again):
# refusals whose body echoes the key, content filters with partial text, replies cut off inside their reasoning.
SOAK_MIX: tuple[tuple, ...] = (
    ("429", 0),
    ("500",),
    ("502",),
    ("503",),
    ("slow", 3.0),
    ("trickle", 4.0),
    ("malformed",),
    ("malformed_truncated",),
    ("malformed_html",),
    ("bad_utf8",),
    ("drop",),
    ("null_length",),
    ("null_stop",),
    ("filtered_text",),
    ("think_cut",),
    ("401",),
)
# Tables with one row per item (answer, dialogue, judged item): a failure must be a row, never a missing one.
# Turn tables are not among them: a dialogue broken by a failed call has fewer turns, by design.
PER_ITEM_TABLES = (
    "predictions.parquet",
    "scores.parquet",
    "dialogues.parquet",
    "responses.parquet",
    "verdicts.parquet",
    "judgements.parquet",
    "item_scores.parquet",
)


TRAITS = ("extraversion", "neuroticism", "openness", "agreeableness", "conscientiousness")


def soak_reply(body: dict) -> str:
    """What the healthy server answers: the Big Five levels a persona prompt asks for (so that J1 has personas,
    hence instances and dialogues), an echo of the last user message for everything else."""
    prompt = str(body["messages"][-1].get("content", ""))
    if all(trait in prompt for trait in TRAITS) and "JSON" in prompt:
        return json.dumps(dict.fromkeys(TRAITS, "medium"))
    return echo_reply(body)


@dataclass
class SoakFigures:
    rate: float
    seconds: float
    calls: int
    faults_injected: dict[str, int]
    failures_recorded: dict[str, int]
    faulty_repro_rc: int
    stages_failed_in_faulty_run: list[str]
    rows_lost: int
    stages_locked_with_failures: list[str]
    files_with_key: list[str]
    rerun_rc: int
    rerun_calls: int
    clean_rc: int
    clean_calls: int
    identical: bool
    stages_run: list[str] = field(default_factory=list)  # by the clean run, without their @agent suffix
    differing: list[str] = field(default_factory=list)


def soak_params(url: str, cache_dir: str = ".cache/llm") -> dict[str, dict]:
    """params.yaml overrides: small samples, every model role on the test server, quick retries."""
    fake = {"model": "openai/test-model", "api_base": url, "api_key_env": KEY_ENV}
    return {
        **SMALL,
        "agents": {AGENT: fake},
        "environment": dict(fake),
        # Judges and the extraction answer in formats an echo never meets: their answers would all be unparsable,
        # which fails a stage by design (docs/failures.md). They stay offline; their calls take the same door.
        "judge": {"model": "scripted/judge"},
        "j1": {**SMALL["j1"], "extract": {**SMALL["j1"]["extract"], "model": {"model": "scripted/persona"}}},
        # A short timeout makes the slow and trickled replies time out; short backoffs keep the soak quick.
        "llm": {
            "concurrency": 8,
            "timeout_s": 2,
            "max_attempts": 6,
            "backoff_base_s": 0.02,
            "backoff_max_s": 0.2,
            "retry_budget_s": 120,
            "cache_dir": cache_dir,
            "max_failed_fraction": 0.0,
        },
    }


def model_targets(agent: str = AGENT) -> list[str]:
    """Every per-agent stage of every benchmark for `agent`: the DVC targets whose `dvc repro` runs each stage that
    calls a model (the per-agent ones, and upstream the environment's and the judge's: extraction, personas, UCL's
    reference dialogues, PLawBench's rubrics), but no report."""
    return agent_stages(agent, list(BENCHMARKS))


def _dvc(args: list[str], project: Path, env: dict[str, str], log: Path) -> int:
    """`dvc ARGS` in `project` with `env` (a stage server's, or none), appending to `log`."""
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ dvc {' '.join(args)}\n")
        out.flush()
        return subprocess.run(
            dvc_command(*args), cwd=project, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=3600
        ).returncode


def _stages_run(log: Path) -> list[str]:
    """The stages a `dvc repro` log says it ran, by name (`j1_judge@fake` → `j1_judge`), in order."""
    return list(dict.fromkeys(name.split("@")[0] for name in stage_exits(log.read_text(encoding="utf-8"))))


def _usage_failures(project: Path) -> Counter:
    kinds: Counter = Counter()
    for path in sorted((project / "data").rglob("*usage.parquet")):
        kinds.update(pd.read_parquet(path, columns=["failure_kind"]).failure_kind.dropna())
    return kinds


def _locked_with_failures(project: Path) -> list[str]:
    """Stages whose dvc.lock entry matches a usage file on disk that holds failed calls."""
    import hashlib

    lock = yaml.safe_load((project / "dvc.lock").read_text(encoding="utf-8")) or {}
    found = []
    for stage, entry in (lock.get("stages") or {}).items():
        for out in entry.get("outs") or []:
            path = project / out["path"]
            if not out["path"].endswith("usage.parquet") or not path.is_file():
                continue
            if hashlib.md5(path.read_bytes()).hexdigest() != out.get("md5"):
                continue
            if pd.read_parquet(path, columns=["failure_kind"]).failure_kind.notna().any():
                found.append(stage)
    return sorted(set(found))


def _row_counts(project: Path) -> dict[str, int]:
    return {
        str(p.relative_to(project)): len(pd.read_parquet(p))
        for p in sorted((project / "data").rglob("*.parquet"))
        if p.name in PER_ITEM_TABLES
    }


def _files_with(secret: bytes, *roots: Path) -> list[str]:
    hits = []
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                try:
                    if secret in path.read_bytes():
                        hits.append(str(path))
                except OSError:
                    continue
    return sorted(hits)


def _outputs(project: Path) -> dict[str, bytes]:
    """Finished outputs: every file under data/ and reports/, less the accounting (usage, the data card's usage)."""
    files = {}
    for top in ("data", "reports"):
        for path in sorted((project / top).rglob("*")):
            rel = str(path.relative_to(project))
            if not path.is_file() or path.name.endswith("usage.parquet") or path.name == ".gitignore":
                continue
            data = path.read_bytes()
            if rel == "reports/data.md":
                data = data.split(b"## Model usage")[0]
            files[rel] = data
    return files


def run_soak(
    workdir: Path, mirror: Path, *, rate: float = 0.2, seed: int = 7, base: Path | None = None, reports: bool = True
) -> SoakFigures:
    """Build both copies under `workdir`, run them against one test server, and return the figures.

    `reports=False` runs every stage that calls a model (`model_targets`) but not the report stages.

    The stages report to one Prefect server whose state lives in `workdir/prefect` (scanned for the key too).
    With `base` (the test suite's copy of the project after the stages that call no model, tests/helpers.py:
    base_run), the copies start from it instead of running those stages themselves.
    """
    started = time.perf_counter()
    secret = "sk-soak-" + secrets.token_hex(16)
    prefect_home = workdir / "prefect"
    logs = workdir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with FakeOpenAIServer(reply=soak_reply) as server, prefect_server(prefect_home) as prefect_api:
        env = {
            **os.environ,
            KEY_ENV: secret,
            "JURISFLOW_MIRROR": str(mirror),
            "PREFECT_HOME": str(prefect_home),
            "PREFECT_API_URL": prefect_api,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        }
        clean, soak = workdir / "clean", workdir / "soak"
        copy_project(clean, soak_params(server.url), replace=("agents",), base=base)
        # with `base`, ingest is done and `dvc repro ingest` only checks it
        if _dvc(["repro", "ingest"], clean, env, logs / "ingest.log") != 0:
            raise RuntimeError(f"ingest failed; see {logs / 'ingest.log'}")
        shutil.copytree(clean, soak, symlinks=True)

        targets = [] if reports else model_targets()
        server.reset_stats()
        clean_rc = _dvc(["repro", *targets], clean, env, logs / "clean.log")
        clean_calls = server.count

        server.reset_stats()
        server.inject_random(rate, seed=seed, mix=SOAK_MIX)
        faulty_rc = _dvc(["repro", "--keep-going", *targets], soak, env, logs / "faulty.log")
        calls, injected = server.count, dict(server.faults_injected)
        failures = dict(_usage_failures(soak))
        locked_with_failures = _locked_with_failures(soak)
        errors = [
            line
            for line in (logs / "faulty.log").read_text(encoding="utf-8").splitlines()
            if line.startswith("ERROR: failed to reproduce")
        ]
        failed_stages = sorted({name for line in errors for name in re.findall(r"'([^']+)'", line)})
        counts_faulty = _row_counts(soak)

        server.inject_random(0.0)
        server.reset_stats()
        rerun_rc = _dvc(["repro", *targets], soak, env, logs / "rerun.log")
        rerun_calls = server.count

    counts_clean = _row_counts(clean)
    rows_lost = sum(max(0, counts_clean.get(name, 0) - n) for name, n in counts_faulty.items())
    ours, theirs = _outputs(soak), _outputs(clean)
    differing = sorted(name for name in ours.keys() | theirs.keys() if ours.get(name) != theirs.get(name))
    key_files = _files_with(secret.encode(), clean, soak, prefect_home, logs)
    return SoakFigures(
        rate=rate,
        seconds=round(time.perf_counter() - started, 1),
        calls=calls,
        faults_injected=dict(sorted(injected.items())),
        failures_recorded=dict(sorted(failures.items())),
        faulty_repro_rc=faulty_rc,
        stages_failed_in_faulty_run=failed_stages,
        rows_lost=rows_lost,
        stages_locked_with_failures=locked_with_failures,
        files_with_key=key_files,
        rerun_rc=rerun_rc,
        rerun_calls=rerun_calls,
        clean_rc=clean_rc,
        clean_calls=clean_calls,
        identical=not differing,
        stages_run=_stages_run(logs / "clean.log"),
        differing=differing,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=0.2, help="share of requests given a fault")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=None, help="kept after the run (default: a temporary one)")
    parser.add_argument("--no-reports", action="store_true", help="stop at the stages that call a model")
    parser.add_argument(
        "--mirror", type=Path, default=Path(os.environ.get("JURISFLOW_MIRROR", ROOT.parent / "shared" / "data"))
    )
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="jurisflow-soak-"))
    figures = run_soak(workdir, args.mirror.resolve(), rate=args.rate, seed=args.seed, reports=not args.no_reports)
    print(json.dumps(asdict(figures), indent=2, ensure_ascii=False))
    if args.record:
        record("Fault-injection soak", [(k, json.dumps(v, ensure_ascii=False)) for k, v in asdict(figures).items()])
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
