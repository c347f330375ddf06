"""MILE's item-level scores for the intervals of its report and `jurisflow compare` (steps/stats/cells.py): the
unit is the instance (one dialogue), which every metric of the goal and interaction tables shares.

- goal, overall, each of the 9 metrics: the instance's `scaled` score (0–100); AVE = the mean of the 7 metric means;
- interaction, overall and per cause of action: the dialogue's mean window grade × 10; `windows`: each window's
  grade × 10, clustered on its dialogue; AVE = the mean of INT, PROF, LOGI per scope;
- total AVE = (goal AVE + interaction AVE) / 2.

Items that failed (a model call, an unparsable judge answer) have no score: left out, as the report leaves them.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from steps.paths import Paths
from steps.stats.cells import ITEM_COLUMNS, ItemScores, Key

GOAL_SEVEN = ("CLI", "DEF", "F&R", "CLA", "EVID", "STA", "PROF")
INTERACTION = ("INT", "PROF", "LOGI")


def item_scores_of(scores: pd.DataFrame, dialogues: pd.DataFrame) -> ItemScores:
    """The item scores from every agent's scores rows and dialogues (agent, instance_id, law_reason)."""
    goal = scores[scores.stage == "goal"]
    goal_items = pd.DataFrame(
        {
            "agent": goal.agent,
            "table": "goal",
            "scope": "overall",
            "metric": goal.metric,
            "item": goal.instance_id,
            "cluster": goal.instance_id,
            "score": goal.scaled.where(goal.failure.isna()),
            "kind": "mean",
        }
    )
    windows = scores[scores.stage == "interaction"].merge(
        dialogues[["agent", "instance_id", "law_reason"]], on=["agent", "instance_id"], how="left"
    )
    ok = windows[windows.failure.isna()]
    per_dialogue = ok.groupby(["agent", "instance_id", "law_reason", "metric"], as_index=False).grade.mean()
    frames = [goal_items]
    for scope in ("overall", "by_reason"):
        frames.append(
            pd.DataFrame(
                {
                    "agent": per_dialogue.agent,
                    "table": "interaction",
                    "scope": "overall" if scope == "overall" else per_dialogue.law_reason,
                    "metric": per_dialogue.metric,
                    "item": per_dialogue.instance_id,
                    "cluster": per_dialogue.instance_id,
                    "score": per_dialogue.grade * 10,
                    "kind": "mean",
                }
            )
        )
    frames.append(
        pd.DataFrame(
            {
                "agent": ok.agent,
                "table": "interaction",
                "scope": "windows",
                "metric": ok.metric,
                "item": ok.instance_id + "#" + ok.turn.astype(str),
                "cluster": ok.instance_id,
                "score": ok.grade * 10,
                "kind": "mean",
            }
        )
    )
    items = pd.concat(frames, ignore_index=True)[ITEM_COLUMNS]
    scopes = sorted({"overall", "windows", *per_dialogue.law_reason.dropna().astype(str)})
    aggregates: dict[Key, dict[Key, float]] = {
        ("goal", "overall", "AVE"): {("goal", "overall", m): 1 / 7 for m in GOAL_SEVEN},
        ("total", "overall", "AVE"): {("goal", "overall", "AVE"): 0.5, ("interaction", "overall", "AVE"): 0.5},
    }
    for scope in scopes:
        aggregates[("interaction", scope, "AVE")] = {("interaction", scope, m): 1 / 3 for m in INTERACTION}
    causes = [s for s in scopes if s not in ("overall", "windows")]
    power: tuple[Key, ...] = (
        ("total", "overall", "AVE"),
        ("goal", "overall", "AVE"),
        ("interaction", "overall", "AVE"),
        *(("interaction", c, "AVE") for c in causes),
    )
    return ItemScores(items, aggregates, power=power, scale=100.0)


def item_scores(paths: Paths, agents: Sequence[str]) -> ItemScores:
    """`item_scores_of` read from the agents' runs (data/mile/runs/<agent>/)."""
    scores = pd.concat([pd.read_parquet(paths.run("mile", a) / "scores.parquet") for a in agents], ignore_index=True)
    dialogues = pd.concat(
        [pd.read_parquet(paths.run("mile", a) / "dialogues.parquet") for a in agents], ignore_index=True
    )
    return item_scores_of(scores, dialogues)
