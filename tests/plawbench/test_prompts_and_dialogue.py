"""Agent prompts, the first-N-questions rule, sampling, and the multi-turn consultation variant (ours)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pandas as pd
import pytest

import steps.plawbench.scripted  # registers the oracle lawyer and the client
from steps.llm import ScriptedRequest
from steps.plawbench import dialogue
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.predict import select_tasks
from steps.plawbench.prompts import agent_messages, judge_rules
from steps.plawbench.questions import first_questions
from steps.simulate import EndReason
from steps.simulate.engine import run_dialogue

NARRATIVE = "我叫李芳，2016年和张元结婚。2020年10月8日他打了我，我报了警。我们有一个儿子。"
CONSULT = SimpleNamespace(item_id="plc/x", category="consultation", query=NARRATIVE, context="", document="")


def test_consultation_prompt_one_user_message_or_a_system_message():
    single = agent_messages(CONSULT, PlawBenchParams())
    assert len(single) == 1 and single[0]["role"] == "user"
    assert "10 到 25 个问题" in single[0]["content"] and single[0]["content"].endswith(NARRATIVE)
    split = agent_messages(CONSULT, PlawBenchParams(split_system=True, min_questions=25, max_questions=50))
    assert [m["role"] for m in split] == ["system", "user"] and "25 到 50 个问题" in split[0]["content"]
    assert NARRATIVE in split[1]["content"] and NARRATIVE not in split[0]["content"]
    assert any("前 25 个问题" in rule for rule in judge_rules(CONSULT, PlawBenchParams()))


def test_only_the_first_n_questions_are_judged():
    answer = "\n".join(f"{i}. 问题{i}？" for i in range(1, 31))
    qs = first_questions(answer, 25)
    assert (len(qs.kept), qs.total, qs.truncated) == (25, 30, True)
    assert qs.text().splitlines()[-1] == "25. 问题25？"
    unnumbered = first_questions("您报警了吗？有没有病历？谢谢。", 25)
    assert unnumbered.kept == ["您报警了吗？", "有没有病历？"] and not unnumbered.truncated


def test_sampling_takes_the_first_tasks_of_every_scenario():
    tasks = pd.DataFrame({"item_id": list("abcdef"), "scenario": ["x", "x", "x", "y", "y", "z"]})
    assert select_tasks(tasks, 2).item_id.tolist() == ["a", "b", "d", "e", "f"]
    assert select_tasks(tasks, None).item_id.tolist() == list("abcdef")
    assert select_tasks(tasks, 1, ["z", "x"]).item_id.tolist() == ["a", "f"]  # table order, not the list's
    with pytest.raises(ValueError, match="unknown w; the scenarios are x, y, z"):
        select_tasks(tasks, None, ["x", "w"])


def test_the_scripted_client_answers_from_the_narrative_or_does_not_know():
    meta = {"profile": {"conversation": NARRATIVE}}

    def ask(question: str) -> str:
        return steps.plawbench.scripted.client(
            ScriptedRequest("persona", [{"role": "user", "content": question}], meta)
        )

    assert ask("1. 2020年10月8日那次家暴，您报警了吗？") == "2020年10月8日他打了我，我报了警。"
    assert ask("1. 房产证上登记的产权人是谁？") == steps.plawbench.scripted.DONT_KNOW


def scripted_speaker(lawyer_lines: list[str]):
    """Lawyer lines in order, then the client policy (no model door needed)."""

    async def speak(call):
        if call.role.name == "lawyer":
            text = lawyer_lines[min(call.context["own_turns"], len(lawyer_lines) - 1)]
        else:
            request = ScriptedRequest("persona", call.messages, {"profile": call.context["profile"]})
            text = steps.plawbench.scripted.client(request)
        return SimpleNamespace(
            ok=True,
            text=text,
            call_key="k",
            model="m",
            prompt_tokens=0,
            completion_tokens=0,
            latency_s=0.0,
            cache_hit=False,
            reasoning=None,
        )

    return speak


def test_a_multiturn_consultation_collects_the_lawyers_questions_until_the_marker():
    tasks = pd.DataFrame([{"item_id": "plc/x", "query": NARRATIVE}])
    instance = dialogue.instances(tasks, {"plc/x": ["问题"]}, max_turns=5)[0]
    lines = ["1. 那次家暴您报警了吗？", "1. 儿子现在由谁照顾？", dialogue.END]
    d = asyncio.run(run_dialogue(dialogue.scenario(5), instance, scripted_speaker(lines)))
    assert d.ended_by is EndReason.MARKER and d.exchanges == 3
    assert [t.speaker for t in d.utterances()] == ["lawyer", "client", "lawyer", "client", "lawyer"]
    assert dialogue.lawyer_questions(d) == "1. 那次家暴您报警了吗？\n1. 儿子现在由谁照顾？"
    short = dialogue.instances(tasks, {"plc/x": ["问题"]}, max_turns=2)[0]
    capped = asyncio.run(run_dialogue(dialogue.scenario(2), short, scripted_speaker(["1. 还有吗？"])))
    assert capped.ended_by is EndReason.MAX_TURNS and capped.exchanges == 2


def test_the_client_prompt_holds_the_narrative_but_not_the_rubric():
    tasks = pd.DataFrame([{"item_id": "plc/x", "query": NARRATIVE}])
    instance = dialogue.instances(tasks, {"plc/x": ["秘密的评分问题？"]}, max_turns=5)[0]
    seen = []

    async def speak(call):
        seen.append(call)
        return SimpleNamespace(
            ok=True,
            text=dialogue.END,
            call_key="k",
            model="m",
            prompt_tokens=0,
            completion_tokens=0,
            latency_s=0.0,
            cache_hit=False,
            reasoning=None,
        )

    asyncio.run(run_dialogue(dialogue.scenario(5), instance, speak))
    system = seen[0].messages[0]["content"]
    assert NARRATIVE in system and dialogue.END in system and "秘密的评分问题" not in system
    assert seen[0].context["ground_truth"] == {"questions": ["秘密的评分问题？"]}  # for the scripted oracle only
