"""A new benchmark is its own folder plus the three shared files (params.yaml, sources.yaml and the generated dvc.yaml):
a tiny benchmark `zz` (questions answered by each agent, scored by exact match; a per-agent stage that calls models
and a report stage, declared once in its registration) is written into a copy of the project, and with no other file
touched it runs through `dvc repro` (the real ingest and its own stages), the HTML report's flow, `jurisflow eval` (a
second agent), `jurisflow estimate`, `jurisflow results` and `jurisflow show`. The repository's own `git status` is
the same before and after.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml

from steps.benchmarks import names
from tests.conftest import ROOT
from tests.helpers import copy_project, sha256_bytes

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
BIN = Path(sys.executable).parent

PACKAGE = {
    "__init__.py": '"""ZZ-Bench, a test-only benchmark."""\n',
    "params.py": '''
        """ZZ-Bench's params.yaml section."""

        from steps.sections import BenchmarkSection


        class ZzParams(BenchmarkSection):
            rounds: int = 1


        SECTION = ZzParams
    ''',
    "benchmark.py": '''
        """ZZ-Bench's registration: its tables, headline, plot, paper and stages."""

        from steps.registry import Benchmark, Headline, Plot
        from steps.stages import Stage

        RUN = "data/zz/runs/{agent}"

        BENCHMARK = Benchmark(
            name="zz",
            title="ZZ-Bench",
            position=6,
            judged=("scores",),
            dialogues=True,
            headlines=(
                Headline("main", "accuracy", column="ZZ accuracy", scale=100,
                         paper="steps.zz.paper:accuracies"),
            ),
            plots=(Plot("zz_main", "main", ("accuracy",), None, "scope", "task", "accuracy"),),
            paper_names="steps.zz.paper:paper_names",
            stages=(
                Stage(
                    "zz_answer",
                    "steps.zz.stages:answer",
                    "Each agent answers every ZZ question; exact match scores it.",
                    agents="zz",
                    reads=("data/interim/zz_items.parquet",),
                    writes=tuple(f"{RUN}/{t}" for t in (
                        "run.json", "turns.parquet", "dialogues.parquet", "scores.parquet", "usage.parquet",
                        "call_cache.parquet",
                    )),
                    params=("agents.{agent}", "zz"),
                    calls_models=True,
                ),
                Stage(
                    "zz_report",
                    "steps.zz.stages:report",
                    "ZZ-Bench's accuracy of every agent taking part.",
                    reads=("data/zz/runs",),
                    reports=("reports/zz.md", "reports/zz.csv"),
                    params=("agents", "zz"),
                ),
            ),
        )
    ''',
    "sources.py": '''
        """ZZ-Bench's interim table: questions and answers from one JSON array."""

        from pathlib import Path

        import pandas as pd
        import pandera.pandas as pa
        from pandera.typing import Series

        from steps.registry import SourceTable
        from steps.schemas.base import Strict
        from steps.sources.readers import read_json, require_keys


        def load_items(files):
            rows = []
            for f in files:
                for i, rec in enumerate(read_json(f.local)):
                    require_keys(rec, ["id", "question", "answer"], file=str(f.local), where=f"record {i}")
                    rows.append({"item_id": f"zz/{rec['id']}", "question": rec["question"], "answer": rec["answer"]})
            return pd.DataFrame(rows)


        class ZzItems(Strict):
            item_id: Series[str] = pa.Field(unique=True)
            question: Series[str] = pa.Field(str_length={"min_value": 1})
            answer: Series[str]


        TABLES = (
            SourceTable("zz_items", "ZZ-Bench items", load_items, ZzItems, summary=Path(__file__).parent / "data.sql"),
        )
    ''',
    "data.sql": """
        -- ZZ-Bench items: how many, and the longest question.
        SELECT count(*) AS items, max(length(question)) AS question_max FROM zz_items;
    """,
    "paper.py": '''
        """ZZ-Bench's paper: one model."""

        import pandas as pd


        def paper_names():
            return {"ZZ-Model": ("zzm",)}


        def accuracies():
            return pd.DataFrame({"agent": ["ZZ-Model"], "value": [0.5], "judge": ["rule"]})
    ''',
    "schemas.py": '''
        """ZZ-Bench's judged table."""

        from pandera.typing import Series

        from steps.schemas.judged import Judged


        class ZzScores(Judged):
            instance_id: Series[str]
    ''',
    "scripted.py": '''
        """ZZ-Bench's oracle: the reference answer the stage passes in the call's metadata."""

        from steps.llm import ScriptedRequest, register_policy


        def oracle(request: ScriptedRequest) -> str:
            return str(request.metadata["reference"])


        register_policy("oracle", "zz", oracle)
    ''',
    "stages.py": '''
        """ZZ-Bench's stage bodies: `answer` (one agent, every question) and `report` (every agent)."""

        import asyncio

        import pandas as pd

        import steps.zz.scripted  # noqa: F401  (the oracle's policy)
        from steps.llm import Request
        from steps.paths import DIALOGUES, TURNS, USAGE
        from steps.reports.long import long_csv
        from steps.runs import run_spec
        from steps.schemas import Dialogues, Turns
        from steps.stages import StageContext
        from steps.zz.paper import accuracies
        from steps.zz.schemas import ZzScores
        from steps.zz.sources import ZzItems


        def answer(ctx: StageContext) -> str:
            agent = ctx.params.agent(ctx.agent_name)
            items = ctx.read_table(ctx.paths.interim / "zz_items.parquet", ZzItems)
            run_dir = ctx.paths.run("zz", agent.name)
            spec = run_spec(agent, "zz", role="agent")
            rid = ctx.begin_run(run_dir, spec)
            requests = [
                Request(agent, [{"role": "user", "content": q}], "agent",
                        {"scenario": "zz", "instance_id": i, "reference": a})
                for i, q, a in zip(items.item_id, items.question, items.answer)
            ]
            with ctx.model_session(rid, usage=run_dir / USAGE) as session:
                with ctx.counter(f"zz {agent.name}", len(requests)) as advance:
                    replies = asyncio.run(session.door.complete_many(requests, on_reply=lambda _: advance()))
            turns, dialogues, scores = [], [], []
            base = dict(run_id=rid, agent=agent.name, benchmark="zz", scenario="ZZ", stage=None, paper_turn=None,
                        revision=0, data="{}", exchange=0, kind="utterance", reasoning=None)
            for (iid, q, a), reply in zip(zip(items.item_id, items.question, items.answer), replies):
                failure = None if reply.ok else reply.kind
                text = reply.text if reply.ok else ""
                turns.append(dict(base, instance_id=iid, turn_index=0, speaker="user", speaker_label="用户",
                                  addressee="agent", model="", call_key="", prompt_tokens=0, completion_tokens=0,
                                  truncated=False, failure=None, text=q))
                turns.append(dict(base, instance_id=iid, turn_index=1, speaker="agent", speaker_label="律师",
                                  addressee="user", model=agent.model, call_key=reply.call_key,
                                  prompt_tokens=reply.prompt_tokens if reply.ok else 0,
                                  completion_tokens=reply.completion_tokens if reply.ok else 0,
                                  truncated=bool(reply.ok and reply.truncated), failure=failure, text=text))
                dialogues.append(dict(run_id=rid, agent=agent.name, benchmark="zz", scenario="ZZ", instance_id=iid,
                                      ended_by="marker", exchanges=1, utterances=2, deliverable_kind="dialogue",
                                      deliverable=None, forced=False, failure=failure))
                scores.append(dict(instance_id=iid, judge="rule", judge_prompt_version="", judge_proxy=False,
                                   value=None if failure else float(text.strip() == a), failure=failure,
                                   error="", attempts=0, truncated=False))
            ctx.write_table(pd.DataFrame(turns), run_dir / TURNS, Turns, table="zz_turns")
            ctx.write_table(pd.DataFrame(dialogues), run_dir / DIALOGUES, Dialogues, table="zz_dialogues")
            written = ctx.write_table(pd.DataFrame(scores), run_dir / "scores.parquet", ZzScores, table="zz_scores")
            ctx.write_run_json(run_dir, spec)
            ctx.check_calls(run_dir / USAGE)
            return f"{agent.name}: {len(written)} questions, {int(written.value.sum())} right; run {rid}"


        def report(ctx: StageContext) -> str:
            rows = []
            for name in ctx.params.derived_runs()["zz"]:
                scores = ctx.read_table(ctx.paths.run("zz", name) / "scores.parquet", ZzScores)
                rows.append(dict(benchmark="zz", table="main", agent=name, scope="overall", metric="accuracy",
                                 value=scores.value.mean(), n=int(scores.value.notna().sum()),
                                 n_failed=int(scores.failure.notna().sum()), judge="rule",
                                 proxy=ctx.params.agent(name).is_scripted, source="ours"))
            for paper in accuracies().itertuples():
                rows.append(dict(benchmark="zz", table="main", agent=paper.agent, scope="overall",
                                 metric="accuracy", value=paper.value, n=None, n_failed=None, judge=paper.judge,
                                 proxy=False, source="paper"))
            long = pd.DataFrame(rows)
            ctx.write_text(ctx.paths.reports / "zz.csv", long_csv(long, table="zz", digits=4, whole=("n", "n_failed")))
            lines = ["# ZZ-Bench", "", "| agent | accuracy | n |", "|---|---|---|"]
            lines += [f"| {r.agent} | {r.value:.2f} | {r.n} |" for r in long.itertuples() if r.source == "ours"]
            ctx.write_text(ctx.paths.reports / "zz.md", "\\n".join(lines) + "\\n")
            return f"reports/zz.md: {len(long[long.source == 'ours'])} agents"
    ''',
}

ITEMS = [
    {"id": 1, "question": "借款到期不还怎么办？", "answer": "起诉"},
    {"id": 2, "question": "何为诉讼时效？", "answer": "三年"},
]


def _git_status(where: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=where, capture_output=True, text=True).stdout


def _run(args: list, cwd: Path, env: dict, timeout: float = 900) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}: {done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _jurisflow(args: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    """`jurisflow ARGS` with the copy's own code (the installed command would run the repository's)."""
    return _run([sys.executable, "-m", "flows.cli", *args], cwd, env)


@pytest.fixture(scope="module")
def project(tmp_path_factory, mirror, prefect_api) -> dict:
    """The copy with ZZ-Bench added, after `dvc repro` of its stages and the HTML report, `eval` of a second agent,
    `estimate`, `results` and `show`; what each printed, and the files the copy's git sees as changed."""
    before = _git_status(ROOT)
    dest = tmp_path_factory.mktemp("zz") / "jurisflow"
    agents = {"a": {"model": "scripted/oracle", "benchmarks": ["zz"]}}
    runs = {name: [] for name in names()} | {"zz": ["a"]}  # the lists dvc.yaml iterates, as `jurisflow eval` writes
    copy_project(dest, {"agents": agents, "runs": runs, "zz": {"rounds": 1}}, replace=("agents", "runs"))
    subprocess.run(["git", "add", "-A"], cwd=dest, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "copy"], cwd=dest, check=True)
    # the folder
    for name, text in PACKAGE.items():
        (dest / "steps/zz").mkdir(exist_ok=True)
        (dest / "steps/zz" / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    # sources.yaml: its file, in a mirror that is the real one plus that file
    extra = tmp_path_factory.mktemp("mirror")
    for entry in mirror.iterdir():
        (extra / entry.name).symlink_to(entry)
    data = json.dumps(ITEMS, ensure_ascii=False).encode()
    (extra / "zz").mkdir()
    (extra / "zz/items.json").write_bytes(data)
    manifest = yaml.safe_load((dest / "sources.yaml").read_text(encoding="utf-8"))
    manifest["repos"]["test/zz"] = {"commit": "0" * 40, "license": "MIT"}
    manifest["files"].append(
        {
            "path": "zz/items.json",
            "repo": "test/zz",
            "upstream_path": "items.json",
            "sha256": sha256_bytes(data),
            "bytes": len(data),
            "rows": len(ITEMS),
            "dataset": "zz_items",
        }
    )
    (dest / "sources.yaml").write_text(yaml.safe_dump(manifest, allow_unicode=True, sort_keys=False), "utf-8")
    env = {
        **os.environ,
        "JURISFLOW_MIRROR": str(extra),
        "PREFECT_API_URL": prefect_api,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "COLUMNS": "200",
    }
    seen: dict = {}
    seen["stages"] = _run([sys.executable, "-m", "flows.dvc_yaml"], dest, env).stdout
    seen["repro"] = _run([BIN / "dvc", "repro", "zz_report"], dest, env).stdout
    # the HTML report's flow (its DVC stage would want every benchmark's runs, which this copy did not make)
    html = _run([sys.executable, "-m", "flows.run", "html_report"], dest, env)
    seen["html"] = html.stdout + html.stderr  # the summary line goes to stderr
    seen["eval"] = _jurisflow(["eval", "--agent", "b", "--model", "scripted/null", "--benchmarks", "zz"], dest, env)
    seen["estimate"] = _jurisflow(["estimate", "--benchmarks", "zz"], dest, env).stdout
    seen["results"] = _jurisflow(["results", "--benchmark", "zz", "--format", "csv"], dest, env).stdout
    seen["show"] = _jurisflow(["show", "a", "zz/1"], dest, env).stdout
    seen["changed"] = sorted(
        line[3:] for line in _git_status(dest).splitlines() if not line[3:].startswith(("data/", ".cache/"))
    )
    seen["project"] = dest
    assert _git_status(ROOT) == before  # no file of the repository changed
    return seen


def test_the_benchmark_is_its_folder_and_the_three_shared_files(project):
    assert project["stages"].startswith("dvc.yaml written")
    # beside its folder: the three shared files, and the outputs of its stages (reports, dvc.lock)
    assert project["changed"] == [
        "dvc.lock",
        "dvc.yaml",
        "params.yaml",
        "reports/zz.csv",
        "reports/zz.md",
        "sources.yaml",
        "steps/zz/",
    ]
    stage = yaml.safe_load((project["project"] / "dvc.yaml").read_text(encoding="utf-8"))["stages"]["zz_answer"]
    assert stage["cmd"] == "python -m flows.run zz_answer ${item.agent}" and "steps/zz" in stage["deps"]


def test_dvc_repro_runs_ingest_its_stages_and_the_html_report(project):
    ran = re.findall(r"Running stage '([^']+)'", project["repro"])
    assert ran == ["ingest", "zz_answer@a", "zz_report"]
    interim = pd.read_parquet(project["project"] / "data/interim/zz_items.parquet")
    assert interim.item_id.tolist() == ["zz/1", "zz/2"]
    assert "pages written" in project["html"]
    page = (project["project"] / "reports/html/zz.html").read_text(encoding="utf-8")
    index = (project["project"] / "reports/html/index.html").read_text(encoding="utf-8")
    assert "<h1>ZZ-Bench</h1>" in page and "起诉" in page and '<a href="zz.html">ZZ-Bench</a>' in index


def test_eval_adds_an_agent_runs_its_stage_and_prints_the_headline(project):
    done = project["eval"]
    ran = re.findall(r"Running stage '([^']+)'", done.stdout)
    # its stage, its report, then the HTML report (whose inputs a copy has as a clone has them: data/'s folders)
    assert ran == ["zz_answer@b", "zz_report", "html_report"]
    # the leaderboard's column, the agent labelled as everywhere (scripted/null is a stand-in), the paper's row
    line = r"ZZ accuracy\s+b \[scripted\]\s+0\.0 \(n 2\)\s+paper: best ZZ-Model"
    assert re.search(line, done.stdout), done.stdout[-2000:]
    csv = pd.read_csv(project["project"] / "reports/zz.csv")
    ours = csv[csv.source == "ours"].set_index("agent").value.to_dict()
    assert ours == {"a": 1.0, "b": 0.0}  # the oracle answers with the reference, the null agent says nothing


def test_the_estimate_counts_its_calls(project):
    rows = [line for line in project["estimate"].splitlines() if "zz_answer" in line]
    assert len(rows) == 2 and all(re.search(r"\b2\b", r) for r in rows), project["estimate"]


def test_results_and_show_read_it(project):
    board = project["results"]
    assert "ZZ accuracy" in board and "ZZ-Model" in board and "100.0 (n 2)" in board
    assert "zz/1" in project["show"] and "起诉" in project["show"]
