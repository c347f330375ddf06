"""The real-model smoke profile: its params, the stage exit parsing, and the outcome table (no model needed)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from flows.smoke_real import AGENT, MAX_TOKENS, profile_sections, real_params, stage_exits
from steps.llm import ModelConfig
from steps.llm.local_server import LOCAL_KEY_ENV
from steps.reports.real_model import (
    LABEL,
    StageTable,
    judge_share_section,
    outcome_counts,
    outcome_section,
    read_stage_tables,
)
from tests.conftest import ROOT


def test_real_params_put_the_local_model_in_every_role_and_keep_every_other_setting():
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    real = real_params(params, "http://127.0.0.1:8089/v1", "smollm2-135m", Path("/tmp/cache"))
    assert list(real["agents"]) == [AGENT]
    for role, entry in (
        ("agent", real["agents"][AGENT]),
        ("environment", real["environment"]),
        ("judge", real["judge"]),
    ):
        config = ModelConfig(name=role, **entry)  # the door accepts it as is
        assert config.model == "openai/smollm2-135m" and config.api_key_env == LOCAL_KEY_ENV
        assert config.decoding.max_tokens == MAX_TOKENS[role] and config.decoding.temperature == 0
        assert config.structured_output == "auto"  # as the probe before the run recorded it
    assert real["j1"]["instances"]["sizes"] == dict.fromkeys(["KQ", "LC", "CD", "DD", "CI", "CR"], 1)
    assert real["j1"]["simulate"]["scenarios"] == params["j1"]["simulate"]["scenarios"], "merged, not replaced"
    assert real["mile"]["max_turns"] == profile_sections("small")["mile"]["max_turns"]
    assert real["mile"]["template"] == "eval"
    assert real["llm"]["cache_dir"] == "/tmp/cache" and real["llm"]["concurrency"] == 2
    assert params["agents"] != real["agents"], "the committed params are not modified"


def test_stage_exits_mark_the_stages_dvc_failed_with_keep_going():
    log = (
        "Running stage 'ingest':\n> python -m flows.run ingest\n"
        "Running stage 'j1_judge@smollm2_135m':\n> python -m flows.run j1_judge smollm2_135m\n"
        "ERROR: failed to reproduce 'j1_judge@smollm2_135m': failed to run: python -m flows.run j1_judge "
        "smollm2_135m, exited with 1\n"
        "Running stage 'mile_simulate@smollm2_135m':\n"
    )
    assert stage_exits(log) == {"ingest": 0, "j1_judge@smollm2_135m": 1, "mile_simulate@smollm2_135m": 0}


def test_outcomes_are_counted_per_stage_table_column_and_kind(tmp_path):
    runs = pd.DataFrame({"ended_by": ["max_turns", "max_turns", "marker", "empty_reply"]})
    usage = pd.DataFrame({"failure_kind": [None, None, "bad_request"], "purpose": ["agent"] * 3})
    judged = pd.DataFrame({"failure": ["unparsable", None, "no_verdict"], "value": [None, 0.5, None]})
    tables = [
        StageTable("runs/a", "dialogues", runs),
        StageTable("runs/a", "usage", usage),
        StageTable("ucl/a", "judgements", judged),
    ]
    counts = outcome_counts(tables)
    as_dict = {(r.stage, r.table, r.kind): r.n for r in counts.itertuples()}
    assert as_dict == {
        ("runs/a", "dialogues", "empty_reply"): 1,
        ("runs/a", "dialogues", "marker"): 1,
        ("runs/a", "dialogues", "max_turns"): 2,
        ("runs/a", "usage", "bad_request"): 1,
        ("runs/a", "usage", "ok (call succeeded)"): 2,
        ("ucl/a", "judgements", "no_verdict"): 1,
        ("ucl/a", "judgements", "ok"): 1,
        ("ucl/a", "judgements", "unparsable"): 1,
    }
    assert counts.n.sum() == 10, "every row of every table is counted once"
    section = outcome_section(counts, {"j1_judge@a": 1, "ingest": 0})
    assert LABEL in section and "never a measure of legal ability" in section
    assert "| j1_judge@a | 1 |" in section and "| ucl/a | judgements | failure | no_verdict | 1 |" in section


def test_read_stage_tables_skips_inputs_and_tables_without_outcomes(tmp_path):
    (tmp_path / "interim").mkdir()
    (tmp_path / "runs" / "a").mkdir(parents=True)
    pd.DataFrame({"status": ["x"]}).to_parquet(tmp_path / "interim" / "items.parquet")
    pd.DataFrame({"ended_by": ["marker"]}).to_parquet(tmp_path / "runs" / "a" / "dialogues.parquet")
    pd.DataFrame({"text": ["hi"]}).to_parquet(tmp_path / "runs" / "a" / "turns.parquet")
    assert [(t.stage, t.table) for t in read_stage_tables(tmp_path)] == [("runs/a", "dialogues")]


def test_an_interrupted_run_reports_what_finished_and_marks_the_stage_it_cut(tmp_path):
    from flows.smoke_real import write_report

    out = tmp_path / "smoke"
    runs = out / "jurisflow" / "data" / "ucl" / "smollm2_135m"
    runs.mkdir(parents=True)
    pd.DataFrame({"ended_by": ["max_turns", "call_failed"], "failure": [None, "server"]}).to_parquet(
        runs / "dialogues.parquet"
    )
    (out / "dvc.log").write_text(
        "\n---- dvc repro attempt\nRunning stage 'j1_extract':\nj1_extract: ok\n"
        "Running stage 'ucl_judge@smollm2_135m':\n",
        encoding="utf-8",
    )
    (out / "run.json").write_text('{"minutes": 30.5, "dvc_exit": null, "interrupted": true}', encoding="utf-8")
    report = tmp_path / "real_model.md"
    assert write_report(out, report) == 1, "an interrupted run is not a success"
    text = report.read_text(encoding="utf-8")
    assert "Wall time 30.5 min (interrupted, dvc exit None)" in text
    assert "| j1_extract | 0 |" in text and "| ucl_judge@smollm2_135m | -15 |" in text
    assert "| ucl/smollm2_135m | dialogues | ended_by | call_failed | 1 |" in text
    assert "| ucl/smollm2_135m | dialogues | failure | server | 1 |" in text


def test_the_slice_profile_runs_one_item_per_benchmark_with_lower_caps():
    from flows.kit.config import Params
    from flows.smoke_real import SLICE_MAX_TOKENS
    from steps.j1.envs.registry import instance_sizes
    from steps.j1.params import J1Params
    from steps.lawbench.params import LawBenchParams
    from steps.mile.params import MileParams
    from steps.plawbench.params import PlawBenchParams
    from steps.ucl.params import UclParams

    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    real = real_params(params, "http://127.0.0.1:8089/v1", "smollm2-135m", Path("/tmp/cache"), "slice")
    loaded = Params.model_validate(real)  # the stages accept it
    lawbench, j1 = loaded.section(LawBenchParams), loaded.section(J1Params)
    ucl, plawbench = loaded.section(UclParams), loaded.section(PlawBenchParams)
    assert lawbench.tasks == ["1-1"] and lawbench.limit == 1
    assert instance_sizes(j1.instances.sizes) == {"CR": 1} and j1.simulate.scenarios == ["CR"]
    assert ucl.tasks == ["Charge Prediction"] and ucl.limit == 1
    assert plawbench.scenarios == ["consultation"] and loaded.section(MileParams).sample == 1
    assert not plawbench.multiturn.enabled  # the small profile has it; the slice is one item per benchmark
    small = Params.model_validate(real_params(params, "http://127.0.0.1:8089/v1", "smollm2-135m", Path("/tmp/c")))
    assert small.section(PlawBenchParams).multiturn.enabled
    assert real["judge"]["decoding"]["max_tokens"] == SLICE_MAX_TOKENS["judge"]
    assert real["llm"]["max_failed_fraction"] == 1.0  # failures are counted in the report, not a stop
    # one call at a time (a call sharing its start with the previous one finds it cached in the server's busy slot)
    assert real["llm"]["concurrency"] == 1 and {real[role]["concurrency"] for role in ("environment", "judge")} == {1}
    assert real["agents"]["smollm2_135m"]["concurrency"] == 1


def test_a_copy_from_a_started_project_keeps_its_finished_stages_and_git(tmp_path):
    from flows.smoke_real import copy_project

    start = tmp_path / "base"
    (start / "data" / "interim").mkdir(parents=True)
    (start / "data" / "interim" / "done.parquet").write_bytes(b"finished stage output")
    (start / "dvc.lock").write_text("schema: '2.0'\n", encoding="utf-8")
    (start / "params.yaml").write_text("old: true\n", encoding="utf-8")
    (start / ".git").mkdir()
    (start / ".git" / "marker").write_text("the base's own repository", encoding="utf-8")

    dest = tmp_path / "copy"
    copy_project(dest, {"new": 1}, start)
    assert (dest / "data" / "interim" / "done.parquet").read_bytes() == b"finished stage output"
    assert (dest / "dvc.lock").is_file() and (dest / ".git" / "marker").is_file()  # not re-initialised
    assert yaml.safe_load((dest / "params.yaml").read_text(encoding="utf-8")) == {"new": 1}
    assert (start / "params.yaml").read_text(encoding="utf-8") == "old: true\n"  # the start is left as it was


def test_the_slices_mile_seed_samples_one_of_the_shortest_instances(mirror, manifest):
    """The slice's cost follows its prompt tokens, and MILE's judges quote the facts and the complaint."""
    from flows.smoke_real import profile_sections

    SLICE = profile_sections("slice")
    from steps.mile.instances import sample_rows
    from steps.sources import Fetched
    from steps.sources.tables import interim_tables

    mile = interim_tables()["mile"].load([Fetched(f, mirror / f.path) for f in manifest.for_dataset("mile")])
    length = mile.case_r_f.str.len() + mile.evidence.str.len() + mile.output.map(str).str.len()
    (sampled,) = sample_rows(mile, SLICE["mile"]["sample"], SLICE["mile"]["seed"]).instance_id
    assert length[mile.instance_id == sampled].item() <= length.quantile(0.05)


def test_the_copy_is_calibrated_by_models_check_before_the_run(tmp_path):
    """`calibrate_copy` runs `jurisflow models check` in the copy (the smoke profile's params, every role on one
    server, here the fake one answering the JSON judge probes with text and the verdict probes with a verdict): the
    copy's `.cache/calibration.json` then holds the server's record with a judge repair rate of 2/4, which the
    estimate there reads."""
    import os
    import sys

    from flows.calibrate import load
    from flows.smoke_real import calibrate_copy
    from steps.llm.local_server import LOCAL_KEY_PLACEHOLDER
    from tests.fake_openai_server import FakeOpenAIServer

    def reply(body: dict) -> str:
        return "回答一更好。\n[[1]]" if "[[1]]" in body["messages"][-1]["content"] else "收到"

    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    with FakeOpenAIServer(reply=reply) as server:
        real = real_params(params, server.url, "tiny", tmp_path / "llm-cache")
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(real, allow_unicode=True), encoding="utf-8")
        (tmp_path / ".cache").mkdir()
        (tmp_path / ".cache" / "calibration.json").write_text('{"stale @ -": {}}', encoding="utf-8")
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
        env = {**os.environ, LOCAL_KEY_ENV: LOCAL_KEY_PLACEHOLDER, "PATH": path, "PYTHONPATH": str(ROOT)}
        lines = calibrate_copy(tmp_path, env, tmp_path / "models_check.log", nice=0)
    records = load(tmp_path / ".cache" / "calibration.json")
    assert list(records) == [f"openai/tiny @ {server.url}"], (tmp_path / "models_check.log").read_text()
    assert records[f"openai/tiny @ {server.url}"].judge_repair_rate == 0.5
    assert len(lines) == 1 and lines[0].endswith("judge repair rate 0.50 (4 probes)")


def test_the_unparsable_share_of_judge_answers_per_benchmark(tmp_path):
    def write(bench: str, table: str, rows: list[tuple]) -> None:
        path = tmp_path / bench / "runs" / "a" / f"{table}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows, columns=["judge", "value", "failure"]).to_parquet(path)

    judge = "openai/m"
    write("mile", "scores", [(judge, 0.5, None)] * 4 + [(judge, None, "unparsable")] * 9 + [("rule", 0.0, None)] * 3)
    write("mile", "turns", [(judge, None, "unparsable")] * 5)  # not a judged table
    write(
        "ucl", "verdicts", [(judge, None, "unparsable")] * 6 + [("", None, "no_dialogue")] * 2
    )  # left out: asked no judge
    write("ucl", "hint_scores", [(judge, None, "out_of_range")] * 2)
    write("j1", "scores", [("rule", 0.0, None)] * 45)  # every value a rule's: no judge answer, no line
    section = judge_share_section(
        tmp_path, {"mile": ("scores",), "ucl": ("verdicts", "hint_scores"), "j1": ("scores",)}
    )
    assert "| mile | 13 | 9 | 69 |" in section and "| ucl | 8 | 6 | 75 |" in section
    assert "| j1 |" not in section
