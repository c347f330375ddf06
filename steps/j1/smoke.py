"""J1's samples for `make smoke-real` (profile `small`) and the real-model slice test (profile `slice`)."""

from __future__ import annotations

from typing import Any

from steps.j1.envs import known_codes


def profiles() -> dict[str, dict[str, Any]]:
    """Profile → this benchmark's params.yaml section overrides."""
    small: dict[str, Any] = {
        # Building the court environments from judgments is data preparation, not a benchmark: the tiny model's
        # extraction fails on every judgment (recorded per case, llm_status failed), which would leave
        # CD/DD/CI/CR without an instance. The scripted extractor builds them (no model call); the tiny model
        # then plays them.
        # 15 judgments per source: the first civil one whose plaintiff's evidence is recorded (so CD has an
        # instance) is the 15th.
        "extract": {"limit": 15, "max_attempts": 1, "model": {"model": "scripted/persona"}},
        # The same for the personas of the lay roles: the tiny model's trait levels are rarely valid JSON (every
        # persona failed in the first run), which would leave KQ, LC, CD and DD without an instance.
        "personas": {"model": {"model": "scripted/persona"}},
        # every J1 environment; CD, DD and CI from their own cases: the first civil judgment that all three can use
        # is about the 146th (the shared set of the full run)
        "instances": {"sizes": dict.fromkeys(known_codes(), 1), "civil_cases": "separate"},
        "simulate": {"max_turns": dict.fromkeys(known_codes(), 2), "transcripts": 1},
        "topics": {"method": "derived"},
    }
    # the slice: one criminal-court trial (the environment with the most roles)
    slice_ = {
        **small,
        "instances": {"sizes": {"CR": 1}},
        "simulate": {"scenarios": ["CR"], "max_turns": {"CR": 2}, "transcripts": 1},
    }
    return {"small": small, "slice": slice_}
