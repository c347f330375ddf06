"""Repeated runs: the estimator over runs (hand-computed), the report rows' mean and between-run SD, each repeat's
model and call key, and the scripted sampling agent (docs/statistics.md#repeated-runs)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from steps.llm.cache import call_key
from steps.llm.sampler import DECODING
from steps.llm.scripted import ScriptedRequest, answer, register_policy
from steps.params import Params
from steps.paths import Paths
from steps.reports.repeats import SD_TABLE, mean_over_repeats, repeated_cells, repeats_markdown
from steps.stats.intervals import Interval, cluster_mean
from steps.stats.repeats import repeated_interval


def test_three_runs_by_hand() -> None:
    runs = [Interval(v, 5.0, v - 9.8, v + 9.8, "cluster-se(t, G=20)", 40, 20) for v in (60.0, 70.0, 80.0)]
    rep = repeated_interval(runs)
    # mean 70, SD 10; SE² = 25 (mean within) + 100/3 (SD²/k) = 58.33; ν = SE⁴ / (25²/19 + (100/3)²/2) = 5.7826
    assert rep.interval.estimate == 70.0 and rep.sd == pytest.approx(10.0) and rep.runs == 3
    assert rep.interval.se == pytest.approx(7.637626158)
    assert rep.interval.low == pytest.approx(70 - 2.469384206 * 7.637626158, abs=1e-6)
    assert rep.interval.half_width is not None and rep.interval.half_width > 9.8  # wider than any one run's
    assert rep.interval.method == "repeats(k=3)+cluster-se(t, G=20)"


def test_runs_that_agree_give_the_within_run_interval() -> None:
    runs = [cluster_mean([1.0, 0.0, 1.0, 1.0], ["a", "b", "c", "d"])] * 3
    rep = repeated_interval(runs)
    assert rep.sd == 0.0 and rep.interval.se == pytest.approx(runs[0].se)
    assert (rep.interval.low, rep.interval.high) == pytest.approx((runs[0].low, runs[0].high))  # ν = G − 1
    with pytest.raises(ValueError, match="at least two runs"):
        repeated_interval(runs[:1])
    no_se = Interval(1.0, None, None, None, "cluster-se(t, G=1)", 1, 1)
    assert repeated_interval([no_se, no_se]).interval.se is None


def _long(values: dict[str, float], failed: int) -> pd.DataFrame:
    rows = [
        {"benchmark": "b", "table": "t", "agent": a, "scope": "overall", "metric": "m", "value": v, "n": 10,
         "n_failed": failed, "judge": "rule", "proxy": False, "source": "ours"}
        for a, v in values.items()
    ]  # fmt: skip
    rows.append(
        {"benchmark": "b", "table": "t", "agent": "GPT-4o", "scope": "overall", "metric": "m", "value": 55.0,
         "n": None, "n_failed": None, "judge": "rule", "proxy": False, "source": "paper"}
    )  # fmt: skip
    return pd.DataFrame(rows)


def test_the_report_rows_of_repeated_runs() -> None:
    repeats = {"s": 3, "o": 1}
    longs = [_long({"s": v, "o": 90.0}, f) for v, f in ((60.0, 1), (70.0, 0), (80.0, 2))]
    out = mean_over_repeats(longs, repeats)
    ours = out.set_index(["table", "agent", "scope"])
    assert ours.loc[("t", "s", "overall"), "value"] == 70.0 and ours.loc[("t", "s", "overall"), "n_failed"] == 3
    assert ours.loc[("t", "o", "overall"), "value"] == 90.0  # an agent without repeats: its one run
    sd = ours.loc[(SD_TABLE, "s", "t/overall")]
    assert sd.value == pytest.approx(10.0) and sd.n == 3 and pd.isna(sd.n_failed)
    assert len(out) == 4 and (SD_TABLE, "o", "t/overall") not in ours.index
    assert mean_over_repeats(longs[:1], {"s": 1, "o": 1}) is longs[0]  # no repeats: the rows as they were
    text = repeats_markdown(out.assign(ci_low=np.nan, ci_high=np.nan), repeats, [("t", "overall", "m")])
    assert "| s | 3 | t | overall | m | 70.0 ± 10.0 | — |" in text and "| o |" not in text
    assert repeats_markdown(out, {"o": 1}, [("t", "overall", "m")]) == ""


def test_the_cells_of_repeated_runs() -> None:
    def cells(value: float, agent: str = "s") -> pd.DataFrame:
        return pd.DataFrame(
            [{"agent": agent, "table": "t", "scope": "overall", "metric": "m", "estimate": value, "n": 40,
              "clusters": 20, "se": 5.0, "ci_low": value - 9.8, "ci_high": value + 9.8,
              "ci_method": "cluster-se(t, G=20)"}]
        )  # fmt: skip

    per_pass = [pd.concat([cells(v), cells(90.0, "o")]) for v in (60.0, 70.0, 80.0)]
    out = repeated_cells(per_pass, {"s": 3, "o": 1}).set_index("agent")
    assert out.loc["s", "estimate"] == 70.0 and out.loc["s", "se"] == pytest.approx(7.637626158)
    assert out.loc["s", "sd_runs"] == pytest.approx(10.0) and out.loc["o", "se"] == 5.0


def test_each_repeat_its_own_model_folder_and_calls() -> None:
    params = Params.model_validate(
        {"agents": {"s": {"model": "scripted/sampler", "decoding": {"temperature": 0.7}, "repeats": 3}}}
    )
    plain = Params.model_validate({"agents": {"s": {"model": "scripted/sampler", "decoding": {"temperature": 0.7}}}})
    assert params.repeats("s") == 3 and plain.repeats("s") == 1
    models = [params.for_repeat("s", i).agent("s") for i in range(3)]
    assert models[0] == plain.agent("s")  # repeat 0 is the run without repeats
    assert [m.decoding.seed for m in models] == [None, 1, 2] and [m.repeat for m in models] == [0, 1, 2]
    messages = [{"role": "user", "content": "问"}]
    keys = [call_key(m, messages) for m in models]
    assert len(set(keys)) == 3 and keys[0] == call_key(plain.agent("s"), messages)
    seeded = models[1].model_copy(update={"repeat": 0})  # the index itself enters the key, not only the seed
    assert call_key(seeded, messages) != keys[1]
    paths = Paths()
    assert paths.for_repeat("s", 0) is paths
    assert paths.for_repeat("s", 2).run("ucl", "s") == paths.run("ucl", "s") / "repeat-2"
    assert paths.for_repeat("s", 2).run("ucl", "other") == paths.run("ucl", "other")
    assert paths.repeat_run("lawbench", "s", 1, "zero_shot") == paths.run("lawbench", "s") / "repeat-1" / "zero_shot"


def test_a_repeats_count_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match=r"agents\.s\.repeats"):
        Params.model_validate({"agents": {"s": {"model": "scripted/oracle", "repeats": 0}}})


def test_the_sampler_samples_with_its_seed_only_when_it_samples() -> None:
    register_policy("oracle", "repeats-test", lambda request: "正确答案")

    def answers(temperature: float, seed: int | None) -> list[str]:
        return [
            answer(
                ScriptedRequest(
                    "sampler",
                    [{"role": "user", "content": f"问题 {i}"}],
                    {
                        "scenario": "repeats-test",
                        "instance_id": f"i{i}",
                        DECODING: {"temperature": temperature, "seed": seed},
                    },
                )
            )
            for i in range(40)
        ]

    greedy = answers(0.0, None)
    assert greedy == answers(0.0, 7)  # temperature 0: the seed changes nothing
    assert set(greedy) == {"正确答案", ""}
    sampled = [answers(0.7, s) for s in (None, 1, 2)]
    assert sampled[0] == answers(0.7, None)  # deterministic
    assert sampled[0] != sampled[1] != sampled[2] != sampled[0]
    share = np.mean([a == "正确答案" for run in sampled for a in run])
    assert math.isclose(share, 0.5, abs_tol=0.15)


def test_a_later_repeat_missing_on_disk_is_named_and_the_report_says_what_it_read(tmp_path) -> None:
    from steps.reports.repeats import read_from_disk, repeat_file

    there, gone = tmp_path / "scores.parquet", tmp_path / "repeat-1" / "scores.parquet"
    there.write_bytes(b"")
    assert repeat_file(Path.exists, there, 0) == there and repeat_file(Path.exists, there, 2) == there
    assert repeat_file(Path.exists, gone, 0) == gone  # repeat 0 is a DVC output: its reader says it is missing
    with pytest.raises(FileNotFoundError, match=r"repeat 1 of this run is not on disk.*not DVC outputs"):
        repeat_file(Path.exists, gone, 1)
    line = read_from_disk("mile", {"a": 3, "b": 2, "c": 1})
    assert line.startswith(
        "Runs read from disk: `data/mile/runs/a/` and `repeat-1/` … `repeat-2/` in it; `data/mile/runs/b/` and "
        "`repeat-1/`. The repeat-<i> folders are not DVC outputs"
    )


def test_repeats_that_cannot_vary_are_warned_about_not_refused(tmp_path) -> None:
    import json

    from flows.kit.context import FlowContext
    from steps.protocol import protocol_lines
    from steps.runs import run_id

    params = Params.model_validate(
        {
            "agents": {
                "greedy": {"model": "hosted_vllm/qwen", "api_base": "http://127.0.0.1:8000/v1", "repeats": 3},
                "sampling": {"model": "hosted_vllm/qwen", "decoding": {"temperature": 0.7}, "repeats": 3},
                "sampler": {"model": "scripted/sampler", "decoding": {"temperature": 0.7}, "repeats": 2},
                "oracle": {"model": "scripted/oracle", "decoding": {"temperature": 0.7}, "repeats": 2},
                "once": {"model": "hosted_vllm/qwen"},
            }
        }
    )
    assert params.repeats_warning("greedy") == (
        "agents.greedy.repeats: 3 with temperature 0: the repeats are the same calls apart from the seed, so a "
        "deterministic endpoint answers them alike and the between-run SD is 0 (set decoding.temperature > 0 to "
        "sample)"
    )
    assert params.repeats_warning("oracle").startswith("agents.oracle.repeats: 2 with scripted/oracle answers alike")
    assert [params.repeats_warning(n) for n in ("sampling", "sampler", "once")] == [None, None, None]
    warned = [line for line in protocol_lines(params) if line.startswith("warning: ")]  # params check prints them
    assert [w.split(":")[1].strip() for w in warned] == ["agents.greedy.repeats", "agents.oracle.repeats"]
    # the run record: beside the spec, not part of the run id (repeat 0 keeps the id of a run without repeats)
    spec = {"benchmark": "lawbench", "agent": "greedy"}
    rid = FlowContext(params.for_repeat("greedy", 1), Paths(data=tmp_path), "greedy").write_run_json(tmp_path, spec)
    record = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert rid == run_id(spec) == record["run_id"] and record["warnings"] == [params.repeats_warning("greedy")]
    FlowContext(params, Paths(data=tmp_path), "sampling").write_run_json(tmp_path, spec)
    assert "warnings" not in json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
