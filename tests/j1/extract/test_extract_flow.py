"""The `j1_extract` stage and `jurisflow j1 extract-judgments` (`extract_file`, its flow) end to end: files in,
validated Parquet and the report out; `jurisflow j1 parser-accuracy`."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.commands import command_flow
from flows.kit.context import FlowContext
from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import j1_extract
from steps.benchmarks import benchmark
from steps.j1.commands import parser_accuracy, parser_accuracy_figures
from steps.j1.extract.records import CASE_COLUMNS
from steps.params import Params
from steps.sources import Fetched
from steps.sources.tables import interim_tables
from steps.tables import to_arrow, write_parquet_atomic
from tests.fake_openai_server import FakeOpenAIServer

from .texts import APPEAL, CIVIL_ROW, FIRST_INSTANCE

extract_file = command_flow("j1", next(c for c in benchmark("j1").commands if c.name == "extract-judgments"))


def params_file(tmp_path: Path, environment: dict | None = None, **extract_params) -> Path:
    doc = {
        "environment": environment or {"model": "scripted/persona"},
        "llm": {"cache_dir": str(tmp_path / "cache"), "backoff_base_s": 0.01, "backoff_max_s": 0.02, "max_attempts": 2},
        "j1": {"extract": extract_params},
    }
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def judge_file(tmp_path: Path) -> Path:
    lines = [
        {"text_id": "t-1", "text": "", "la": [264], "fd": FIRST_INSTANCE},
        {"text_id": "t-2", "text": "", "la": [133], "fd": APPEAL},
    ]
    path = tmp_path / "judge.json"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return path


def c3rd_case(case_id: str) -> dict:
    row = CIVIL_ROW
    return {
        "Case": row["title"],
        "CaseCause": [row["cause"]],
        "CaseId": case_id,
        "CaseProc": row["procedure"],
        "CaseRecord": row["record"],
        "CaseType": "民事案件",
        "Category": [],
        "JudgeAccusation": row["accusation"],
        "JudgeReason": row["reason"],
        "JudgeResult": row["result"],
        "Keywords": [],
        "LegalBasis": [],
        "Parties": [
            {"Name": p["name"], "NameText": p["name_text"], "LegalEntity": p["entity"], "Prop": p["role"]}
            for p in row["parties"]
        ],
    }


def c3rd_file(tmp_path: Path) -> Path:
    path = tmp_path / "0.json"
    doc = {"query_case": c3rd_case("q-1"), "ctxs": {"0": c3rd_case("c-2")}}
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def test_extract_file_judge_writes_the_cases_columns(tmp_path):
    out = tmp_path / "out" / "judge.parquet"
    code = run_stage(
        "extract file",
        extract_file,
        input=judge_file(tmp_path),
        fmt="judge",
        out=out,
        params_file=params_file(tmp_path),
    )
    assert code == 0
    cases = pd.read_parquet(out)
    assert list(cases.columns) == CASE_COLUMNS and list(cases["source_id"]) == ["t-1", "t-2"]
    first = cases.iloc[0]
    assert {k: first["statutes"][0][k] for k in ("law", "article")} == {"law": "中华人民共和国刑法", "article": 264}
    assert (list(first["charges"]), first["prison_months"], first["fine_yuan"]) == (["盗窃"], 18, 20000)
    assert cases.iloc[1]["probation_months"] == 3 and set(cases["llm_fields_source"]) == {"scripted"}


def test_extract_file_c3rd_and_a_limit(tmp_path):
    out = tmp_path / "civil.parquet"
    assert (
        run_stage(
            "extract file",
            extract_file,
            input=c3rd_file(tmp_path),
            fmt="c3rd",
            out=out,
            limit=1,
            params_file=params_file(tmp_path),
        )
        == 0
    )
    cases = pd.read_parquet(out)
    assert list(cases["source_id"]) == ["q-1"] and list(cases["claims"][0]) == [
        "判令被告支付货款4万元",
        "诉讼费由被告承担",
    ]


def test_a_failing_real_model_leaves_the_parser_fields_and_one_issue_per_field(tmp_path, capsys):
    with FakeOpenAIServer() as server:
        server.inject(*[("500",)] * 8)
        environment = {"model": "hosted_vllm/test-model", "api_base": server.url}
        out, usage = tmp_path / "judge.parquet", tmp_path / "usage.parquet"
        code = run_stage(
            "extract file",
            extract_file,
            input=judge_file(tmp_path),
            fmt="judge",
            out=out,
            params_file=params_file(tmp_path, environment),
            usage=usage,
        )
    assert code == 1  # every call failed: the outputs are written, the stage is not done
    assert "2 of 2 model calls failed after retries (server 2; 100.0%), every call failed" in capsys.readouterr().err
    cases = pd.read_parquet(out)
    assert list(cases["llm_status"]) == ["failed", "failed"] and cases["pleas"].isna().all()
    assert cases.iloc[0]["fine_yuan"] == 20000 and list(cases["llm_fields_source"]) == ["hosted_vllm/test-model"] * 2
    failed = [i for i in cases.iloc[0]["issues"] if i["kind"] == "call_failed"]
    assert len(failed) == 9 and all(i["detail"].startswith("server") for i in failed)
    assert list(pd.read_parquet(usage)["failure_kind"]) == ["server", "server"]


def test_a_malformed_file_ends_with_the_file_line_and_rule(tmp_path):
    path = judge_file(tmp_path)
    path.write_text(path.read_text(encoding="utf-8") + '{"text_id": "t-3", "fd": \n', encoding="utf-8")
    state = extract_file(
        input=path, fmt="judge", out=tmp_path / "x.parquet", params_file=params_file(tmp_path), return_state=True
    )
    err = state.result(raise_on_failure=False)
    assert state.is_failed() and "judge.json" in str(err) and "line 3" in str(err)
    assert not (tmp_path / "x.parquet").exists()


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("data") / "interim"
    for name in ("judgments_criminal", "judgments_civil"):
        table = interim_tables()[name]
        frame = table.load([Fetched(f, mirror / f.path) for f in manifest.for_dataset(name)])
        write_parquet_atomic(to_arrow(frame, dict(table.arrow_types)), folder / f"{name}.parquet")
    return folder


@pytest.mark.slow
def test_the_stage_on_the_mirror_writes_tables_and_report_and_reruns_identically(interim, tmp_path):
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    paths.data.mkdir()
    (paths.data / "interim").symlink_to(interim)
    out, report = paths.shared("j1"), paths.reports / "extraction.md"
    kwargs = dict(params_file=params_file(tmp_path, limit=6), paths=paths)
    assert run_stage("j1_extract", j1_extract, **kwargs) == 0
    first = {n: (out / f"{n}.parquet").read_bytes() for n in ("cases", "extraction_issues")}
    cases = pd.read_parquet(out / "cases.parquet")
    assert list(cases["kind"].value_counts().sort_index()) == [6, 6] and cases["run_id"].nunique() == 1
    usage = pd.read_parquet(out / "extract_usage.parquet")
    assert len(usage) == 12 and set(usage["purpose"]) == {"extraction"}
    text = report.read_text(encoding="utf-8")
    assert "## Coverage of every field" in text and "| raw | all | 808 |" in text and "scripted" in text
    long = pd.read_csv(report.with_suffix(".csv"))
    assert {"criminal_articles", "coverage", "issues", "verdict_fixture"} <= set(long["table"])
    assert long.loc[long["table"] == "coverage", "proxy"].any()
    assert run_stage("j1_extract", j1_extract, **kwargs) == 0
    assert first == {n: (out / f"{n}.parquet").read_bytes() for n in ("cases", "extraction_issues")}


def test_the_parser_accuracy_command_gives_the_three_figures(interim):
    ctx = FlowContext(Params(), Paths(data=interim.parent))
    figures = parser_accuracy_figures(ctx)
    assert figures["criminal_articles"]["all"]["n_docs"] == 400 and figures["civil_pairs"]["raw"]["all"]["f1"] > 0.9
    assert figures["verdict_fixture"]["all"]["n_defendants"] >= 100
    assert "Civil (law, article) pairs" in parser_accuracy(ctx)[0]


@pytest.mark.slow
def test_an_extraction_model_answering_prose_fails_the_stage_and_the_coverage_counts_it(interim, tmp_path, capsys):
    """Answers that never validate (prose, not JSON) count against llm.max_failed_fraction like failed calls; the
    report's coverage cells and the CSV twin say how many fields they cost."""
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    paths.data.mkdir()
    (paths.data / "interim").symlink_to(interim)
    with FakeOpenAIServer(reply=lambda body: "本案事实清楚，证据充分。") as server:
        environment = {"model": "hosted_vllm/test-model", "api_base": server.url}
        kwargs = dict(params_file=params_file(tmp_path, environment, limit=2), paths=paths)
        assert run_stage("j1_extract", j1_extract, **kwargs) == 1
        err = capsys.readouterr().err
        usage = pd.read_parquet(paths.shared("j1") / "extract_usage.parquet")
        assert usage.failure_kind.isna().all()  # every call answered, every answer unusable
        issues = pd.read_parquet(paths.shared("j1") / "extraction_issues.parquet")
        invalid = int((issues.kind == "invalid").sum())
        assert invalid > 0 and f"{invalid} of {invalid} judge answers unparsable after the repair rounds" in err
        assert f"rows of {paths.shared('j1') / 'extraction_issues.parquet'} with kind invalid" in err
        doc = yaml.safe_load(kwargs["params_file"].read_text(encoding="utf-8"))
        doc["llm"]["max_failed_fraction"] = 1.0
        kwargs["params_file"].write_text(yaml.safe_dump(doc), encoding="utf-8")
        assert run_stage("j1_extract", j1_extract, **kwargs) == 0
    text = (paths.reports / "extraction.md").read_text(encoding="utf-8")
    pleas = next(line for line in text.splitlines() if line.startswith("| pleas | llm |"))
    assert "0.0% (0/2), 2 unparsable" in pleas
    long = pd.read_csv(paths.reports / "extraction.csv")
    coverage = long[(long["table"] == "coverage") & (long.metric == "pleas")]
    assert coverage.n_unparsable.tolist() == [2]
