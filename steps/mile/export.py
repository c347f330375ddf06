"""Supervised dialogues as fine-tuning data (MASER's purpose as a data engine, paper §2.3).

One JSON line per dialogue in the OpenAI chat-messages format, from the lawyer's point of view: the lawyer's
system prompt, the client's turns as `user` and the lawyer's as `assistant` (greetings included, drafts the
supervisor sent back left out), the drafting request, and the complaint as the last `assistant` message —
what SFT on lawyer tokens needs (paper §2.3: loss on the lawyer's responses). `metadata` carries the instance
id, the persona, the cause of action, how the dialogue ended, its revisions and the run that produced it.
Dialogues that failed or produced no complaint are skipped and counted.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pandas as pd


@dataclass
class Export:
    records: list[dict[str, Any]] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)  # reason -> dialogues


def sft_records(dialogues: pd.DataFrame, run: dict[str, Any]) -> Export:
    """Chat-format training records of a run's dialogues (dialogues.parquet rows), in instance order."""
    out = Export()
    for d in dialogues.sort_values("instance_id", key=lambda s: s.str.split("/").str[-1].astype(int)).itertuples():
        if d.ended_by == "call_failed":
            out.skipped["dialogue failed"] += 1
            continue
        if d.deliverable is None or pd.isna(d.deliverable) or not str(d.deliverable).strip():
            out.skipped["no complaint"] += 1
            continue
        messages = json.loads(d.lawyer_view)
        if not messages or messages[0]["role"] != "system" or messages[-1]["role"] != "user":
            raise ValueError(f"{d.instance_id}: the stored lawyer view is not system … user")
        messages.append({"role": "assistant", "content": d.deliverable})
        out.records.append(
            {
                "messages": messages,
                "metadata": {
                    "instance_id": d.instance_id,
                    "persona": json.loads(d.persona),
                    "law_reason": d.law_reason,
                    "plaintiff_type": d.plaintiff_type,
                    "ended_by": d.ended_by,
                    "turns": int(d.turns),
                    "client_revisions": int(d.client_revisions),
                    "lawyer_revisions": int(d.lawyer_revisions),
                    "run_id": run.get("run_id"),
                    "lawyer_model": run.get("model"),
                    "environment_model": (run.get("environment") or {}).get("model"),
                    "supervise": (run.get("options") or {}).get("supervise"),
                },
            }
        )
    return out


def to_jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
