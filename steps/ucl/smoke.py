"""UCL-Bench's samples for `make smoke-real` (profile `small`) and the real-model slice test (profile `slice`)."""

from __future__ import annotations

from typing import Any


def profiles() -> dict[str, dict[str, Any]]:
    """Profile → this benchmark's params.yaml section overrides. UCL-Bench's prompts are among the longest (a judge
    reads about 2,200 tokens): 1 item of three tasks (a prediction, a concept, a consultation), one in the slice.
    No judge repair: every tiny-model answer was unparsable and so was its repair."""
    return {
        "small": {
            "limit": 1,
            "tasks": ["Charge Prediction", "Legal Concept Understanding", "Legal Issue Consultation"],
            "max_exchanges": 1,
            "judge_retries": 1,
            "judge_probes": {"sample": 1, "repeats": 2, "shuffle": True},  # the audit's probes on one item
        },
        "slice": {
            "limit": 1,
            "tasks": ["Charge Prediction"],
            "max_exchanges": 1,
            "judge_retries": 1,
            "judge_probes": {"sample": 0},
        },
    }
