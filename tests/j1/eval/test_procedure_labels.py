"""III-1 pass 1: the stage labels of a window validate only when they label exactly the window's turns."""

import pytest
from pydantic import ValidationError

from steps.j1.eval.procedure import labels_schema

STAGES = ("opening", "investigation", "debate")


def _labels(*turns: str | int) -> dict:
    return {"result": [{"turn": t, "court_stage": "debate"} for t in turns]}


def test_labels_of_every_turn_validate_whatever_the_turns_are_written_as():
    answer = labels_schema(STAGES, (3, 4)).model_validate(_labels("第3轮", 4))
    assert [x.turn for x in answer.result] == ["第3轮", 4]


def test_a_missing_turn_is_incomplete():
    with pytest.raises(ValidationError, match="label each turn exactly once"):
        labels_schema(STAGES, (3, 4)).model_validate(_labels(3))


def test_a_label_without_a_turn_number_is_incomplete_not_ignored():
    # it labelled no turn of the window, yet was counted: its stage reached the evidence under the key None
    with pytest.raises(ValidationError, match="label each turn exactly once"):
        labels_schema(STAGES, (3, 4)).model_validate(_labels(3, 4, "the last one"))
