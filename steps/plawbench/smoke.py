"""PLawBench's samples for `make smoke-real` (profile `small`) and the real-model slice test (profile `slice`)."""

from __future__ import annotations

from typing import Any

# New tokens of PLawBench's judge in `small`: the plaintiff rubric's compact verdict (10 items, 9 fails, 3 penalties)
# is about 400 tokens of SmolLM2's vocabulary laid out one key a line as llama.cpp's grammar lets it.
JUDGE_MAX_TOKENS = 512


def profiles() -> dict[str, dict[str, Any]]:
    """Profile → this benchmark's params.yaml section overrides. A rubric judge reads 3,400-7,500 tokens: 1 task of
    three scenarios, one per task type; the case analysis from 法律时效敏感度, whose rubrics and facts are the shortest
    (its first task, pca/220: 15 rubric rows, 308 characters, against 36 rows for 婚姻家事's pca/2). No judge repair
    in `small` (every tiny-model rubric answer was unparsable and so was its repair; the slice keeps one, so that
    path still meets real output in CI). The slice is single-turn: the multi-turn consultation (20 % of its prompt
    tokens) runs in `small`. In `small` the judge answers the compact verdict (`judge_verdict: flags`: a met flag
    per item, no free text) within 512 new tokens: the full verdict with its Chinese error labels outgrew the
    profile's 96-token judge cap on every rubric (the plaintiff rubric alone has 22 lines to answer)."""
    return {
        "small": {
            "limit": 1,
            "scenarios": ["consultation", "法律时效敏感度", "plaintiff"],
            "judge_repairs": 0,
            "judge_verdict": "flags",
            "judge": {"decoding": {"max_tokens": JUDGE_MAX_TOKENS}},
            # the judge audit's probes on one answer: two re-judgements (the same prompt: llama.cpp's prompt cache
            # spares its reading) and one with the rubric shuffled
            "judge_probes": {"sample": 1, "repeats": 2, "shuffle": True},
            "multiturn": {"enabled": True, "max_turns": 1},
        },
        "slice": {
            "limit": 1,
            "scenarios": ["consultation"],
            "judge_repairs": 1,
            "judge_probes": {"sample": 0},
            "multiturn": {"enabled": False},
        },
    }
