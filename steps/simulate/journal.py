"""An append-only journal of a simulation run, so an interrupted run resumes without redoing work.

Two kinds of JSON lines: `call` (one model reply, keyed by instance and the call's sequence number within
the instance) and `done` (a finished dialogue, all its turns). On resume, finished dialogues are taken as
they are, and an unfinished one is replayed: its recorded replies are returned in order without calling
any model, then it continues live. Failed calls and dialogues that ended in a failed call are not kept, so
a rerun retries them. A line cut off by a kill is ignored. The journal lives outside DVC outputs (DVC
deletes a stage's outputs before running it).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from steps.llm import Completion, Reply
from steps.simulate.model import Dialogue, EndReason, Turn, TurnKind


class Journal:
    def __init__(self, path: Path):
        self.path = path
        self.calls: dict[tuple[str, int], Completion] = {}
        self.done: dict[str, Dialogue] = {}
        if path.is_file():
            self._load()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")

    def _load(self) -> None:
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # the last line of a killed run may be cut off
            if rec["type"] == "call":
                self.calls[(rec["instance_id"], rec["seq"])] = Completion(**rec["reply"])
            elif rec["type"] == "done":
                dialogue = _dialogue_from(rec["dialogue"])
                if dialogue.ended_by is not EndReason.CALL_FAILED:
                    self.done[dialogue.instance_id] = dialogue

    def replay(self, instance_id: str, seq: int) -> Completion | None:
        return self.calls.get((instance_id, seq))

    def record_call(self, instance_id: str, seq: int, reply: Reply) -> None:
        if isinstance(reply, Completion):
            self._write({"type": "call", "instance_id": instance_id, "seq": seq, "reply": asdict(reply)})

    def record_done(self, dialogue: Dialogue) -> None:
        self._write({"type": "done", "dialogue": _dialogue_to(dialogue)})

    def _write(self, record: dict[str, Any]) -> None:
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def _dialogue_to(d: Dialogue) -> dict[str, Any]:
    out = asdict(d)
    out["ended_by"] = d.ended_by.value if d.ended_by else None
    return out


def _dialogue_from(rec: dict[str, Any]) -> Dialogue:
    turns = [Turn(**{**t, "kind": TurnKind(t["kind"])}) for t in rec.pop("turns")]
    ended = rec.pop("ended_by")
    return Dialogue(**rec, turns=turns, ended_by=EndReason(ended) if ended else None)
