"""Scripted PLawBench policies: an oracle that answers with the rubric's award criteria, a multi-turn oracle
lawyer and a client who answers from the narrative (`scripted/null`, built in, answers nothing). The proxy judge's
PLawBench kind is in steps/plawbench/scripted_judge.py (the answers import no judge code).

The oracle's answer is written by the caller from the rubric (`oracle_answer`) and travels in the call
metadata as `reference`, which only scripted models see. It bounds the scores from above under the proxy
judge; it is not a model of a good lawyer.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from typing import Any

import pandas as pd

from steps.llm import ScriptedRequest, register_policy
from steps.plawbench.dialogue import END, SCENARIO
from steps.plawbench.prompts import CATEGORIES

HEADINGS = {"conclusion": "【结论】", "facts": "【案件事实】", "reasoning": "【推理过程】", "statute": "【法条依据】"}
DONT_KNOW = "这个我不清楚，记不得了。"


def scenario_of(category: str) -> str:
    return f"plawbench/{category}"


def oracle_answer(task: Any, rows: pd.DataFrame) -> str:
    """The award criteria of one task's rubric, laid out as the category's answer would be."""
    units = rows[rows.judged & (rows.kind == "award")].sort_values("order")
    texts = [str(t).strip() for t in units.award_text]
    category = task.category
    if category == "consultation":
        return "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1))
    if category == "case_analysis":
        parts = []
        for dim, heading in HEADINGS.items():
            body = [str(t).strip() for t in units[units.dimension == dim].award_text]
            parts.append(heading + "\n" + "\n".join(body))
        return "\n\n".join(parts)
    lines = [task.document]
    for part, group in itertools.groupby(units.itertuples(index=False), key=lambda r: r.dimension):
        lines.append(f"\n{part}")
        lines += [str(r.award_text).strip() for r in group]
    return "\n".join(lines)


def _oracle(request: ScriptedRequest) -> str:
    return str(request.metadata.get("reference", ""))


def oracle_lawyer(request: ScriptedRequest) -> str:
    """Asks the rubric's questions one per turn, then ends."""
    questions = request.metadata["ground_truth"]["questions"]
    asked = int(request.metadata["own_turns"])
    return f"1. {questions[asked]}" if asked < len(questions) else END


def _bigrams(text: str) -> Counter[str]:
    chars = [c for c in text if c.isalnum()]
    return Counter(a + b for a, b in itertools.pairwise(chars))


def client(request: ScriptedRequest) -> str:
    """Answers with the narrative's sentence closest to the question (bigram overlap), or says it does not know."""
    question = request.last_user
    if not question.strip() or question.startswith("（"):
        return "您想了解哪方面的情况？"
    asked = _bigrams(question)
    sentences = [
        s.strip() for s in re.split(r"(?<=[。！？!?])", request.metadata["profile"]["conversation"]) if s.strip()
    ]
    scored = [(sum((asked & _bigrams(s)).values()), -i, s) for i, s in enumerate(sentences)]
    best = max(scored, default=(0, 0, ""))
    return best[2] if best[0] >= 3 else DONT_KNOW


for _category in CATEGORIES:
    register_policy("oracle", scenario_of(_category), _oracle)
register_policy("oracle", SCENARIO, oracle_lawyer)
register_policy("persona", SCENARIO, client)
