"""One builder for every benchmark's run tables: the turns and dialogues of engine dialogues, their key, their
declared per-turn extras and per-dialogue extensions, and the failure that ended a dialogue."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from steps.mile.frames import paper_turns
from steps.schemas import Dialogues, TableError, Turns, validate
from steps.simulate import Dialogue, EndReason, TurnKind
from steps.simulate.records import RunLabel, run_tables
from tests.simulate.test_engine import COURT, run
from tests.simulate.toys import Script, court, interview

RUN = RunLabel("run1", "oracle", "j1")
TRIAL = [
    "现在开庭。",
    "对被告人说：请陈述。",
    "本院认为，被告人甲犯盗窃罪。判决如下：有期徒刑六个月。<结束庭审>",
]


def trial(**fail) -> Dialogue:
    script = Script({"judge": list(TRIAL), "defendant": ["我认罪。"]}, fail_at=set(fail.get("at", ())))
    return run(court(), COURT, script)


def scenario_of(code: str):
    return {"TOYCOURT": court(), "TOYCD": interview()}[code]


def test_turns_and_dialogues_carry_the_run_the_benchmark_and_the_engine_scenario():
    d = trial()
    turns, dialogues = run_tables([d], scenario_of, RUN)
    validate(turns, Turns, table="turns"), validate(dialogues, Dialogues, table="dialogues")
    assert set(turns.benchmark) == {"j1"} and set(turns.scenario) == {"TOYCOURT"} and set(turns.run_id) == {"run1"}
    assert turns.speaker_label.tolist() == ["审判长", "审判长", "被告人", "审判长"]
    assert turns.stage.isna().all() and turns.paper_turn.isna().all()  # no benchmark filled them
    [row] = dialogues.to_dict("records")
    assert (row["ended_by"], row["exchanges"], row["utterances"], row["failure"]) == ("marker", 3, 4, None)
    assert row["deliverable_kind"] == "judgment" and row["deliverable"].startswith("本院认为")
    assert json.loads(turns.data.iloc[0]) == {}


def test_a_benchmark_fills_its_declared_turn_columns_and_extends_its_dialogue_row():
    d = trial()
    stages = {"stage": ["开庭", "法庭调查", "法庭调查", "宣判"]}
    turns, dialogues = run_tables(
        [d],
        scenario_of,
        RUN,
        annotate=lambda scenario, ts: stages | paper_turns(scenario, ts),
        extend=lambda dialogue: {"deliverable": "overridden", "speakers": len({t.speaker for t in dialogue.turns})},
        extra_columns=["speakers"],
    )
    assert turns.stage.tolist() == stages["stage"] and turns.paper_turn.tolist() == [0, 1, 1, 2]
    assert list(dialogues.columns[-1:]) == ["speakers"] and dialogues.speakers.item() == 2
    assert dialogues.deliverable.item() == "overridden"


def test_an_annotation_must_be_a_declared_column_with_one_value_per_turn():
    d = trial()
    with pytest.raises(ValueError, match="one value per turn"):
        run_tables([d], scenario_of, RUN, annotate=lambda s, ts: {"court": ["x"] * len(ts)})
    with pytest.raises(ValueError, match="one value per turn"):
        run_tables([d], scenario_of, RUN, annotate=lambda s, ts: {"stage": ["x"]})


def test_the_failed_call_that_ended_a_dialogue_names_its_role():
    d = trial(at=[("defendant", 0)])
    turns, dialogues = run_tables([d], scenario_of, RUN)
    assert d.ended_by is EndReason.CALL_FAILED
    assert dialogues.failure.item() == "defendant: server: injected" and dialogues.utterances.item() == 2
    failed = turns[turns.failure.notna()]
    assert failed.speaker.tolist() == ["defendant"] and failed.text.tolist() == [""]
    validate(dialogues, Dialogues, table="dialogues")
    with pytest.raises(TableError, match="failure exactly when"):
        validate(dialogues.assign(failure=None), Dialogues, table="dialogues")


def test_a_dialogue_without_an_end_reason_is_an_error():
    with pytest.raises(ValueError, match="no end reason"):
        run_tables([Dialogue("c/1", "TOYCOURT")], scenario_of, RUN)


def test_empty_runs_have_every_column_and_keys_are_unique_per_run():
    turns, dialogues = run_tables([], scenario_of, RUN, extra_columns=["speakers"])
    assert len(turns) == 0 and list(turns.columns) == list(Turns.to_schema().columns)
    assert list(dialogues.columns) == [*Dialogues.to_schema().columns, "speakers"]
    d = trial()
    twice, _ = run_tables([d], scenario_of, RUN)
    both = pd.concat([twice, twice.assign(run_id="run2")], ignore_index=True)
    validate(both, Turns, table="turns")  # the same dialogue in two runs
    with pytest.raises(TableError, match="must be unique"):
        validate(pd.concat([twice, twice], ignore_index=True), Turns, table="turns")


def test_mile_turn_numbers_count_the_complaint_as_its_own_turn():
    turns = [t for t in trial().turns]
    numbers = paper_turns(court(), turns)["paper_turn"]
    assert numbers == [t.exchange - 1 for t in turns]
    forced = [*turns[:1], type(turns[0])(**{**turns[0].__dict__, "kind": TurnKind.DELIVERABLE, "exchange": 3})]
    assert paper_turns(court(), forced)["paper_turn"] == [0, 3]
