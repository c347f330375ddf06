"""Judge probes for the audit: self-consistency (k re-judgements of a sample) and rubric order (the sample re-judged
with its rubric items shuffled).

A benchmark's judge stage asks them where it judges (the same door, the same judge), on a seeded sample of what it
judged, and writes one row per probe call to its run's `judge_probes.parquet` (`PROBE_COLUMNS`); the judge audit
(`steps.reports.judges`) reads those tables. A re-judgement is a real call: round r asks with the judge's decoding
seed moved by r (`reseeded`), so its cache key differs from the judgement's and every other round's; at temperature 0
a server may still answer alike, which is the measurement. A deterministic stand-in (the scripted proxy judge)
answers alike by construction: its agreement is trivially 100 % and the audit says so instead of reporting it.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from steps.judges.rubric_tally import Rubric
from steps.llm import ModelConfig
from steps.sections import JudgeProbeParams

__all__ = ["JudgeProbeParams", "consistency", "order_effect", "probe_row", "reseeded", "sample_ids", "shuffled"]

PROBE_FILE = "judge_probes.parquet"
REPEAT, SHUFFLE = "repeat", "shuffle"
# one row per probe call: the item (a benchmark's own key), the probe, its round (0: the stage's own judgement,
# 1..k the re-judgements; shuffle: 1), the judge's value (None: a failure, named) and per rubric item what it gave
PROBE_COLUMNS = ["item_id", "probe", "round", "judge", "judge_proxy", "value", "failure", "items"]


def sample_ids(ids: Sequence[str], n: int, seed: int) -> list[str]:
    """`n` of `ids` (distinct, sorted first so that the draw does not depend on their order), seeded."""
    pool = sorted(set(ids))
    return sorted(random.Random(seed).sample(pool, min(n, len(pool))))


def reseeded(model: ModelConfig, round_: int) -> ModelConfig:
    """`model` with its decoding seed moved by `round_` (None counts as 0): a distinct call, a distinct cache key."""
    seed = (model.decoding.seed or 0) + round_
    return model.model_copy(update={"decoding": model.decoding.model_copy(update={"seed": seed})})


def shuffled(rubric: Rubric, seed: int) -> Rubric:
    """`rubric` with its items (and its groups) in a seeded random order; ids, points and structure unchanged, so the
    tally is the same function of the answers and only the order the judge reads them in differs."""
    rng = random.Random(seed)
    items, groups = list(rubric.items), list(rubric.groups)
    rng.shuffle(items)
    rng.shuffle(groups)
    return replace(rubric, items=tuple(items), groups=tuple(groups))


def probe_row(item_id: str, probe: str, round_: int, judgement: Any) -> dict[str, Any]:
    """A `judge_probes` row from a `steps.judges.Judgement` (the per-item values: a rubric judge's evidence `items`,
    a hint judge's `status`)."""
    ev = judgement.evidence if judgement.ok else {}
    given = {str(i["id"]): i["given"] for i in ev.get("items", [])} or dict(ev.get("status", {}))  # rubric, hints
    return {
        "item_id": item_id,
        "probe": probe,
        "round": round_,
        "judge": judgement.judge_model,
        "judge_proxy": bool(judgement.proxy),
        "value": judgement.value,
        "failure": judgement.failure.value if judgement.failure else None,
        "items": json.dumps(given, sort_keys=True),
    }


def probe_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=PROBE_COLUMNS)
    return frame.astype({"value": "float64", "round": "int64", "judge_proxy": "bool"})


def consistency(frame: pd.DataFrame) -> dict[str, Any]:
    """Agreement among the rounds of the `repeat` probe: items with at least two valued rounds, the share whose
    values are all equal (unanimous) and the mean over items of the within-item standard deviation (n − 1)."""
    rows = frame[(frame.probe == REPEAT) & frame.value.notna()]
    per = rows.groupby("item_id").value.agg(["size", "nunique", lambda v: float(v.std(ddof=1))])
    per.columns = ["size", "distinct", "sd"]
    per = per[per["size"] >= 2]
    if per.empty:
        return {"repeat_items": 0, "rounds": 0, "unanimous_pct": None, "within_sd": None}
    return {
        "repeat_items": len(per),
        "rounds": int(frame[frame.probe == REPEAT]["round"].max()) + 1,
        "unanimous_pct": round(100 * float((per["distinct"] == 1).mean()), 1),
        "within_sd": round(float(per["sd"].mean()), 4),
    }


def order_effect(frame: pd.DataFrame) -> dict[str, Any]:
    """The rubric-order probe against the stage's own judgement (round 0 of `repeat`): over items both valued, the
    share of rubric items whose verdict changed and the mean score difference (shuffled − original)."""
    base = frame[(frame.probe == REPEAT) & (frame["round"] == 0) & frame.value.notna()].set_index("item_id")
    moved = frame[(frame.probe == SHUFFLE) & frame.value.notna()].set_index("item_id")
    both = base.index.intersection(moved.index)
    if both.empty:
        return {"shuffle_items": 0, "rubric_items": 0, "changed_pct": None, "mean_diff": None}
    changed = total = 0
    for item in both:
        a, b = _given(base.at[item, "items"]), _given(moved.at[item, "items"])
        shared = a.keys() & b.keys()
        total += len(shared)
        changed += sum(not _same(a[k], b[k]) for k in shared)
    diff = (moved.loc[both, "value"] - base.loc[both, "value"]).mean()
    return {
        "shuffle_items": len(both),
        "rubric_items": total,
        "changed_pct": round(100 * changed / total, 1) if total else None,
        "mean_diff": round(float(diff), 4),
    }


def _given(text: str) -> Mapping[str, Any]:
    value = json.loads(text or "{}")
    return value if isinstance(value, dict) else {}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), abs_tol=1e-9)
    return bool(a == b)
