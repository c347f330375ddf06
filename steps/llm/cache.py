"""The response cache: completed calls stored by content in SQLite, outside any DVC output.

The key is a sha256 over the canonical JSON of what changes the output (model string, the endpoint when it
is a single server, messages, decoding parameters, and a later repeat's index: `agents.<name>.repeats`). API keys,
timeouts, retry settings, concurrency and the addresses of interchangeable replicas never enter it. Only successful
completions are stored, so a rerun repeats failed calls and replays every finished one without touching the network.
SQLite in WAL mode is safe for several processes at once; within a process all access happens on the event loop's
thread.

Each answer is committed as it arrives, so what a stage received survives the stage. A cache that cannot be opened,
read or written raises `CacheError`: one line naming the file and the cause (read-only, disk full, not a directory
…). Against a disk that fills during a run, each open cache holds a reserve (`RESERVE_BYTES` allocated in a file
beside the database): the first write that finds the disk full frees it and stores the answer there, the cache is
then `failed` (the door sends no new call) and the answers still on their way are stored too; so a rerun after
space is freed sends only the calls that never got an answer.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
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


def call_key(
    model: ModelConfig,
    messages: list[dict[str, Any]],
    metadata: dict[str, Any] | None = None,
    response_format: dict[str, Any] | None = None,
) -> str:
    """Content key of a call (see the module docstring for what is in it and what is not).

    Scripted models read the call metadata (the oracle's reference answer, the persona's profile), so for
    them the metadata changes the output and enters the key; real models never see it. A `response_format`
    sent (constrained output) enters it too; a call without one keys as before.
    """
    body: dict[str, Any] = {
        "model": model.model,
        "endpoint": model.api_base if isinstance(model.api_base, str) else None,
        "messages": messages,
        "decoding": model.decoding.as_kwargs(),
    }
    if model.is_scripted and metadata:
        body["metadata"] = metadata
    if response_format is not None:
        body["response_format"] = response_format
    if model.repeat:  # a later repeat of an agent's run: its own calls (the first keys as a run without repeats)
        body["repeat"] = model.repeat
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


RESERVE_BYTES = 8 << 20  # set aside for the answers in flight when the disk fills (32 at once of 250 KB each)
RESERVE_PREFIX = ".reserve-"  # .reserve-<pid>-<n>: one per open cache; a killed process's is removed by the next


class CacheError(OSError):
    """The response cache cannot be opened, read or written; its message is one line naming the file and why."""


def _describe(err: BaseException) -> str:
    """An OSError as `ENOSPC: No space left on device`, anything else as its message."""
    if isinstance(err, OSError) and err.errno:
        return f"{errno.errorcode.get(err.errno, err.errno)}: {err.strerror or err}"
    return " ".join(str(err).split())


FULL = (errno.ENOSPC, errno.EDQUOT)


def _probe(directory: Path) -> OSError | None:
    """What writing a small file in `directory` raises (None when it works)."""
    probe = directory / f".probe-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        try:
            os.write(fd, bytes(4096))
        finally:
            os.close(fd)
            probe.unlink()
    except OSError as err:
        with contextlib.suppress(OSError):
            probe.unlink(missing_ok=True)
        return err
    return None


def _disk_full(directory: Path, err: BaseException) -> bool:
    """SQLite's "database or disk is full", or an I/O error where a small file cannot be written for want of space."""
    name = getattr(err, "sqlite_errorname", "")
    if name == "SQLITE_FULL":
        return True
    return name.startswith("SQLITE_IOERR") and getattr(_probe(directory), "errno", None) in FULL


def describe_failure(directory: Path, err: BaseException) -> str:
    """Why the cache in `directory` failed: the disk is full, else what writing a small file there says (a
    read-only file system, no permission, not a directory ...), else SQLite's own message (a corrupt file ...)."""
    if isinstance(err, OSError):
        return _describe(err)
    if _disk_full(directory, err):
        return f"disk full: {_free(directory)} free"
    probed = _probe(directory)
    return _describe(probed) if probed is not None else f"SQLite: {_describe(err)}"


def _free(directory: Path) -> str:
    try:
        return f"{shutil.disk_usage(directory).free:,} bytes"
    except OSError:
        return "unknown bytes"


class ResponseCache:
    """A small content-keyed store of completed calls."""

    def __init__(self, directory: Path):
        self.path = directory / "responses.sqlite"
        self.failed: CacheError | None = None  # set once a write needed the reserve: send no new call
        self._reserve: Path | None = None
        try:
            directory.mkdir(parents=True, exist_ok=True)
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
        except (sqlite3.Error, OSError) as err:
            raise self._error("cannot open", err) from None
        self._reserve = _set_aside(directory)

    def get(self, key: str) -> CachedResponse | None:
        try:
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens, cost_usd, latency_s, truncated"
                " FROM responses WHERE key = ?",
                (key,),
            ).fetchone()
        except sqlite3.Error as err:
            raise self._error("cannot read", err) from None
        if row is None:
            return None
        text, prompt_tokens, completion_tokens, cost_usd, latency_s, truncated = row
        return CachedResponse(text, prompt_tokens, completion_tokens, cost_usd, latency_s, bool(truncated))

    def put(self, key: str, model: str, response: CachedResponse) -> None:
        """Store an answer, committed at once. A full disk frees the reserve for it and marks the cache `failed`;
        CacheError when it cannot be stored."""
        try:
            self._insert(key, model, response)
        except sqlite3.Error as err:
            if not (_disk_full(self.path.parent, err) and self._reserve is not None):
                raise self._error("cannot write", err) from None
            self.failed = self._error("cannot write", err, stored=True)  # the free space before the reserve goes
            self._release()
            try:
                self._insert(key, model, response)
            except sqlite3.Error as again:
                raise self._error("cannot write", again) from None

    def _insert(self, key: str, model: str, response: CachedResponse) -> None:
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

    def _error(self, doing: str, err: BaseException, *, stored: bool = False) -> CacheError:
        if doing == "cannot open":
            what = "no call was sent"
        elif stored:
            what = "every answer received is stored, no new call is sent"
        else:
            what = "the answers received before are stored"
        cause = describe_failure(self.path.parent, err)
        return CacheError(
            f"response cache {self.path}: {doing} ({cause}); {what}: free space or make it writable (or set "
            f"llm.cache_dir), then rerun"
        )

    def _release(self) -> None:
        """Free the reserve."""
        reserve, self._reserve = self._reserve, None
        if reserve is not None:
            with contextlib.suppress(OSError):
                reserve.unlink(missing_ok=True)

    def __len__(self) -> int:
        return self._db.execute("SELECT count(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self._release()
        self._db.close()


_opened = 0  # caches opened by this process: each reserve file has its own name


def _set_aside(directory: Path) -> Path | None:
    """Allocate this cache's reserve beside the database (None when the disk cannot spare it), and remove the
    reserves that processes no longer running left behind (a killed stage)."""
    global _opened
    for old in directory.glob(f"{RESERVE_PREFIX}*"):
        pid = old.name.removeprefix(RESERVE_PREFIX).split("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                old.unlink(missing_ok=True)
    _opened += 1
    path = directory / f"{RESERVE_PREFIX}{os.getpid()}-{_opened}"
    try:
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        try:
            os.posix_fallocate(fd, 0, RESERVE_BYTES)
        finally:
            os.close(fd)
    except OSError:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        return None
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
