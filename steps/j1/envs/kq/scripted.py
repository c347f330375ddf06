"""Scripted policies for KQ and LC: a client who asks from its topic list, an oracle, and the checker.

The client opens (KQ: asks for an overview of the theme; LC: tells its situation), then asks the first
topic not yet answered, and says the end phrase once every topic is answered. The oracle agent answers the
topic it is asked from the ground truth. The scripted checker finds the topic quoted in the client's turn
and reads the answer's polarity (binary) or keeps its text (open). `scripted/null` (built in) says nothing.
"""

from __future__ import annotations

import json

from steps.j1.envs.kq.scenario import END
from steps.llm import ScriptedRequest, register_policy

_YES = ("是的", "是", "对", "可以", "能", "正确")
_NO = ("不", "否", "错", "没有")


def _topic_in(text: str, topics: list[str]) -> int | None:
    for i, topic in enumerate(topics):
        if topic in text:
            return i
    return None


def client(request: ScriptedRequest) -> str:
    profile, state = request.metadata["profile"], request.metadata["state"]
    if request.metadata["own_turns"] == 0:
        if "background" in profile:
            return f"律师您好，我叫{profile['name']}。我的情况是这样的：{profile['background']}"
        return f"您好，我是一名{profile['occupation']}，想请您先大概讲讲“{profile['theme']}”。"
    if not state["unaddressed"]:
        return END
    last_agent = request.last_user
    if "background" in profile and last_agent.rstrip().endswith(("？", "?")) and not _answered(last_agent):
        return f"您问的情况是这样的：{profile['background'][:120]}"
    return f"我还想问：{state['topics'][state['unaddressed'][0]]}？"


def _answered(text: str) -> bool:
    return len(text) > 60


def oracle(request: ScriptedRequest) -> str:
    topics = request.metadata["ground_truth"]["topics"]
    i = _topic_in(request.last_user, [t["topic"] for t in topics])
    if i is None:
        return "好的，我先把这方面的规定给您大致介绍一下，您有具体问题可以随时问我。"
    topic = topics[i]
    if topic["kind"] == "binary":
        return "是的，这种说法是对的。" if topic["answer"] == "是" else "不对，这种说法是错误的。"
    return f"根据法律规定：{topic['answer']}"


def checker(request: ScriptedRequest) -> str:
    prompt = request.last_user
    question = prompt.split("咨询者：", 1)[-1].split("法律专业人士：", 1)[0]
    answer = prompt.split("法律专业人士：", 1)[-1].split("\n\n请完成两件事", 1)[0].strip()
    state = request.metadata["state"]
    i = _topic_in(question, state["topics"])
    if i is None:
        return json.dumps({"topic": "无", "answer": "无"}, ensure_ascii=False)
    if not answer:
        summary = "无"
    elif state["kinds"][i] == "binary":
        summary = "否" if answer.startswith(_NO) else "是" if answer.startswith(_YES) else "视情况而定"
    else:
        summary = answer[:300]
    return json.dumps({"topic": state["topics"][i], "answer": summary}, ensure_ascii=False)


def _persona(request: ScriptedRequest) -> str:
    return checker(request) if request.metadata.get("role") == "supervisor" else client(request)


for _scenario in ("KQ", "LC"):
    register_policy("persona", _scenario, _persona)
    register_policy("oracle", _scenario, oracle)
