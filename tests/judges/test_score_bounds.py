"""Bounded scores, one rule (docs/models.md): where a prompt asks for a whole score (pointwise 0-10, graded 1-10 scales,
UCL-Bench's holistic 1-10) the wire schema asks for an integer within the bounds, which llama.cpp's grammar enforces;
where decimals mean something (a rubric item's points, a penalty's points) it asks for a bounded number, which
llama.cpp does not bound. Either way the parser never clamps: a value out of range is the failure `out_of_range`
with the field, the value and the bounds in its reason; a decimal in range is kept."""

from __future__ import annotations

import json

import pytest

from steps.judges.asking import classify
from steps.judges.graded import Scale, answer_schema
from steps.judges.pointwise import PointwiseAnswer
from steps.judges.result import JudgeFailure
from steps.judges.rubric import rubric_schema
from steps.llm.capabilities import wire_schema
from steps.ucl.hint_judge import hint_schema


def test_whole_scores_are_sent_as_bounded_integers():
    assert wire_schema(PointwiseAnswer)["properties"]["score"] == {"type": "integer", "minimum": 0, "maximum": 10}
    graded = wire_schema(answer_schema(Scale(("规范性", "专业性"))))
    for key in ("规范性", "专业性"):
        grade = graded["properties"][key]
        assert (grade["type"], grade["minimum"], grade["maximum"]) == ("integer", 1, 10)
    assert wire_schema(hint_schema(("P1",), ()))["properties"]["score"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
    }


def test_rubric_points_stay_decimal_and_bounded():
    line = wire_schema(rubric_schema((("A1", 2.0),), (), (), ()))["properties"]["items"]["prefixItems"][0]
    assert line["properties"]["awarded"] == {"type": "number", "minimum": 0, "maximum": 2.0}


@pytest.mark.parametrize(
    ("schema", "answer", "reason"),
    [
        (PointwiseAnswer, {"score": 10.5, "reason": "好"}, "score: Input should be less than or equal to 10"),
        (
            answer_schema(Scale(("分数",))),
            {"分数": 0.5, "解释": ""},
            "分数: Input should be greater than or equal to 1",
        ),
        (
            rubric_schema((("A1", 2.0),), (), (), ()),
            {"items": [{"id": "A1", "awarded": 2020.1}]},
            "A1: 2020.1 not in [0, 2]",
        ),
    ],
)
def test_out_of_range_is_rejected_with_its_reason_never_clamped(schema, answer, reason):
    kind, detail = classify(json.dumps(answer, ensure_ascii=False), schema)
    assert kind is JudgeFailure.OUT_OF_RANGE and reason in detail


def test_a_decimal_in_range_is_kept():
    assert PointwiseAnswer.model_validate({"score": 7.5, "reason": ""}).score == 7.5
    assert answer_schema(Scale(("分数",))).model_validate({"分数": 6.5}).g0 == 6.5
