"""Scripted policies for LawBench: the oracle answers with the reference; null (built in) answers nothing."""

from __future__ import annotations

from steps.lawbench.metrics import ner
from steps.lawbench.predict import SCENARIO
from steps.llm import ScriptedRequest, register_policy


def best_form(task: str, idx: int, reference: str) -> str:
    """The gold answer written the way the task's answer parser reads it best.

    Three references carry a label or a layout that a model's answer would not: 1-1 and 2-5 start with
    `答案:` / `回答:` (which ROUGE-L and rc-F1 would count against an answer), and 2-6 lists its entities
    on one line, where a value could swallow the next `type:value` pair.
    """
    if task == "1-1":
        return reference.replace("答案:", "")
    if task == "2-5":
        return reference.replace("回答:", "")
    if task == "2-6":
        return "".join(f"{t}:{v}\n" for t, v in ner.reference_entities(idx, reference).items()) + "\n"
    return reference


def oracle_answer(request: ScriptedRequest) -> str:
    """The item's gold answer (passed by the caller in the call metadata), in its best-read form."""
    meta = request.metadata
    return best_form(str(meta.get("task", "")), int(meta.get("idx", 0)), str(meta.get("reference", "")))


register_policy("oracle", SCENARIO, oracle_answer)
