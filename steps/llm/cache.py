"""The response cache: completed calls stored by content in SQLite, outside any DVC output.

The key is a sha256 over the canonical JSON of what changes the output (model string, the endpoint when it
is a single server, messages, decoding parameters). API keys, timeouts, retry settings, concurrency and the
addresses of interchangeable replicas never enter it. Only successful completions are stored, so a rerun
repeats failed calls and replays every finished one without touching the network. SQLite in WAL mode is safe
for several processes at once; within a process all access happens on the event loop's thread.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steps.llm.config import ModelConfig

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost_usd REAL,
    latency_s REAL NOT NULL,
    created REAL NOT NULL,
    truncated INTEGER NOT NULL DEFAULT 0
)
"""
# A cache written before answers cut at max_tokens were marked: its rows were not marked (0).
ADD_TRUNCATED = "ALTER TABLE responses ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0"


def call_key(model: ModelConfig, messages: list[dict[str, Any]], metadata: dict[str, Any] | None = None) -> str:
    """Content key of a call (see the module docstring for what is in it and what is not).

    Scripted models read the call metadata (the oracle's reference answer, the persona's profile), so for
    them the metadata changes the output and enters the key; real models never see it.
    """
    body = {
        "model": model.model,
        "endpoint": model.api_base if isinstance(model.api_base, str) else None,
        "messages": messages,
        "decoding": model.decoding.as_kwargs(),
    }
    if model.is_scripted and metadata:
        body["metadata"] = metadata
    canonical = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedResponse:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    latency_s: float
    truncated: bool = False  # cut at max_tokens (finish_reason length): replayed as such


class ResponseCache:
    """A small content-keyed store of completed calls."""

    def __init__(self, directory: Path):
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "responses.sqlite"
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
        if "truncated" not in columns:
            try:
                self._db.execute(ADD_TRUNCATED)
            except sqlite3.OperationalError as err:  # another process added it first
                if "duplicate column" not in str(err):
                    raise

    def get(self, key: str) -> CachedResponse | None:
        row = self._db.execute(
            "SELECT text, prompt_tokens, completion_tokens, cost_usd, latency_s, truncated FROM responses WHERE key=?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        text, prompt_tokens, completion_tokens, cost_usd, latency_s, truncated = row
        return CachedResponse(text, prompt_tokens, completion_tokens, cost_usd, latency_s, bool(truncated))

    def put(self, key: str, model: str, response: CachedResponse) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, model, text, prompt_tokens, completion_tokens, cost_usd, latency_s,"
            " created, truncated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                model,
                response.text,
                response.prompt_tokens,
                response.completion_tokens,
                response.cost_usd,
                response.latency_s,
                time.time(),
                int(response.truncated),
            ),
        )

    def __len__(self) -> int:
        return self._db.execute("SELECT count(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self._db.close()
