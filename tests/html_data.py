"""Synthetic J1 run tables (turns, deliverables, scores) of any size, for the HTML report's tests and benchmark.
Deterministic: dialogue i of agent a is the same on every call."""

from __future__ import annotations

import json

import pandas as pd

ENVS = ("KQ", "LC", "CD", "DD", "CI", "CR")
ENDS = ("marker", "max_turns", "topics_done")


def j1_frames(n: int, agent: str = "oracle", turns_per: int = 8) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """n dialogues spread over the six environments; dialogue i scores (i % 5) / 4 on II-1 and I-1."""
    turns, deliverables, scores = [], [], []
    for i in range(n):
        env = ENVS[i % len(ENVS)]
        iid = f"{env}/synthetic/{i:05d}"
        for t in range(turns_per):
            speaker, addressee = ("agent", "user") if t % 2 else ("user", "agent")
            turns.append(
                {
                    "run_id": "r1",
                    "agent": agent,
                    "benchmark": "j1",
                    "scenario": env,
                    "instance_id": iid,
                    "turn_index": t,
                    "exchange": t // 2 + 1,
                    "speaker": speaker,
                    "speaker_label": speaker,
                    "addressee": addressee,
                    "kind": "utterance",
                    "stage": "审理" if env == "CR" else None,
                    "paper_turn": None,
                    "text": f"第{t}句：" + "案情陈述。" * 20,
                    "model": f"scripted/{agent}",
                    "call_key": f"k{i}-{t}",
                    "prompt_tokens": 10,
                    "completion_tokens": 5,
                    "revision": 0,
                    "failure": None,
                    "data": "{}",
                }
            )
        deliverables.append(
            {
                "run_id": "r1",
                "agent": agent,
                "benchmark": "j1",
                "scenario": env,
                "instance_id": iid,
                "ended_by": ENDS[i % len(ENDS)],
                "exchanges": turns_per // 2,
                "utterances": turns_per,
                "deliverable_kind": "answer",
                "deliverable": "结论。",
                "forced": False,
                "failure": None,
                "failure_causes": [],
            }
        )
        for metric in ("I-1", "II-1", "III-4"):
            scores.append(
                {
                    "run_id": "r1",
                    "agent": agent,
                    "instance_id": iid,
                    "scenario": env,
                    "metric": metric,
                    "component": "",
                    "value": (i % 5) / 4,
                    "status": "scored",
                    "failure": None,
                    "error": "",
                    "judge": "rule",
                    "judge_prompt_version": "",
                    "judge_proxy": False,
                    "attempts": 0,
                    "evidence": json.dumps({"why": f"evidence {i}"}),
                }
            )
    return pd.DataFrame(turns), pd.DataFrame(deliverables), pd.DataFrame(scores)
