"""KQ and LC: I-1 per binary topic and I-2 per open topic, from the supervisor's checks (spec j1-envs §5.3-5.4).

The supervisor's check rows (`kind = check` in turns.parquet) say which topic each exchange addressed and
summarise the agent's answer. I-1 reads the summaries (`steps.j1.eval.metrics.binary_accuracy`); I-2 scores the
agent's own replies in the topic's exchanges: by rule when the topic's answer is a provision (law and article
cited), with the pointwise judge (question, reference answer, reply) otherwise. A topic the client never raised
is skipped (§9.3-9; `strict_topics` scores it 0), except when the agent itself ended the consultation by going
silent or by outgrowing its context (`context_exceeded`): then the topics it left unreached are the agent's failure
and score 0.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from steps.j1.eval.case import Case, Panel
from steps.j1.eval.metrics import TopicCheck, binary_accuracy, statute_topic_score, topic_text
from steps.j1.eval.records import Row, ScoreRow
from steps.j1.params import J1EvalParams
from steps.judges.pointwise import Comparison


def checks_of(case: Case) -> tuple[list[TopicCheck], int]:
    """The supervisor's topic checks in exchange order, and how many checks failed (no topic known)."""
    checks, failed = [], 0
    for turn in case.turns:
        if turn["kind"] != "check":
            continue
        data = json.loads(turn["data"] or "{}")
        if "failure" in data or turn.get("failure"):
            failed += 1
            continue
        checks.append(TopicCheck(int(turn["exchange"]), data.get("topic_index"), str(data.get("answer", ""))))
    return checks, failed


def replies_of(case: Case) -> dict[int, str]:
    """The agent's reply in each exchange."""
    out: dict[int, str] = {}
    for turn in case.utterances():
        if turn["speaker"] == case.agent_role and turn["text"]:
            out[int(turn["exchange"])] = turn["text"]
    return out


async def evaluate(case: Case, panel: Panel, options: J1EvalParams) -> list[ScoreRow]:
    row = Row(case.instance_id, case.scenario)
    topics = [t.model_dump() for t in case.truth.topics]
    checks, failed_checks = checks_of(case)
    stopped = case.agent_stopped()
    silent = stopped is not None
    binary = binary_accuracy(topics, checks, strict=options.strict_topics or silent)
    raised = {c.topic_index for c in checks if c.topic_index is not None}
    i1_parts = []
    for t in binary.topics:
        component = f"T{t.topic_index + 1}"
        evidence = {"truth": t.truth, "decided_by": t.decided_by}
        if t.score is None:
            i1_parts.append(row.skipped("I-1", component, reason="never raised", **evidence))
        elif t.topic_index not in raised and silent:
            i1_parts.append(row.failed_task("I-1", t.score, component, reason=f"never raised: {stopped}"))
        elif t.topic_index not in raised:
            i1_parts.append(row.rule("I-1", t.score, component, reason="never raised (strict)", **evidence))
        else:
            i1_parts.append(row.rule("I-1", t.score, component, **evidence))
    replies = replies_of(case)
    i2_parts = await asyncio.gather(
        *(
            _open_topic(row, i, topic, checks, replies, raised, panel, strict=options.strict_topics, stopped=stopped)
            for i, topic in enumerate(topics)
            if topic["kind"] != "binary"
        )
    )
    context: dict[str, Any] = {
        "topics": len(topics),
        "raised": len(raised),
        "failed_checks": failed_checks,
        "agent_silent": silent,
    }
    return [
        row.combined("I-1", i1_parts, n_binary=binary.n_binary, **context),
        *i1_parts,
        row.combined("I-2", list(i2_parts), drop_failed=True, n_open=len(i2_parts), **context),
        *i2_parts,
    ]


async def _open_topic(
    row: Row,
    index: int,
    topic: dict,
    checks: list[TopicCheck],
    replies: dict[int, str],
    raised: set[int],
    panel: Panel,
    *,
    strict: bool,
    stopped: str | None,
) -> ScoreRow:
    """I-2 of one open topic."""
    component = f"T{index + 1}"
    if index not in raised:
        if stopped is not None:
            return row.failed_task("I-2", 0.0, component, reason=f"never raised: {stopped}")
        if strict:
            return row.rule("I-2", 0.0, component, reason="never raised (strict)")
        return row.skipped("I-2", component, reason="never raised")
    text = topic_text(checks, replies, index)
    if not text.strip():
        return row.rule("I-2", 0.0, component, reason="raised, not answered")
    statutes = [(s["law"], s["article"]) for s in topic.get("statutes") or []]
    if topic["kind"] == "open_statute" and statutes:
        value = statute_topic_score(text, statutes)
        return row.rule("I-2", value, component, kind="open_statute", statutes=statutes, answer=text[:500])
    comparison = Comparison(reference=topic["answer"], candidate=text, question=topic["topic"])
    judgement = await panel.compare(comparison, metric="I-2")
    return row.judged("I-2", judgement, component, kind=topic["kind"])
