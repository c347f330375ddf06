"""A dialogue written out for people: Markdown for reports/transcripts/, and lines for the terminal.

Both read the rows of turns.parquet and dialogues.parquet (plus, when given, the rows of the usage log for
latency and cache hits), so a transcript can be printed for any run on disk.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Line:
    """One turn as shown: who spoke to whom, in which stage, and what was said (or why nothing was)."""

    turn_index: int
    exchange: int
    kind: str
    speaker: str
    addressee: str | None
    stage: str | None
    text: str
    note: str  # failure, topic check, model call facts
    reasoning: str = ""  # the reply's reasoning trace (removed from `text`): shown folded


def _note(turn: Mapping[str, Any], usage: Mapping[str, Mapping[str, Any]]) -> str:
    if isinstance(turn["failure"], str):
        return f"failed call: {turn['failure']}"
    data = json.loads(turn["data"] or "{}")
    if turn["kind"] == "check":
        return f"topic: {data.get('topic')} → answer: {data.get('answer')}"
    call = usage.get(turn["call_key"])
    if call is None:
        return ""
    hit = "cache" if call["cache_hit"] else f"{call['latency_s']:.2f}s"
    return f"{turn['model']}, {turn['prompt_tokens']}+{turn['completion_tokens']} tokens, {hit}"


def lines(
    turns: list[Mapping[str, Any]], labels: Mapping[str, str], usage: Mapping[str, Mapping[str, Any]] | None = None
) -> list[Line]:
    """The turns of one dialogue (rows of turns.parquet, in order) as display lines."""
    usage = usage or {}
    return [
        Line(
            t["turn_index"],
            t["exchange"],
            t["kind"],
            t["speaker_label"],
            labels.get(t["addressee"], t["addressee"]) if isinstance(t["addressee"], str) else None,
            t["stage"] if isinstance(t["stage"], str) else None,
            t["text"],
            _note(t, usage),
            t["reasoning"] if isinstance(t.get("reasoning"), str) else "",
        )
        for t in turns
    ]


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines()) or "> （空）"


def markdown(
    instance_id: str, deliverable: Mapping[str, Any], shown: list[Line], *, agent: str, run_id: str, proxy: bool
) -> str:
    """A transcript page: header, every turn in order, the ending and the deliverable."""
    causes = ", ".join(deliverable["failure_causes"]) or "none"
    head = [
        f"# {instance_id}",
        "",
        f"Agent `{agent}`, run `{run_id}`"
        + (" — **scripted models** (a test of the protocol, not a model's behaviour)" if proxy else "")
        + ".",
        f"Ended by **{deliverable['ended_by']}** after {deliverable['exchanges']} exchanges "
        f"({deliverable['utterances']} utterances); failure causes: {causes}.",
        "",
    ]
    body = []
    for line in shown:
        to = f" → {line.addressee}" if line.addressee else ""
        stage = f" ·{line.stage}" if line.stage else ""
        kind = "" if line.kind == "utterance" else f" *({line.kind})*"
        body += [f"**[{line.turn_index}] {line.speaker}{to}**{stage}{kind}", ""]
        said = line.note if line.kind == "check" or (not line.text and line.note) else line.text
        if line.reasoning:  # folded, before the reply it led to
            body += ["<details><summary>reasoning (not part of the reply)</summary>", "", _quote(line.reasoning)]
            body += ["", "</details>", ""]
        body += [_quote(said) if line.kind != "check" else f"*{said}*", ""]
    tail = [
        f"## Deliverable: {deliverable['deliverable_kind']}"
        + (" (asked for after the turn cap)" if deliverable["forced"] else ""),
        "",
    ]
    text = deliverable["deliverable"]
    tail += [text if isinstance(text, str) and text else "*(none)*", ""]
    return "\n".join(head + body + tail)
