"""PLawBench's compact rubric verdict (`plawbench.judge_verdict: flags`): a met flag per award item and no free
text, scored full points or 0 in code; the smoke profile's judge answers it within a larger cap."""

from __future__ import annotations

import json

import pytest
import yaml

from flows.smoke_real import real_params
from steps.judges import JudgeFailure
from steps.judges.rubric import judge_rubric, rubric_prompt, rubric_version
from steps.llm.capabilities import response_format
from steps.params import Params
from steps.plawbench.drafting_rubric import parse_drafting
from steps.plawbench.items import rows_frame
from steps.plawbench.judging import build_rubric
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.smoke import JUDGE_MAX_TOKENS
from tests.conftest import ROOT
from tests.judges.conftest import http_judge, run
from tests.plawbench.test_judge_robustness import RUBRIC, TASK


@pytest.fixture
def flags():
    parsed = parse_drafting(TASK.item_id, RUBRIC, TASK.max_points)
    return build_rubric(TASK, rows_frame(parsed.rows), PlawBenchParams(judge_verdict="flags"))


def flag_answer(met: dict[str, bool], triggered: bool = False, times: tuple[int, int] = (0, 0)) -> str:
    return json.dumps(
        {
            "items": [{"id": k, "met": v} for k, v in met.items()],
            "fails": [{"id": "1.1-f1", "triggered": triggered}],
            "penalties": [{"id": "U1", "times": times[0]}, {"id": "U2", "times": times[1]}],
        }
    )


def test_the_wire_schema_has_flags_and_no_free_text(flags):
    schema = response_format(json.loads(json.dumps(_wire(flags))))["json_schema"]["schema"]
    line = schema["properties"]["items"]["prefixItems"][0]
    assert line == {
        "type": "object",
        "properties": {"id": {"const": "1.1"}, "met": {"type": "boolean"}},
        "required": ["id", "met"],
    }
    assert "justification" not in json.dumps(schema) and "error" not in json.dumps(schema)
    times = [p["properties"]["times"] for p in schema["properties"]["penalties"]["prefixItems"]]
    assert times == [{"type": "integer", "minimum": 0, "maximum": m} for m in (100, 1)]  # U1 unbounded, U2 once


def _wire(rubric):
    from steps.judges.rubric import _schema_for

    return _schema_for(rubric).wire_schema()


def test_met_flags_are_scored_full_or_nothing_in_code(answers, door, flags):
    # 1.1 (10) met, 1.2 (10) not, P2 (10) met: 20 of 30
    server, script = answers(flag_answer({"1.1": True, "1.2": False, "P2": True}))
    result = run(judge_rubric(door, http_judge(server), response="民事起诉状……", rubric=flags, repairs=0))
    assert result.value == pytest.approx(20 / 30)
    assert [i["awarded"] for i in result.evidence["items"]] == [10.0, 0.0, 10.0]
    prompt = script.bodies[0]["messages"][0]["content"]
    assert '"met": <true 或 false>' in prompt and "justification" not in prompt and "（满分 10 分）" not in prompt
    # fails and penalties apply as in the points verdict: 1.1 zeroed and 5 more off, one statute error 10 off
    server, _ = answers(flag_answer({"1.1": True, "1.2": True, "P2": True}, True, (1, 0)))
    result = run(judge_rubric(door, http_judge(server), response="民事起诉状……", rubric=flags, repairs=0))
    assert result.value == pytest.approx(5 / 30)


def test_a_missing_id_or_a_count_over_its_bound_fails_the_flags_verdict(answers, door, flags):
    server, _ = answers(flag_answer({"1.1": True, "1.2": True}))
    failed = run(judge_rubric(door, http_judge(server), response="答", rubric=flags, repairs=0))
    assert failed.failure is JudgeFailure.UNPARSABLE and "P2" in failed.error
    server, _ = answers(flag_answer({"1.1": True, "1.2": True, "P2": True}, times=(0, 2)))
    failed = run(judge_rubric(door, http_judge(server), response="答", rubric=flags, repairs=0))
    assert failed.failure is JudgeFailure.OUT_OF_RANGE and "U2: 2 times, at most 1" in failed.error


def test_the_flags_verdict_has_its_own_prompt_version_and_the_default_keeps_its_own(flags):
    parsed = parse_drafting(TASK.item_id, RUBRIC, TASK.max_points)
    points = build_rubric(TASK, rows_frame(parsed.rows), PlawBenchParams())
    assert rubric_version(points) != rubric_version(flags)
    assert '"awarded": <得分>' in rubric_prompt("答", points) and '"met"' not in rubric_prompt("答", points)


def test_the_smoke_profile_judges_plawbench_with_flags_and_a_larger_cap(tmp_path):
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    small = real_params(params, "http://127.0.0.1:8099/v1", "m", tmp_path)
    loaded = Params.model_validate(small)
    assert loaded.section(PlawBenchParams).judge_verdict == "flags"
    assert loaded.judge_model("plawbench").decoding.max_tokens == JUDGE_MAX_TOKENS == 512
    assert loaded.judge_model("ucl").decoding.max_tokens == 96  # the other judges keep the profile's cap
    probes = loaded.section(PlawBenchParams).judge_probes
    assert (probes.sample, probes.repeats, probes.shuffle) == (1, 2, True)
    slice_ = Params.model_validate(real_params(params, "http://127.0.0.1:8099/v1", "m", tmp_path, "slice"))
    assert slice_.section(PlawBenchParams).judge_probes.sample == 0  # the CI slice makes no extra judge call
