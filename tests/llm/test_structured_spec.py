"""A judge run's record of its structured output (run.json): the setting, the mode the door uses, the check."""

from __future__ import annotations

import pytest

from steps.llm import ModelConfig
from steps.llm.capabilities import StructuredCheck, save_record, structured_spec
from steps.runs import run_id

BASE = "http://127.0.0.1:8099/v1"


def _judge(setting: str) -> ModelConfig:
    return ModelConfig(name="judge", model="openai/smollm2-135m", api_base=BASE, structured_output=setting)


def _record(tmp_path, works: bool) -> None:
    model = _judge("auto")
    save_record(
        tmp_path,
        [StructuredCheck(model.model, model.endpoint(), works, "valid under the schema" if works else "free text")],
    )


@pytest.mark.parametrize(
    ("setting", "works", "effective", "checked"),
    [
        ("auto", True, "json_schema", "valid under the schema"),
        ("auto", False, "off", "free text"),
        ("auto", None, "off", "not checked"),
        ("json_schema", False, "json_schema", None),
        ("off", True, "off", None),
    ],
)
def test_the_effective_mode_follows_the_setting_and_the_record(tmp_path, setting, works, effective, checked):
    if works is not None:
        _record(tmp_path, works)
    assert structured_spec(_judge(setting), tmp_path) == {
        "structured_output": {"setting": setting, "effective": effective, "checked": checked}
    }


def test_a_flip_of_auto_changes_the_judge_run_id(tmp_path):
    spec = {"judge": "openai/smollm2-135m"}
    _record(tmp_path, True)
    before = run_id({**spec, **structured_spec(_judge("auto"), tmp_path)})
    _record(tmp_path, False)  # a later `models check` finds the grammar ignored
    assert run_id({**spec, **structured_spec(_judge("auto"), tmp_path)}) != before


def test_a_scripted_judge_records_nothing(tmp_path):
    assert structured_spec(ModelConfig(name="judge", model="scripted/judge"), tmp_path) == {}
