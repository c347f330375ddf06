"""A new benchmark is its own folder plus the three shared files the goal allows (dvc.yaml, params.yaml,
sources.yaml): a tiny dialogue benchmark `zz` written to a temporary folder (its params section, its registration,
a loader and schema for a small JSON source with the data card's query beside them, and its paper's model list) is
picked up, with no other edit, by the config, the real `ingest` stage, the data card (its table, its title, its
summary query, its runs' dialogues and judged rows), the leaderboard of `jurisflow results` (its column and the
paper's number), `jurisflow eval`'s headline lines, the DVC metrics and plots, the paper-model check, the run
tables' schema, `jurisflow show` and the real `html_report` stage (its page, its transcripts, the index).

The folder joins the `steps` package in a fresh interpreter (its `__path__` extended before anything else is
imported), as a folder under steps/ would; the probe writes only that folder's files and the project's params.yaml
and sources.yaml, and the repository's `git status` is the same before and after it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

ROOT = Path(__file__).resolve().parents[1]

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
        """ZZ-Bench's registration."""

        from steps.registry import Benchmark, Headline, Plot

        BENCHMARK = Benchmark(
            name="zz",
            title="ZZ-Bench",
            position=6,
            judged=("scores",),
            dialogues=True,
            headlines=(
                Headline("main", "accuracy", column="ZZ accuracy", label="ZZ accuracy", scale=100,
                         paper="steps.zz.paper:accuracies"),
            ),
            plots=(Plot("zz_main", "main", ("accuracy",), None, "scope", "task", "accuracy"),),
            paper_names="steps.zz.paper:paper_names",
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
}

ITEMS = [
    {"id": 1, "question": "借款到期不还怎么办？", "answer": "起诉"},
    {"id": 2, "question": "何为诉讼时效？", "answer": "三年"},
]

# Run in a fresh interpreter with the folder on the package's path; prints what each layer sees, as JSON.
PROBE = r"""
import io, json, sys
from pathlib import Path
import steps
steps.__path__.append(sys.argv[1])
project = Path(sys.argv[2])

import pandas as pd
from rich.console import Console

from flows.kit.config import BENCHMARKS, Params, ParamsError, load_params
from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from steps.tables import write_table
from steps.benchmarks import benchmark, check_paper_model, dialogue_benchmarks, judged_tables, names
from steps.schemas import Dialogues, Turns
from steps.zz.schemas import ZzScores

seen = {}
params = load_params(project / "params.yaml")
seen["config"] = [list(BENCHMARKS), params.section_named("zz").rounds]
try:
    Params.model_validate({"zz": {"round": 2}})
except Exception as e:
    seen["bad_key"] = str(e).splitlines()[1]
seen["catalog"] = [list(names()), list(dialogue_benchmarks()), judged_tables()["zz"]]

# the real ingest stage on a sources.yaml that lists the new dataset
from flows.run import ingest
paths = Paths(data=project / "data", reports=project / "reports", cache=project / ".cache",
              manifest=project / "sources.yaml")
seen["ingest"] = run_stage("ingest", ingest, paths=paths, params_file=project / "params.yaml")
seen["interim"] = pd.read_parquet(paths.interim / "zz_items.parquet").item_id.tolist()

# one agent's run: turns and dialogues in the shared schemas, a judged table
run = paths.run("zz", "a")
turn = dict(run_id="r1", agent="a", benchmark="zz", scenario="ZZ", instance_id="zz/1", exchange=0, addressee="user",
            kind="utterance", stage=None, paper_turn=None, model="scripted/oracle", call_key="k", prompt_tokens=3,
            truncated=False, completion_tokens=2, revision=0, failure=None, data="{}")
turns = pd.DataFrame([dict(turn, turn_index=0, speaker="user", speaker_label="用户", addressee="agent",
                           model="scripted/persona", text="借款到期不还怎么办？"),
                      dict(turn, turn_index=1, speaker="agent", speaker_label="律师", text="可以起诉。")])
write_table(turns, run / "turns.parquet", Turns, table="turns")
dialogue = dict(run_id="r1", agent="a", benchmark="zz", scenario="ZZ", instance_id="zz/1", ended_by="marker",
                exchanges=1, utterances=2, deliverable_kind="dialogue", deliverable=None, forced=False, failure=None)
write_table(pd.DataFrame([dialogue]), run / "dialogues.parquet", Dialogues, table="dialogues")
score = dict(instance_id="zz/1", judge="rule", judge_prompt_version="", judge_proxy=False, value=1.0, failure=None,
             error="", attempts=0, truncated=False)
write_table(pd.DataFrame([score]), run / "scores.parquet", ZzScores, table="scores")

# the data card: its table in order, its title and query, its runs' dialogues and judged rows
from steps.reports.stages import card_tables, judged_files, summarise, summarise_runs
order = [t.name for t in card_tables()]
seen["card_order"] = order[order.index("plawbench_drafting"):]
zz_items = [(t, paths.interim / "zz_items.parquet") for t in card_tables() if t.name == "zz_items"]
(section,), _ = summarise(zz_items, [])
seen["card_section"] = [section.title, section.rows, section.summary.to_dict("records")]
seen["judged_files"] = [labels for labels, _ in judged_files(paths)]
runs = summarise_runs(paths)
seen["card_runs"] = [runs.dialogues[["benchmark", "dialogues", "turns"]].to_dict("records"),
                     runs.judged[["benchmark", "table", "rows", "valued"]].to_dict("records")]

# its report's CSV twin: the leaderboard, eval's lines, the DVC views
long = pd.DataFrame([
    dict(benchmark="zz", table="main", agent="a", scope="overall", metric="accuracy", value=0.75, n=2, n_failed=0,
         judge="rule", proxy=True, source="ours"),
    dict(benchmark="zz", table="main", agent="a", scope="easy", metric="accuracy", value=1.0, n=1, n_failed=0,
         judge="rule", proxy=True, source="ours"),
    dict(benchmark="zz", table="main", agent="ZZ-Model", scope="overall", metric="accuracy", value=0.4, n=None,
         n_failed=None, judge="rule", proxy=False, source="paper"),
])
paths.reports.mkdir(parents=True, exist_ok=True)
long.to_csv(paths.reports / "zz.csv", index=False)
from flows.results import headline_rows, parse_benchmarks
from steps.results import leaderboard
board = leaderboard(headline_rows(paths.reports), parse_benchmarks("zz"))
seen["leaderboard"] = board.to_dict("records")
from flows.evaluate import headlines
seen["eval"] = headlines("a", ["zz"], paths.reports)
from steps.reports.dvc_views import headline_metrics, plot_tables
seen["metrics"] = headline_metrics(benchmark("zz"), long, ["a"])
seen["plots"] = {k: v.to_dict("records") for k, v in plot_tables(benchmark("zz"), long, ["a"]).items()}

# the paper-model check knows its paper's models
check_paper_model("zzm")
check_paper_model({"zz": "ZZ-Model"})
try:
    check_paper_model({"zz": "GPT-4o"})
except ValueError as e:
    seen["paper_model"] = str(e)

# jurisflow show finds its dialogue
from flows.show import show_any
out = io.StringIO()
show_any("a", "zz/1", paths=paths, console=Console(file=out, width=200))
seen["show"] = out.getvalue()

# the real html_report stage: every benchmark's page (the five from the committed CSV twins), and its own
from flows.run import html_report
from steps.reports.html.pages import PAGES
seen["pages"] = PAGES
seen["html"] = html_report(params_file=project / "params.yaml", paths=paths)
page = (paths.reports / "html" / "zz.html").read_text(encoding="utf-8")
index = (paths.reports / "html" / "index.html").read_text(encoding="utf-8")
seen["page"] = ["<h1>ZZ-Bench</h1>" in page, "Transcripts (1 dialogues)" in page, "可以起诉。" in page,
                '<a href="zz.html">ZZ-Bench</a>' in index]
print(json.dumps(seen, ensure_ascii=False, default=str))
"""


def _git_status() -> str:
    done = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    return done.stdout


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> tuple[dict, list[str]]:
    from tests.helpers import sha256_bytes, write_manifest

    extra = tmp_path_factory.mktemp("extra")
    for name, text in PACKAGE.items():
        (extra / "zz").mkdir(exist_ok=True)
        (extra / "zz" / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    project = tmp_path_factory.mktemp("project")
    mirror = tmp_path_factory.mktemp("mirror")
    data = json.dumps(ITEMS, ensure_ascii=False).encode()
    (mirror / "zz").mkdir()
    (mirror / "zz" / "items.json").write_bytes(data)
    for twin in ("lawbench", "j1", "mile", "ucl", "plawbench"):  # the other pages of the HTML report
        (project / "reports").mkdir(exist_ok=True)
        shutil.copy(ROOT / "reports" / f"{twin}.csv", project / "reports" / f"{twin}.csv")
    # the shared files it touches: sources.yaml (its dataset) and params.yaml (its section; an agent to run it)
    write_manifest(
        project / "sources.yaml", [{"path": "zz/items.json", "sha256": sha256_bytes(data), "dataset": "zz_items"}]
    )
    (project / "params.yaml").write_text(
        f"sources:\n  mirror: {mirror}\n  download: false\n"
        "agents:\n  a:\n    model: scripted/oracle\nzz:\n  rounds: 2\n",
        encoding="utf-8",
    )
    before = _git_status()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("JURISFLOW_MIRROR", None)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PROBE), str(extra), str(project)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert _git_status() == before  # no file of the repository changed
    written = sorted(
        p.relative_to(extra).as_posix() for p in extra.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    return json.loads(done.stdout.strip().splitlines()[-1]), written


def test_the_benchmark_is_its_folder_and_the_three_shared_files(probe):
    _, written = probe
    assert written == sorted(f"zz/{name}" for name in PACKAGE)  # code: its own folder only
    # and the two shared files the probe's project has beside it: sources.yaml, params.yaml (dvc.yaml: its stages)


def test_the_config_and_the_catalog_know_it(probe):
    seen, _ = probe
    assert seen["config"] == [["j1", "lawbench", "mile", "plawbench", "ucl", "zz"], 2]
    assert "zz.round" in seen["bad_key"]
    assert seen["catalog"] == [
        ["lawbench", "j1", "mile", "ucl", "plawbench", "zz"],
        ["j1", "mile", "ucl", "plawbench", "zz"],
        ["scores"],
    ]


def test_ingest_builds_its_table_with_its_loader_and_schema(probe):
    seen, _ = probe
    assert seen["ingest"] == 0 and seen["interim"] == ["zz/1", "zz/2"]


def test_the_data_card_describes_its_table_and_its_runs(probe):
    seen, _ = probe
    assert seen["card_order"] == ["plawbench_drafting", "zz_items", "judgments_criminal", "judgments_civil"]
    assert seen["card_section"] == ["ZZ-Bench items", 2, [{"items": 2, "question_max": 10}]]
    assert seen["judged_files"] == [{"benchmark": "zz", "table": "scores"}]
    dialogues, judged = seen["card_runs"]
    assert dialogues == [{"benchmark": "zz", "dialogues": 1, "turns": 2}]
    assert judged == [{"benchmark": "zz", "table": "scores", "rows": 1, "valued": 1}]


def test_the_leaderboard_eval_and_dvc_views_take_its_headline(probe):
    seen, _ = probe
    assert seen["leaderboard"] == [
        {"agent": "a", "source": "ours, scripted", "ZZ accuracy": "75.0 (n 2)"},
        {"agent": "ZZ-Model (paper)", "source": "paper", "ZZ accuracy": "50.0"},  # from its paper function
    ]
    assert seen["eval"] == [["ZZ accuracy", 75.0, 2, [["ZZ-Model", 40.0]]]]  # eval reads the CSV twin's paper rows
    assert seen["metrics"] == {"a": {"accuracy": 0.75}}
    assert seen["plots"] == {
        "zz_main": [
            {"task": "overall", "agent": "a", "accuracy": 0.75},
            {"task": "easy", "agent": "a", "accuracy": 1.0},
        ]
    }


def test_the_paper_model_check_knows_its_paper(probe):
    seen, _ = probe
    assert "paper_model.zz: 'GPT-4o' is not a model of the zz paper (ZZ-Model)" in seen["paper_model"]


def test_show_and_the_html_report_show_its_dialogue(probe):
    seen, _ = probe
    assert "zz/1" in seen["show"] and "可以起诉。" in seen["show"]
    assert list(seen["pages"]) == ["index", "lawbench", "j1", "mile", "ucl", "plawbench", "zz"]
    assert seen["pages"]["zz"] == "ZZ-Bench"
    assert seen["html"].startswith("reports/html/: 7 pages written")
    assert seen["page"] == [True, True, True, True]
