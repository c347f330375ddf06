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


def test_a_reply_reciting_the_released_ucl_prompts_the_run_used_is_counted(tmp_path, mirror):
    """UCL-Bench's dialogues use the released per-task prompts (`ucl.prompts: released`, read from the pinned
    legal_prompt.json at run time, never copied here): a simulated user or assistant reciting them recites its
    instructions, as one reciting our templates does. Which prompts count is what the run's run.json records."""
    from steps.reports.real_model import run_windows
    from steps.ucl.prompts import OURS, RELEASED, prompt_record

    released = json.loads((mirror / "ucl" / "legal_prompt.json").read_text(encoding="utf-8"))["Accusation Prediction"]
    items = pd.DataFrame(
        {
            "task": ["Accusation Prediction"],
            "role_template": [released["role prompt"]],
            "model_template": [released["model prompt"]],
            "evaluation_template": [released["evaluation prompt"]],
        }
    )
    data = tmp_path / "data"
    (data / "interim").mkdir(parents=True)
    items.to_parquet(data / "interim" / "ucl.parquet")
    for agent, source in (("released", RELEASED), ("ours", OURS)):
        run = data / "ucl" / "runs" / agent
        run.mkdir(parents=True)
        spec = {"prompts": prompt_record(source, items, ("assistant", "user"))}
        (run / "run.json").write_text(json.dumps(spec), encoding="utf-8")
    # lines of the released role prompt and model prompt, said back; and a user's own words
    user_line = next(line for line in released["role prompt"].splitlines() if line.startswith("你的任务是"))
    model_line = next(line for line in released["model prompt"].splitlines() if line.startswith("你是一名法律专家"))
    turns = pd.DataFrame(
        {
            "instance_id": ["a", "a", "b"],
            "turn_index": [0, 1, 0],
            "kind": ["utterance"] * 3,
            "speaker": ["user", "assistant", "user"],
            "text": [user_line, model_line, "我想咨询一下我朋友的案子，他到底犯了什么罪，会怎么判呢"],
        }
    )
    base = instruction_windows(ROOT)
    assert not recites(user_line, base) and not recites(model_line, base)  # in no template of ours
    windows = run_windows(data, base)

    def kinds(stage: str) -> dict[str, int]:
        counts = echo_counts([StageTable(stage, "turns", turns)], windows)
        return dict(zip(counts.kind, counts.n, strict=True))

    assert kinds("ucl/runs/released") == {"own words": 1, "recited_instructions": 2}
    # prompts: ours: the user read our template (its released role prompt is no instruction of this run); the
    # assistant still read the released model prompt
    assert kinds("ucl/runs/ours") == {"own words": 2, "recited_instructions": 1}
    assert kinds("mile/runs/x") == {"own words": 3}  # another benchmark's run: our templates only
    assert windows("ucl/runs/missing") == base  # a folder without run.json: our templates only
