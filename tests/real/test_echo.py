"""Echoed prompts, detected on outputs the real tiny model wrote (tests/real/fixtures/smollm2_outputs.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from steps.reports.real_model import StageTable, echo_counts, echo_flags, echoes, instruction_windows, recites
from tests.conftest import ROOT

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "smollm2_outputs.json").read_text(encoding="utf-8"))


def test_a_lawbench_answer_that_repeats_the_question_is_an_echo_and_a_fresh_one_is_not():
    echoed, fresh = FIXTURES["lawbench"]  # task 1-1 repeats its question; 3-2 babbles in its own words
    assert echoes(echoed["prediction"], echoed["prompt"])
    assert not echoes(fresh["prediction"], fresh["prompt"])
    frame = pd.DataFrame(FIXTURES["lawbench"])
    counts = echo_counts([StageTable("lawbench/smollm2_135m/zero_shot", "predictions", frame)])
    assert dict(zip(counts.kind, counts.n, strict=True)) == {"echoed_prompt": 1, "own words": 1}


def test_short_first_lines_are_never_called_echoes():
    assert not echoes("好的\n……", "好的，请说明你的问题")  # a short reply that happens to occur in the prompt


def test_a_dialogue_turn_that_copies_the_other_speakers_last_utterance_is_an_echo():
    turns = pd.DataFrame(
        {
            "instance_id": ["a", "a", "a", "b"],
            "turn_index": [0, 1, 2, 0],
            "kind": ["utterance"] * 4,
            "speaker": ["client", "lawyer", "client", "client"],
            "text": [
                "我在公司工作了三年，老板一直没有签劳动合同。",
                "我在公司工作了三年，老板一直没有签劳动合同。\n你可以申请仲裁。",
                "我在公司工作了三年，老板一直没有签劳动合同。",  # also in the lawyer's last turn: an echo
                "我在公司工作了三年，老板一直没有签劳动合同。",  # another dialogue
            ],
        }
    )
    assert echo_flags(turns).tolist() == [False, True, True, False]


def test_simulated_users_that_recite_their_brief_are_told_apart_from_ones_that_babble():
    """The real UCL users' first turns: two copy rule 1 of steps/ucl/templates/user.j2, one repeats a phrase."""
    recited_exactly, recited_loosely, babble = (t["text"] for t in FIXTURES["ucl_user_first_turns"])
    windows = instruction_windows(ROOT)
    assert recites(recited_exactly, windows) and recites(recited_loosely, windows)
    assert not recites(babble, windows)
    turns = pd.DataFrame(
        {
            "instance_id": ["a", "b", "c"],
            "turn_index": [0, 0, 0],
            "kind": ["utterance"] * 3,
            "speaker": ["user"] * 3,
            "text": [recited_exactly, recited_loosely, babble],
        }
    )
    counts = echo_counts([StageTable("ucl/smollm2_135m", "turns", turns)], windows)
    assert dict(zip(counts.kind, counts.n, strict=True)) == {"own words": 1, "recited_instructions": 2}


def test_template_placeholders_and_tags_are_not_instructions(tmp_path):
    template = tmp_path / "steps" / "x" / "templates" / "role.j2"
    template.parent.mkdir(parents=True)
    template.write_text(
        "{% if a %}{{ information_that_is_long_enough }}{% endif %}\n请遵守以下规则并且只回答与案件有关的问题。\n"
    )
    windows = instruction_windows(tmp_path)
    assert recites("好的。请遵守以下规则并且只回答与案件有关的问题", windows)
    assert not recites("information_that_is_long_enough", windows)
