"""`jurisflow eval`: register one model as an agent in params.yaml and run its stages and the reports with DVC.

    jurisflow eval --agent NAME --model MODEL [--api-base URL] [--api-key-env VAR]
                   [--benchmarks lawbench,j1,mile,ucl,plawbench] [--limit N]

The agent's entry (`agents.<NAME>`: model, endpoint, `benchmarks`, `limit`) and the `runs` lists that dvc.yaml
iterates are rewritten in place (comments and the other agents' entries kept), then `dvc repro` runs only the
agent's stages, the reports of its benchmarks and the data card, with one Prefect server for all of them (as
`make run`). Other agents' stages depend on their own `agents.<name>` keys only, so they stay up to date. At the
end the agent's headline numbers are read back from the reports' CSV twins and printed beside the paper's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pandas as pd
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from flows.kit.config import BENCHMARKS, PARAMS_FILE, ParamsError, load_params, runs_of
from flows.kit.paths import PATHS
from flows.kit.stages import benchmark_targets
from flows.kit.tables import write_text_atomic
from steps.benchmarks import benchmark as registration

REPORTS = PATHS.reports


def _yaml() -> YAML:
    y = YAML()  # round-trip: comments, key order and quoting are kept
    y.preserve_quotes = True
    y.width = 120
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _flow_list(names: list[str]) -> CommentedSeq:
    seq = CommentedSeq(names)
    seq.fa.set_flow_style()
    return seq


def register(
    params_file: Path,
    agent: str,
    model: str,
    api_base: str | None = None,
    api_key_env: str | None = None,
    benchmarks: list[str] | None = None,
    limit: int | None = None,
) -> None:
    """Write (or update) `agents.<agent>` and the `runs` lists in params.yaml; validated before anything is written.

    An existing entry keeps its other settings (decoding, concurrency …) and the benchmarks it already takes part
    in (`benchmarks` are added to them); `benchmarks` None means all five (the key is then left out); `limit` None
    removes the agent's own cap."""
    y = _yaml()
    data = y.load(params_file.read_text(encoding="utf-8")) or CommentedMap()
    agents = data.setdefault("agents", CommentedMap())
    entry = agents.get(agent)
    existed = isinstance(entry, dict)
    if not existed:
        entry = CommentedMap()
        agents[agent] = entry
    entry["model"] = model
    for key, value in (("api_base", api_base), ("api_key_env", api_key_env)):
        if value is not None:
            entry[key] = value
    if isinstance(entry.get("benchmarks"), list) and benchmarks is not None:  # eval on one more benchmark: added
        benchmarks = [*entry["benchmarks"], *benchmarks]
    elif existed and "benchmarks" not in entry:
        benchmarks = list(BENCHMARKS)  # an existing agent that takes part in everything keeps doing so
    if benchmarks is None or set(benchmarks) >= set(BENCHMARKS):
        entry.pop("benchmarks", None)
    else:
        entry["benchmarks"] = _flow_list([b for b in BENCHMARKS if b in benchmarks])
    if limit is None:
        entry.pop("limit", None)
    else:
        entry["limit"] = limit
    sync(data)
    buffer = StringIO()
    y.dump(data, buffer)
    text = buffer.getvalue()
    check = params_file.with_name(f".{params_file.name}.check")
    try:
        check.write_text(text, encoding="utf-8")
        load_params(check)  # a bad entry stops here, params.yaml untouched
    except ParamsError as err:
        raise ParamsError(str(err).replace(str(check), str(params_file))) from None
    finally:
        check.unlink(missing_ok=True)
    write_text_atomic(params_file, text)


def sync(data: dict) -> None:
    """Rewrite `runs` (per benchmark, the agents taking part) from `agents` in a round-trip YAML document."""
    runs = data.get("runs")
    if not isinstance(runs, dict):
        runs = CommentedMap()
        data["runs"] = runs
    for benchmark, names in runs_of(dict(data.get("agents") or {})).items():
        runs[benchmark] = _flow_list(names)


def sync_file(params_file: Path) -> None:
    """`jurisflow params sync`: rewrite params.yaml's `runs` from `agents`, then validate it."""
    y = _yaml()
    data = y.load(params_file.read_text(encoding="utf-8")) or CommentedMap()
    sync(data)
    buffer = StringIO()
    y.dump(data, buffer)
    write_text_atomic(params_file, buffer.getvalue())
    load_params(params_file)


def targets(agent: str, benchmarks: list[str]) -> list[str]:
    """The DVC stages one agent's evaluation runs, from the table of stages (dvc.yaml): its per-agent stages and
    its benchmarks' reports (with what they need upstream). The data card (`data_report`) reads every
    benchmark's outputs, so it is left to `make run`."""
    return [t for b in BENCHMARKS if b in benchmarks for t in benchmark_targets(b, agent)]


def stale_stages() -> list[str]:
    """The stages `dvc status` reports as not up to date (after the run, so the user sees what is left)."""
    bin_dir = Path(sys.executable).parent
    done = subprocess.run([str(bin_dir / "dvc"), "status", "--json"], capture_output=True, text=True)
    try:
        return sorted(json.loads(done.stdout or "{}"))
    except ValueError:
        return []


def repro(stage_targets: list[str]) -> int:
    """`dvc repro <targets>` with one Prefect server for every stage (or the one PREFECT_API_URL names), as one run
    session: `llm.budget_usd` caps what its stages spend together (steps/llm/ledger.py)."""
    from flows import pipeline
    from steps.llm.ledger import session_env

    bin_dir = Path(sys.executable).parent
    env = session_env({**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})  # stages: python
    return pipeline.repro(stage_targets, env)  # as `make run`: one Prefect server, the stages forked


def _read_csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""])  # the agent named `null` stays a name


def headlines(
    agent: str, benchmarks: list[str], reports: Path = REPORTS
) -> list[tuple[str, float | None, int | None, list[tuple[str, float]]]]:
    """(label, ours, n, paper rows [(model, value)], best first) for each headline of the agent's benchmarks,
    read from the reports' CSV twins; values × the headline's scale. The headlines are those its registration
    labels (steps/<benchmark>/benchmark.py)."""
    out = []
    for name in (b for b in BENCHMARKS if b in benchmarks):
        path = reports / f"{name}.csv"
        frame = (
            _read_csv(path)
            if path.is_file()
            else pd.DataFrame(columns=["table", "scope", "metric", "agent", "source", "value", "n"])
        )
        for h in registration(name).headlines:
            if h.label is None:
                continue
            rows = frame[(frame["table"] == h.table) & (frame.scope == h.scope) & (frame.metric == h.metric)]
            ours = rows[(rows.source == "ours") & (rows.agent.astype(str) == agent)]
            paper = rows[rows.source == "paper"].dropna(subset=["value"]).sort_values("value", ascending=False)
            value = float(ours.value.iloc[0]) * h.scale if len(ours) and pd.notna(ours.value.iloc[0]) else None
            n = int(ours.n.iloc[0]) if len(ours) and pd.notna(ours.n.iloc[0]) else None
            out.append((h.label, value, n, [(str(r.agent), float(r.value) * h.scale) for r in paper.itertuples()]))
    return out


def headline_text(agent: str, benchmarks: list[str], reports: Path = REPORTS) -> str:
    """The lines `jurisflow eval` prints at its end: ours (n) beside the paper's best and its number of models."""
    lines = [f"{agent}: headline numbers (from reports/<benchmark>.csv)"]
    for label, value, n, paper in headlines(agent, benchmarks, reports):
        ours = "not in the report" if value is None else f"{value:.2f}" + (f" (n {n})" if n is not None else "")
        ref = (
            (
                f"paper: best {paper[0][0]} {paper[0][1]:.2f}, median {pd.Series([v for _, v in paper]).median():.2f}"
                f" over {len(paper)} models"
            )
            if paper
            else "paper: no published number"
        )
        lines.append(f"  {label:<28} {ours:<22} {ref}")
    return "\n".join(lines)


def evaluate(
    agent: str,
    model: str,
    api_base: str | None = None,
    api_key_env: str | None = None,
    benchmarks: list[str] | None = None,
    limit: int | None = None,
    params_file: Path = PARAMS_FILE,
) -> int:
    """Register the agent, run its stages and reports, print its headline numbers; the exit code of `dvc repro`."""
    chosen = list(benchmarks or BENCHMARKS)
    unknown = sorted(set(chosen) - set(BENCHMARKS))
    if unknown:
        raise ParamsError(f"--benchmarks: unknown {', '.join(unknown)}; expected some of {', '.join(BENCHMARKS)}")
    register(params_file, agent, model, api_base, api_key_env, chosen, limit)
    stage_targets = targets(agent, chosen)
    print(f"agents.{agent} written to {params_file}; dvc repro {' '.join(stage_targets)}", file=sys.stderr)
    code = repro(stage_targets)
    print(headline_text(agent, chosen))
    stale = stale_stages()
    print("dvc status: " + (f"not up to date: {', '.join(stale)}" if stale else "every stage up to date"))
    if code:
        print(f"dvc repro exited {code}: the numbers above are from the last reports written", file=sys.stderr)
    return code
