"""The calibration record of served models: `jurisflow models check` writes it, `jurisflow estimate` reads it.

`CALIBRATION_FILE` (`.cache/calibration.json`, gitignored with the rest of `.cache/`) maps
`"<model string> @ <api_base>"` to a `steps.llm.calibration.Calibration`: the server's prompt tokens over the
estimate's count, prefill and generation tokens per second, a call's overhead and mean latency. It holds no API key
(only model strings and addresses). The probes are sent one after another, fresh (the response cache bypassed), so
each is timed on an idle slot. A model that plays a judge is then asked the judge probes
(`steps.llm.calibration.JUDGE_PROBES`) with the judge's decoding, and the share of its answers that the judges'
own parsers (`validate_answer`, `parse_verdict`) cannot read is kept as its `judge_repair_rate`.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from flows.kit.paths import PATHS
from steps.llm import Completer, ModelConfig
from steps.llm.calibration import (
    CALIBRATION_PROBES,
    JUDGE_PROBES,
    Calibration,
    ProbeTiming,
    calibrate,
    calibration_key,
)
from steps.llm.standin import TokenCounter

CALIBRATION_FILE = PATHS.cache / "calibration.json"


def first_base(model: ModelConfig) -> str:
    """The endpoint the record is kept for: the model's api_base (the first replica), or "" for the provider's."""
    base = model.api_base[0] if isinstance(model.api_base, list) else model.api_base
    return base or ""


def load(path: Path = CALIBRATION_FILE) -> dict[str, Calibration]:
    """Every record in the file (none when it is missing or unreadable: the estimate then counts as before)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {key: Calibration.from_json(value) for key, value in data.items()}
    except (OSError, ValueError, TypeError):
        return {}


def save(records: list[Calibration], path: Path = CALIBRATION_FILE) -> None:
    """Add (or replace) these models' records, keeping the others'."""
    kept = {k: v.to_json() for k, v in load(path).items()}
    kept.update({calibration_key(r.model, r.api_base): r.to_json() for r in records})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(kept, indent=2, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def lookup(records: dict[str, Calibration], model: ModelConfig) -> Calibration | None:
    """The record of `model` at its endpoint, if `models check` made one."""
    return records.get(calibration_key(model.model, first_base(model)))


def measure(door: Completer, model: ModelConfig) -> Calibration | str:
    """Time `CALIBRATION_PROBES` on `model`, one after another; the record, or why there is none."""
    counter = TokenCounter(model.model)

    async def run() -> list[ProbeTiming] | str:
        timings = []
        for name, messages, max_tokens in CALIBRATION_PROBES:
            probe = model.model_copy(update={"decoding": model.decoding.model_copy(update={"max_tokens": max_tokens})})
            reply = await door.complete(
                probe, messages, purpose="calibration", metadata={"scenario": "probe", "role": name}, fresh=True
            )
            if not reply.ok:
                return f"{name} probe failed: {reply.kind.value}"
            if reply.prompt_tokens <= 0:
                return "the server reports no usage"
            counted = counter.prompt(messages)
            timings.append(ProbeTiming(name, counted, reply.prompt_tokens, reply.completion_tokens, reply.latency_s))
        return timings

    timings = asyncio.run(run())
    if isinstance(timings, str):
        return timings
    return calibrate(model.model, first_base(model), timings, datetime.now(UTC).isoformat(timespec="seconds"))


class ProbeScore(BaseModel):
    """A JSON judge probe's answer: what the judges' JSON answers are like (a score in range and a reason)."""

    score: int = Field(ge=1, le=10)
    reason: str


def readable(kind: str, text: str) -> bool:
    """Whether a judge probe's answer is one the judges' parsers read: a `ProbeScore` JSON object, or a verdict."""
    from steps.judges.pairwise import parse_verdict
    from steps.llm.structured import validate_answer

    if kind == "verdict":
        return parse_verdict(text)[1] is None
    try:
        validate_answer(text, ProbeScore)
    except ValueError:
        return False
    return True


def measure_judge(door: Completer, judge: ModelConfig) -> tuple[int, int] | str:
    """Ask `judge` the judge probes, fresh, one after another with its own decoding and, as the judges do, the
    answer's schema as `response_format` (sent where its `structured_output` says so): (unreadable answers, probes),
    or why there is no figure (a probe's call failed)."""

    from steps.judges.pairwise import PairwiseAnswer
    from steps.llm.capabilities import response_format

    async def run() -> tuple[int, int] | str:
        bad = 0
        for name, kind, messages in JUDGE_PROBES:
            # asked as the judges ask: with the answer's schema, sent where the judge's structured_output says so
            schema = PairwiseAnswer if kind == "verdict" else ProbeScore
            fmt = (
                {}
                if judge.is_scripted
                else {"response_format": response_format(schema, None, judge.decoding.max_tokens)}
            )
            reply = await door.complete(
                judge,
                messages,
                purpose="calibration",
                metadata={"scenario": "judge-probe", "role": name},
                fresh=True,
                **fmt,
            )
            if not reply.ok:
                return f"judge probe {name} failed: {reply.kind.value}"
            bad += not readable(kind, reply.text)
        return bad, len(JUDGE_PROBES)

    return asyncio.run(run())


def with_repair_rate(record: Calibration, measured: tuple[int, int]) -> Calibration:
    """The record with the judge probes' share of unreadable answers."""
    from dataclasses import replace

    bad, asked = measured
    return replace(record, judge_repair_rate=round(bad / asked, 4) if asked else None, judge_probes=asked)
