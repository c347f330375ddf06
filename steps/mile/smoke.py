"""MILE's samples for `make smoke-real` (profile `small`) and the real-model slice test (profile `slice`)."""

from __future__ import annotations

from typing import Any


def profiles() -> dict[str, dict[str, Any]]:
    """Profile → this benchmark's params.yaml section overrides. The slice has one client-lawyer turn (MILE's calls
    were 44 % of the slice's prompt tokens with two); seed 70 samples mile/299, whose facts, evidence and complaint
    are among the shortest (439 characters; seed 0's mile/177 has 1,916), and every MILE judge prompt but one
    quotes the complaint or the facts."""
    small = {"sample": 1, "max_turns": 2, "role_decoding": "none"}
    return {"small": small, "slice": {**small, "max_turns": 1, "seed": 70}}
