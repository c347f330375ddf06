"""The offline configuration end to end: instances built by the real flows from the fixture sources, the
`j1_simulate`, `j1_judge` and `j1_report` flows with the scripted oracle and null agents, the scripted environment and
the proxy judge. Checks the bounds every rule and judged metric must meet, and that a rerun on a warm cache
makes no new judge call and writes byte-identical scores and reports."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.models import read_usage_log
from flows.kit.stage import run_stage
from flows.run import j1_judge, j1_report, j1_simulate
from steps.j1.eval.schemas import J1Scores
from steps.reports.long import LONG_COLUMNS
from steps.tables import read_table
from tests.j1.envs.conftest import build, write_sources

pytestmark = pytest.mark.slow

# cells computed by rule: the oracle reaches ≥ 0.95 (III-4 and its parts ≤ 0.05), the null agent ≤ 0.05 (III-4 1)
RULE = {
    ("KQ", "I-1", ""),
    ("LC", "I-1", ""),
    ("CD", "II-1", ""),
    ("DD", "II-1", ""),
    ("CD", "II-2", "PLA"),
    ("CD", "II-2", "DEF"),
    ("DD", "II-2", "RES"),
    ("CI", "III-1", "UNI"),
    ("CR", "III-1", "UNI"),
    ("CI", "III-6", ""),
    ("CR", "III-6", ""),
    ("CR", "III-3", ""),
    ("CR", "III-3", "partial"),
}
PENALTY = {("CR", "III-4", ""), ("CR", "III-4", "SEN"), ("CR", "III-4", "FINE")}
# cells with a judge in them: the oracle beats the null agent under the proxy judge
JUDGED = {
    ("KQ", "I-2", ""),
    ("LC", "I-2", ""),
    ("CD", "II-2", ""),
    ("DD", "II-2", ""),
    ("CD", "II-2", "CLA"),
    ("CD", "II-2", "EVI"),
    ("CD", "II-2", "F&R"),
    ("DD", "II-2", "DEF"),
    ("CI", "III-1", ""),
    ("CI", "III-1", "STA"),
    ("CI", "III-1", "ACT"),
    ("CR", "III-1", ""),
    ("CR", "III-1", "STA"),
    ("CR", "III-1", "ACT"),
    ("CI", "III-2", ""),
    ("CI", "III-5", ""),
    ("CR", "III-5", ""),
}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("j1eval")
    sources = write_sources(root / "build")
    build(sources)
    params = {
        "agents": {"oracle": {"model": "scripted/oracle"}, "null": {"model": "scripted/null"}},
        "environment": {"model": "scripted/persona"},
        "judge": {"model": "scripted/judge"},
        "llm": {"cache_dir": str(root / "cache")},
        "j1": {"simulate": {"transcripts": 0}, "eval": {"paper_names": {"oracle": "GPT-4o"}}},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    paths = {
        "params_file": root / "params.yaml",
        "paths": sources.paths,  # data/j1/instances.parquet built there; the runs and reports go there too
        "runs": sources.paths.runs("j1"),
        "reports": sources.paths.reports,
    }
    for agent in ("oracle", "null"):
        kwargs = {"agent_name": agent, "params_file": paths["params_file"], "paths": sources.paths}
        assert run_stage("j1_simulate", j1_simulate, **kwargs) == 0
        assert run_judge(paths, agent) == 0
    assert run_report(paths) == 0
    return paths, sources.processed


def run_judge(paths: dict, agent: str) -> int:
    return run_stage("j1_judge", j1_judge, agent_name=agent, params_file=paths["params_file"], paths=paths["paths"])


def run_report(paths: dict) -> int:
    return run_stage("j1_report", j1_report, params_file=paths["params_file"], paths=paths["paths"])


def cells(paths: dict, agent: str) -> dict[tuple[str, str, str], float]:
    scores = read_table(paths["runs"] / agent / "scores.parquet", J1Scores)
    scored = scores[~scores.component.str.fullmatch(r"T\d+")]
    return scored.groupby(["scenario", "metric", "component"]).value.mean().to_dict()


def test_every_scenario_is_scored_on_its_metrics(project):
    paths, _ = project
    scores = read_table(paths["runs"] / "oracle" / "scores.parquet", J1Scores)
    head = scores[scores.component == ""].groupby("scenario").metric.unique().map(sorted).to_dict()
    assert head == {
        "KQ": ["I-1", "I-2"],
        "LC": ["I-1", "I-2"],
        "CD": ["II-1", "II-2"],
        "DD": ["II-1", "II-2"],
        "CI": ["III-1", "III-2", "III-5", "III-6"],
        "CR": ["III-1", "III-3", "III-4", "III-5", "III-6"],
    }
    assert (scores.status != "judge_failed").all() and (scores.status != "dialogue_failed").all()


def test_the_oracle_and_the_null_agent_meet_the_bounds(project):
    paths, _ = project
    oracle, null = cells(paths, "oracle"), cells(paths, "null")
    present = set(oracle) & (RULE | PENALTY | JUDGED)
    assert len(present) >= 25, sorted(present)  # every environment has at least one instance with each cell
    for key in present & RULE:
        assert oracle[key] >= 0.95, key
        assert null[key] <= 0.05, key
    for key in present & PENALTY:
        assert oracle[key] <= 0.05 and null[key] == 1.0, key
    for key in present & JUDGED:
        assert oracle[key] > null[key], key


def test_the_report_marks_proxy_cells_and_puts_the_paper_beside_a_named_agent(project):
    paths, _ = project
    report = (paths["reports"] / "j1.md").read_text(encoding="utf-8")
    assert "judge `scripted/judge` (proxy judge)" in report and "oracle [scripted]" in report
    assert "↳ paper: GPT-4o | 508 | 69.7 | 62.7 |" in report and "†" in report
    csv = pd.read_csv(paths["reports"] / "j1.csv", keep_default_na=False)
    assert list(csv.columns) == LONG_COLUMNS
    assert csv[csv.source == "ours"].n_failed.astype(int).eq(0).all()  # the scripted run: no failed call
    mine = csv[(csv.source == "ours") & (csv.agent == "oracle") & (csv["table"] == "table3")]
    assert set(mine.scope) == {"KQ", "LC", "CD", "DD", "CI", "CR", "overall"}
    assert mine.proxy.astype(str).eq("True").all()
    theirs = csv[(csv.source == "paper") & (csv.agent == "oracle") & (csv.metric == "AVG_OO")]
    assert theirs.value.astype(float).tolist() == [62.2]


def test_a_rerun_on_a_warm_cache_writes_identical_scores_and_reports(project):
    paths, _ = project
    files = [paths["runs"] / a / "scores.parquet" for a in ("oracle", "null")]
    files += [paths["reports"] / "j1.md", paths["reports"] / "j1.csv"]
    before = {f: digest(f) for f in files}
    for agent in ("oracle", "null"):
        assert run_judge(paths, agent) == 0
    assert run_report(paths) == 0
    assert {f: digest(f) for f in files} == before
    cache = paths["params_file"].parent / "cache"
    usage = read_usage_log(cache, paths["runs"] / "oracle" / "judge_usage.parquet", last=True)
    assert len(usage) > 0 and usage.cache_hit.all()


def test_repeated_runs_report_their_interval_with_the_run_to_run_variance(project, tmp_path):
    """An agent's own `repeats: 2` (its repeat 1 here the null agent's run, copied: two runs far apart) and a
    j1.eval.repeats group of the two agents: each Table 3 cell's mean over the runs carries the combined interval
    (docs/statistics.md#repeated-runs), never narrower in SE than the runs' within-run part."""
    import math
    import shutil

    from steps.paths import Paths

    paths, _ = project
    here = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=paths["paths"].cache)
    shutil.copytree(paths["paths"].data, here.data, symlinks=True)
    shutil.copytree(here.run("j1", "null"), here.repeat_run("j1", "oracle", 1))
    doc = yaml.safe_load(paths["params_file"].read_text(encoding="utf-8"))
    doc["agents"]["oracle"]["repeats"] = 2
    doc["j1"]["eval"]["repeats"] = {"pair": ["oracle", "null"]}
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert run_stage("j1_report", j1_report, params_file=params, paths=here) == 0
    csv = pd.read_csv(here.reports / "j1.csv", keep_default_na=False, na_values=[""])
    mine = csv[csv.source == "ours"].set_index(["table", "agent", "scope", "metric"])
    for group in ("oracle", "pair"):  # the same two runs under both names
        mean = mine.loc[("repeats_mean", group, "CR", "III-3")]
        std = mine.loc[("repeats_std", group, "CR", "III-3")]
        one, other = mine.loc[("table3", "oracle", "CR", "III-3")], mine.loc[("table3", "null", "CR", "III-3")]
        assert mean.value == pytest.approx((one.value + other.value) / 2, abs=1e-6) and std.value > 50
        assert mean.ci_method.startswith("repeats(k=2)+cluster")
        within = math.sqrt((one.se**2 + other.se**2) / 2)
        assert mean.se == pytest.approx(math.sqrt(within**2 + std.value**2 / 2), abs=1e-5)
        assert mean.ci_low < mean.value < mean.ci_high and pd.isna(std.se)
    text = (here.reports / "j1.md").read_text(encoding="utf-8")
    assert "oracle = oracle, oracle/repeat-1" in text and "includes the run-to-run variance" in text
