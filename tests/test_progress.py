"""flows/kit/progress.py in one process: plain lines when stderr is not a terminal, a heartbeat while nothing
advances, calls counted for the stage, its loop and the group they run in."""

from __future__ import annotations

import asyncio
import time

from flows.kit import progress
from flows.kit.monitor import gather_groups
from steps.llm.results import UsageRecord


def _call(tokens: int, *, hit: bool = False, failure: str | None = None) -> UsageRecord:
    return UsageRecord("run", "test", "m", "scripted/x", "key", tokens, 0, None, 0.0, 1, hit, failure, None)


def test_a_silent_loop_still_prints_a_line_every_interval(monkeypatch, capsys):
    monkeypatch.setenv(progress.INTERVAL_ENV, "1")
    with progress.stage("demo_stage") as meter:
        assert isinstance(meter.display, progress._Plain)  # stderr is captured: not a terminal
        with progress.counter("demo loop", 3) as advance:
            advance()
            time.sleep(2.6)  # one long call: nothing advances
    err = capsys.readouterr().err.splitlines()
    beats = [line for line in err if line.startswith("demo_stage · demo loop: 1/3 (33%), 0:0")]
    assert len(beats) >= 2, err  # at least one line a second while it waits (interval 1 s)
    assert "ETA" in beats[0]
    assert err[-1].startswith("demo_stage · demo loop: 1/3 (33%), 0:0")  # the loop's last line, when it ends


def test_calls_count_for_the_stage_the_loop_and_the_group_they_run_in(capsys):
    async def run(group: list[int]) -> list[int]:
        for x in group:
            progress.observe_calls(_call(10 * x, hit=x == 2, failure="timeout" if x == 3 else None))
            advance()
        return group

    with progress.stage("demo_stage") as meter:
        with progress.counter("demo loop", 4) as advance:
            asyncio.run(gather_groups([1, 2, 3, 4], lambda x: "a-2" if x < 3 else "a-10", run, label=str))
            loop = meter.active
            assert loop is not None
            groups = {g.label: (g.done, g.calls, g.cached, g.failed, g.tokens) for g in loop.groups.values()}
            assert list(loop.groups) == ["a-2", "a-10"]  # natural order
        summary = meter.summary()
    assert groups == {"a-2": (2, 2, 1, 0, 30), "a-10": (2, 2, 0, 1, 70)}
    assert summary.startswith("demo_stage: done in ")
    assert summary.endswith("; 4/4 items, 4 calls (1 cached, 1 failed), 100 tokens (80 new)")
    assert "demo loop: 4/4 (100%), 4 calls (1 cached, 1 failed), 100 tokens" in capsys.readouterr().err


def test_a_request_longer_than_the_context_is_counted_apart_from_the_failed_calls():
    """An agent's overflow ends its dialogue as the model's limit (the stage's check says so), so the progress lines
    and the closing line count `context_exceeded` calls apart: a reader never sees them as failed calls."""
    with progress.stage("demo_stage") as meter:
        progress.observe_calls(_call(5))
        progress.observe_calls(_call(7, failure="context_exceeded"))
        progress.observe_calls(_call(3, failure="timeout"))
        summary = meter.summary()
    assert summary.endswith("; 3 calls (0 cached, 1 failed, 1 over the context), 15 tokens (15 new)")


def test_a_groups_first_started_call_begins_it_once_by_its_context_or_its_instance():
    """The door's starter (`progress.began`) begins the group at work (gather_groups' context) or, in work that runs
    every group at once (follow_groups), the group its call's instance belongs to; each tally tells its listeners
    once, and a call of no known group begins nothing."""
    from flows.kit.progress import Tally, began, in_group, in_members

    a, b, c = Tally("a", 2), Tally("b", 1), Tally("c", 1)
    told: list[str] = []
    for t in (a, b, c):
        t.on_begin.append(lambda t=t: told.append(t.label))
    in_group(a).run(began, {"instance_id": "i9"})  # the group at work wins over the instance
    in_group(a).run(began, {})
    members = in_members({"i1": b, "i2": c})
    members.run(began, {"instance_id": "i2"})
    members.run(began, {"instance_id": "unknown"})
    members.run(began, None)
    began({"instance_id": "i1"})  # outside both contexts: no group
    assert told == ["a", "c"] and (a.begun, b.begun, c.begun) == (True, False, True)
