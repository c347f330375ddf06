"""Test helpers: a loopback static HTTP server, and building small manifests over temporary files."""

from __future__ import annotations

import hashlib
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from flows.dvc_cli import command as dvc_command
from flows.kit.config import runs_of
from flows.kit.paths import Paths
from flows.pipeline import prefect_server
from flows.smoke_real import copy_tracked_files, merged

__all__ = [
    "BASE_STAGES",
    "SMALL",
    "SmallRun",
    "base_run",
    "copy_project",
    "prefect_server",
    "project_paths",
    "repro",
    "run_env",
    "sha256_bytes",
    "shared_base",
    "small_run",
    "static_server",
    "write_lawbench_interim",
    "write_manifest",
]

ROOT = Path(__file__).resolve().parents[1]

# Copies of the project run every stage on small samples: they check wiring and behaviour (every stage runs,
# `dvc status` is clean, failures are rows), not sizes. Each stage with a sample-size parameter adds its small
# value here.
SMALL: dict[str, dict[str, Any]] = {
    "lawbench": {"limit": 3},
    # separate civil cases: none of the first 20 civil judgments has all that CD, DD and CI need together
    "j1": {
        "extract": {"limit": 20},
        "instances": {"sizes": {"KQ": 2, "LC": 2, "CD": 2, "DD": 2, "CI": 2, "CR": 2}, "civil_cases": "separate"},
    },
    "ucl": {"limit": 2},
    "mile": {"sample": 3},
    "plawbench": {"limit": 1},
}


def copy_project(
    dest: Path, overrides: dict[str, dict], replace: tuple[str, ...] = (), base: Path | None = None
) -> None:
    """Copy the project's tracked and untracked-but-not-ignored files (no data/, no .venv/) to `dest`, merge
    `overrides` into its params.yaml key by key, at every depth (top-level sections named in `replace` are
    replaced whole), and make it a git repository of its own. With `base` (a `base_run`), the copy is of that
    project instead, its finished stages included: DVC finds them up to date unless the overrides change them."""
    if base is None:
        copy_tracked_files(dest)
    else:
        subprocess.run(["cp", "-a", str(base), str(dest)], check=True)
    params = yaml.safe_load((dest / "params.yaml").read_text(encoding="utf-8"))
    for section, values in overrides.items():
        params[section] = values if section in replace else merged(params.get(section), values)
    if "agents" in overrides and "runs" not in overrides:
        params["runs"] = runs_of(params.get("agents"))  # dvc.yaml iterates these lists
    (dest / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), encoding="utf-8")
    if base is None:
        subprocess.run(["git", "init", "-q"], cwd=dest, check=True)


def run_env(mirror: Path, prefect_api: str) -> dict[str, str]:
    """The environment of a test's `dvc repro`: the mirror, the session's Prefect server, the venv first on PATH."""
    bin_dir = Path(sys.executable).parent
    return {
        **os.environ,
        "JURISFLOW_MIRROR": str(mirror),
        "PREFECT_API_URL": prefect_api,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }


def repro(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float = 1800, log: Path | None = None, **kwargs: Any
) -> subprocess.CompletedProcess:
    """`dvc repro ARGS` in `cwd` with `env`; output captured as text (`log`: also written there)."""
    done = subprocess.run(
        dvc_command("repro", *args), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, **kwargs
    )
    if log is not None:
        log.write_text(done.stdout + done.stderr, encoding="utf-8")
    return done


# The stages that call no model and read no parameter a test changes (the sources; LawBench's rescoring of the
# published predictions, some 50 s of CPU): a session runs them once (`base_run`, the `base` fixture) and the
# tests' whole-pipeline copies start from there (`copy_project(..., base=...)`) instead of running them again.
BASE_STAGES = ("ingest", "lawbench_score")


@contextmanager
def base_run(dest: Path, mirror: Path, prefect_api: str) -> Iterator[Path]:
    """A copy of the project (SMALL samples) at `dest` after `dvc repro` of BASE_STAGES."""
    _build_base(dest, mirror, prefect_api)
    yield dest
    shutil.rmtree(dest, ignore_errors=True)


def shared_base(folder: Path, mirror: Path, prefect_api: str) -> Path:
    """`base_run`'s project under `folder`, built by the first process to ask (the others wait on a lock) and kept
    (pytest removes old temporary folders); a failed build leaves no marker, so the next process tries again."""
    import fcntl

    folder.mkdir(exist_ok=True)
    project, built = folder / "jurisflow", folder / "built"
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not built.exists():
            shutil.rmtree(project, ignore_errors=True)
            _build_base(project, mirror, prefect_api)
            built.touch()
    return project


def _build_base(dest: Path, mirror: Path, prefect_api: str) -> None:
    copy_project(dest, SMALL)
    done = repro(list(BASE_STAGES), dest, run_env(mirror, prefect_api))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@dataclass(frozen=True)
class SmallRun:
    """A project copy after one `dvc repro` of the whole pipeline on SMALL samples (`small_run`). Tests that only
    read a finished run use `project`; tests that change it work on `copy_to(...)`."""

    project: Path
    env: dict[str, str]  # the environment the run had (mirror, Prefect server, the venv first on PATH)
    agents: dict[str, dict]  # params.yaml's agents (small_agents)
    server: object  # the FakeOpenAIServer the `echo` agent talks to; alive for the whole session
    sent: int  # requests the run sent to it
    repro: subprocess.CompletedProcess

    def finished(self) -> None:
        """Fail the calling test with the run's output tail unless `dvc repro` succeeded."""
        assert self.repro.returncode == 0, self.repro.stdout[-3000:] + self.repro.stderr[-3000:]

    def copy_to(self, dest: Path) -> Path:
        """A copy of the finished project (data, reports, DVC cache, response cache, git) at `dest`."""
        self.finished()
        subprocess.run(["cp", "-a", str(self.project), str(dest)], check=True)
        return dest


# The agents of the session's small run: the scripted oracle (its stages cover every benchmark; the null agent's
# bounds are each benchmark's stage tests'), and a real (OpenAI-compatible) one on a test server for LawBench and
# UCL-Bench, so that the tests reusing the run see real requests too. Each agent adds some ten stages to the run.
def small_agents(url: str) -> dict[str, dict]:
    echo = {"model": "openai/test-model", "api_base": url, "benchmarks": ["lawbench", "ucl"]}
    return {"oracle": {"model": "scripted/oracle"}, "echo": echo}


@contextmanager
def small_run(dest: Path, mirror: Path, prefect_api: str, base: Path | None = None) -> Iterator[SmallRun]:
    """`dvc repro` of the whole pipeline in a copy of the project (or of `base`) at `dest` (SMALL samples,
    `small_agents`), with its test server alive until the context ends."""
    from tests.fake_openai_server import FakeOpenAIServer

    # stages as plain processes (JURISFLOW_PREFECT off, as every stage test): Prefect's round trips for some forty
    # stages cost the run a fifth of its CPU; what Prefect shows is tested on its own (tests/test_prefect_*.py)
    env = run_env(mirror, prefect_api) | {"JURISFLOW_PREFECT": "off"}
    with FakeOpenAIServer() as server:
        agents = small_agents(server.url)
        copy_project(dest, {**SMALL, "agents": agents}, replace=("agents",), base=base)
        done = repro([], dest, env, timeout=3500)
        yield SmallRun(
            project=dest,
            env=env,
            agents=agents,
            server=server,
            sent=server.count,
            repro=done,
        )
    shutil.rmtree(dest, ignore_errors=True)


def project_paths(root: Path, interim: Path | None = None) -> Paths:
    """The layout (flows/kit/paths.py) of a project at `root`; with `interim`, its data/interim is that folder
    (linked, not copied: tests build the interim tables once per module)."""
    paths = Paths(data=root / "data", reports=root / "reports", cache=root / ".cache")
    paths.data.mkdir(parents=True, exist_ok=True)
    if interim is not None and not paths.interim.exists():
        paths.interim.symlink_to(interim.resolve())
    return paths


@contextmanager
def static_server(root: Path) -> Iterator[str]:
    """Serve `root` over HTTP on a free loopback port; yields the base URL."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):  # keep test output quiet
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def write_lawbench_interim(mirror: Path, manifest, folder: Path) -> Path:
    """What `lawbench_predict` reads from ingest, built from the mirror: the items and the 2-1 lexicon tables."""
    from steps.sources import Fetched
    from steps.sources.tables import interim_tables
    from steps.tables import to_arrow, write_parquet_atomic

    for dataset in ("lawbench_items", "lawbench_cilin", "lawbench_confusions"):
        frame = interim_tables()[dataset].load([Fetched(f, mirror / f.path) for f in manifest.for_dataset(dataset)])
        write_parquet_atomic(to_arrow(frame), folder / f"{dataset}.parquet")
    return folder


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_manifest(
    path: Path, entries: list[dict], upstream_url: str = "http://127.0.0.1:9/{repo}/{commit}/{path}"
) -> Path:
    """Write a sources.yaml with one repo 'test/repo' and the given file entries."""
    files = []
    for e in entries:
        files.append(
            {
                "path": e["path"],
                "repo": "test/repo",
                "upstream_path": e.get("upstream_path", e["path"]),
                "sha256": e["sha256"],
                "bytes": e.get("bytes", 0),
                "dataset": e["dataset"],
                **({"derivation": e["derivation"]} if "derivation" in e else {}),
                **({"rows": e["rows"]} if "rows" in e else {}),
            }
        )
    doc = {"upstream_url": upstream_url, "repos": {"test/repo": {"commit": "c0ffee", "license": "MIT"}}, "files": files}
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path


def one_source_project(root: Path, mirror: Path) -> None:
    """A project at `root` whose only source is MILE's evaluation file, read from a mirror folder of its own (`m/`):
    its sources.yaml and the params.yaml that points ingest there, offline."""
    (root / "m/mile").mkdir(parents=True)
    shutil.copy(mirror / "mile/evaluate_data.json", root / "m/mile/evaluate_data.json")
    data = (root / "m/mile/evaluate_data.json").read_bytes()
    write_manifest(
        root / "sources.yaml", [{"path": "mile/evaluate_data.json", "sha256": sha256_bytes(data), "dataset": "mile"}]
    )
    (root / "params.yaml").write_text("sources:\n  mirror: m\n  download: false\n", encoding="utf-8")


def sampler_params(tmp_path: Path, repeats: int, **sections: dict) -> Path:
    """A params.yaml with one scripted sampling agent (`scripted/sampler` at temperature 0.7) repeated `repeats`
    times, the scripted roles, a response cache under `tmp_path` and the benchmark `sections` (the repeats tests)."""
    import yaml

    sampler = {"model": "scripted/sampler", "decoding": {"temperature": 0.7}}
    doc = {
        "agents": {"sampler": sampler | ({"repeats": repeats} if repeats > 1 else {})},
        "environment": {"model": "scripted/persona"},
        "judge": {"model": "scripted/judge"},
        "llm": {"cache_dir": str(tmp_path / "cache"), "backoff_base_s": 0.01, "max_attempts": 2},
        **sections,
    }
    path = tmp_path / f"params-{repeats}.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path
