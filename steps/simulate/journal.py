"""An append-only journal of a simulation run, so an interrupted run resumes without redoing work.

Two kinds of JSON lines: `call` (one successful model reply, keyed by the instance, the call's sequence number
within the instance and a digest of what was asked) and `done` (a finished dialogue, all its turns). Every
line carries the instance's content digest, so an entry is only ever used for the same instance content.

On resume, finished dialogues are taken as they are; an unfinished one is replayed: its recorded replies are
returned in order without calling any model for as long as the calls asked are the recorded ones, then it
continues live. Failed calls and dialogues that ended in a failed call are not kept, so a rerun retries them.
A line cut off by a kill is dropped from the file before anything is appended (a whole record that only lacks
its newline gets it), so a new record is never glued to a fragment. The journal lives outside DVC outputs (DVC
deletes a stage's outputs before running it), one file per run id.

A `call` line also holds the call's accounting (model, purpose, metadata), so that a resumed run's usage table
has the very rows a run from scratch writes. Lines of an older format (`VERSION`) are ignored: their calls are
asked again, from the response cache.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from steps.llm import Completion, Reply
from steps.simulate.instance import Instance
from steps.simulate.model import Dialogue, EndReason, SpeakCall, Turn, TurnKind

VERSION = 2  # 2: call lines hold their accounting


@dataclass(frozen=True)
class Recorded:
    """A journaled call: who asked, what for, the reply, and the fields of its accounting row besides the reply
    (None for a line no model spoke, e.g. a fixed opening)."""

    seq: int
    digest: str
    role: str
    purpose: str
    reply: Completion
    usage: dict[str, Any] | None = None


def _holds_failed_call(dialogue: Dialogue) -> bool:
    """A dialogue broken by a failed call, or one that went on past a failed call (e.g. a supervisor check
    that failed left a reply unreviewed): never taken as done, so a rerun replays it and asks again only the
    calls that failed (the others come from the journal and the response cache)."""
    return dialogue.ended_by is EndReason.CALL_FAILED or any(t.failure is not None for t in dialogue.turns)


def call_digest(call: SpeakCall) -> str:
    body = json.dumps([call.role.name, call.purpose, call.messages], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


class DialogueJournal(Protocol):
    """What a simulation reads and records to resume: a `Journal` (a file), or a stand-in that keeps nothing
    (`jurisflow estimate` resumes nothing and writes nothing)."""

    def finished(self, instance: Instance) -> Dialogue | None: ...

    def recorded(self, instance: Instance) -> list[Recorded]: ...

    def replay(self, instance: Instance, seq: int, digest: str) -> Recorded | None: ...

    def record_call(
        self, instance: Instance, seq: int, call: SpeakCall, reply: Reply, usage: dict[str, Any] | None = None
    ) -> None: ...

    def record_done(self, instance: Instance, dialogue: Dialogue) -> None: ...


class Journal:
    def __init__(self, path: Path):
        self.path = path
        self.calls: dict[tuple[str, str], dict[int, Recorded]] = {}  # (instance id, digest) -> seq -> call
        self.done: dict[tuple[str, str], Dialogue] = {}
        if path.is_file():
            repair_tail(path)
            self._load()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")

    def _load(self) -> None:
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
                if rec.get("v") != VERSION:
                    continue
                key = (rec["instance_id"], rec["instance"])
                if rec["type"] == "call":
                    r = Recorded(
                        rec["seq"], rec["call"], rec["role"], rec["purpose"], Completion(**rec["reply"]), rec["usage"]
                    )
                    self.calls.setdefault(key, {})[r.seq] = r
                elif rec["type"] == "done":
                    dialogue = _dialogue_from(rec["dialogue"])
                    if not _holds_failed_call(dialogue):
                        self.done[key] = dialogue
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # the last line of a killed run may be cut off

    # ------------------------------------------------------------------ reading
    def finished(self, instance: Instance) -> Dialogue | None:
        return self.done.get((instance.instance_id, instance.digest()))

    def recorded(self, instance: Instance) -> list[Recorded]:
        """The instance's journaled calls in order (for accounting when the dialogue is taken as done)."""
        calls = self.calls.get((instance.instance_id, instance.digest()), {})
        return [calls[s] for s in sorted(calls)]

    def replay(self, instance: Instance, seq: int, digest: str) -> Recorded | None:
        """Call `seq` as recorded, if the same call was recorded for the same instance content."""
        r = self.calls.get((instance.instance_id, instance.digest()), {}).get(seq)
        return r if r is not None and r.digest == digest else None

    # ------------------------------------------------------------------ writing
    def record_call(
        self, instance: Instance, seq: int, call: SpeakCall, reply: Reply, usage: dict[str, Any] | None = None
    ) -> None:
        """Record a successful reply; `usage`: the fields of its accounting row besides the reply."""
        if isinstance(reply, Completion):
            self._write(
                {
                    "type": "call",
                    "instance_id": instance.instance_id,
                    "instance": instance.digest(),
                    "seq": seq,
                    "call": call_digest(call),
                    "role": call.role.name,
                    "purpose": call.purpose,
                    "reply": asdict(reply),
                    "usage": usage,
                }
            )

    def record_done(self, instance: Instance, dialogue: Dialogue) -> None:
        self._write(
            {
                "type": "done",
                "instance_id": instance.instance_id,
                "instance": instance.digest(),
                "dialogue": _dialogue_to(dialogue),
            }
        )

    def _write(self, record: dict[str, Any]) -> None:
        self._fh.write(json.dumps({"v": VERSION, **record}, ensure_ascii=False, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def repair_tail(path: Path) -> bool:
    """Make a JSON Lines file end at a record boundary: a last line without its newline is completed when it is a
    whole JSON value, else cut off (a fragment left by a kill). Every complete record is kept; returns whether the
    file changed."""
    with path.open("rb+") as fh:
        size = fh.seek(0, 2)
        if size == 0:
            return False
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return False
        start = _last_line_start(fh, size)
        fh.seek(start)
        tail = fh.read()
        try:
            json.loads(tail)
        except ValueError:  # JSONDecodeError and UnicodeDecodeError alike: an incomplete record
            fh.truncate(start)
        else:
            fh.write(b"\n")
    return True


def _last_line_start(fh: Any, size: int, chunk: int = 1 << 16) -> int:
    """The offset just after the last newline of an open binary file (0 when it has none)."""
    end = size
    while end > 0:
        begin = max(0, end - chunk)
        fh.seek(begin)
        found = fh.read(end - begin).rfind(b"\n")
        if found >= 0:
            return begin + found + 1
        end = begin
    return 0


def _dialogue_to(d: Dialogue) -> dict[str, Any]:
    out = asdict(d)
    out["ended_by"] = d.ended_by.value if d.ended_by else None
    return out


def _dialogue_from(rec: dict[str, Any]) -> Dialogue:
    turns = [Turn(**{**t, "kind": TurnKind(t["kind"])}) for t in rec.pop("turns")]
    ended = rec.pop("ended_by")
    return Dialogue(**rec, turns=turns, ended_by=EndReason(ended) if ended else None)
