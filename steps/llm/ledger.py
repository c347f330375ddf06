"""What the stages of one run have spent together, so that `llm.budget_usd` caps a whole run, not each stage.

A run (`make run`, `python -m flows.pipeline`, `jurisflow eval`, `jurisflow agents run`) sets `JURISFLOW_RUN_SESSION`
to a fresh id in the environment of the `dvc repro` commands it starts, and so of every stage process. Each stage's
door adds the cost of its new answers to one SQLite file beside the response cache, `<llm.cache_dir>/spend.sqlite`,
under that session id and the stage's run id, and reads the session's total before each call it would send. SQLite
serialises the writers of several processes, and each write is one upsert, so stages running at once share the cap.
Without the variable (a stage run alone) there is no ledger and the door caps its own spend, as before. A new session
starts at 0: a rerun pays only for the calls the response cache does not hold.
"""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from pathlib import Path

SESSION_ENV = "JURISFLOW_RUN_SESSION"
FILE = "spend.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS spend (
    session TEXT NOT NULL,
    run_id TEXT NOT NULL,
    usd REAL NOT NULL,
    calls INTEGER NOT NULL,
    updated REAL NOT NULL,
    PRIMARY KEY (session, run_id)
)
"""


def session_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """`environ` (default os.environ) with a run session id: the one already set (a caller sharing its cap across
    several commands), else a fresh one. Give it to the `dvc repro` that runs the stages."""
    env = dict(os.environ if environ is None else environ)
    if not env.get(SESSION_ENV):
        env[SESSION_ENV] = uuid.uuid4().hex
    return env


class SpendLedger:
    """The spend of one run session, per stage run, in a file several processes share."""

    def __init__(self, directory: Path, session: str):
        from steps.llm.cache import CacheError, describe_failure

        self.session = session
        self.path = directory / FILE
        try:
            directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(SCHEMA)
        except (sqlite3.Error, OSError) as err:
            cause = describe_failure(directory, err)
            raise CacheError(f"spend ledger {self.path}: cannot open ({cause}); no call was sent") from None

    @classmethod
    def of_session(cls, directory: Path) -> SpendLedger | None:
        """The ledger of the session named in the environment, or None when no run session is set."""
        session = os.environ.get(SESSION_ENV, "").strip()
        return cls(directory, session) if session else None

    def spent(self) -> float:
        """What every stage of the session has spent so far (USD)."""
        row = self._db.execute("SELECT coalesce(sum(usd), 0) FROM spend WHERE session = ?", (self.session,)).fetchone()
        return float(row[0])

    def add(self, run_id: str, usd: float) -> None:
        """Count one new answer of stage run `run_id` that cost `usd`."""
        self._db.execute(
            "INSERT INTO spend VALUES (?, ?, ?, 1, ?) ON CONFLICT (session, run_id) DO UPDATE SET "
            "usd = usd + excluded.usd, calls = calls + 1, updated = excluded.updated",
            (self.session, run_id, usd, time.time()),
        )

    def close(self) -> None:
        self._db.close()
