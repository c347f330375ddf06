"""The response cache that travels with the artifacts: every model-calling stage writes the answers its calls got
to a shard beside its usage table (`call_cache.parquet`, a DVC output, so `dvc push` carries it), and a stage run by
DVC reads the shards dvc.lock names, from DVC's cache, below the door's SQLite cache.

So a clone that pulled the outputs replays every call for free, also when a stage is forced to run again (DVC
deletes a stage's outputs before running it, but its cache keeps the bytes dvc.lock names). The shards are found
only under DVC (`DVC_ROOT`, which `dvc repro` and `dvc exp run` set for every stage): a flow run by hand or by a
test never reads the shards of the repository it happens to run in.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from flows.kit import yaml_text
from flows.kit.paths import CALL_CACHE, call_cache_path
from steps.llm.shards import ShardLayer, shard_frame
from steps.schemas import CallCache
from steps.tables import write_table

if TYPE_CHECKING:
    from steps.llm.door import ModelDoor

READ_ATTEMPTS = 10  # reads of a dvc.lock that another process is rewriting, 0.1 s apart (see _read_lock)

log = logging.getLogger(__name__)


def write_call_cache(door: ModelDoor, usage: Path) -> Path:
    """Write the door's answers (hits included, failures never) to the shard beside the usage table `usage`."""
    path = call_cache_path(usage)
    write_table(shard_frame(door.answers), path, CallCache, table="call_cache")
    return path


def shard_layer() -> ShardLayer | None:
    """The shards of the DVC project this stage runs in (None outside `dvc repro` / `dvc exp run`), read lazily:
    the running stage's own shard first, then the others by stage name."""
    root = os.environ.get("DVC_ROOT")
    if not root:
        return None
    return ShardLayer(lambda: locked_shards(Path(root), first=os.environ.get("DVC_STAGE")))


def locked_shards(root: Path, first: str | None = None) -> list[Path]:
    """Every shard dvc.lock names, as a file that exists: DVC's cache copy (it outlives the workspace file, which
    `dvc repro` removes before it runs the stage), else the workspace file. Stage `first` leads, then by name."""
    stages = _read_lock(root / "dvc.lock").get("stages") or {}
    entries = [
        (out["path"], out.get("md5"))
        for _, stage in sorted(stages.items(), key=lambda item: (item[0] != first, item[0]))
        for out in stage.get("outs") or []
        if str(out.get("path", "")).endswith(CALL_CACHE)
    ]
    if not entries:
        return []
    cache = _dvc_cache(root)
    found = []
    for path, md5 in entries:
        candidates = ([Path(cache.oid_to_path(md5))] if md5 and cache is not None else []) + [root / path]
        found += [c for c in candidates if c.is_file()][:1]
    return found


def _read_lock(lock: Path) -> dict:
    """dvc.lock as a mapping ({} when there is none). DVC rewrites it in place (truncate, then write) when a stage
    ends, which another agent's stage may do while this one reads it (`jurisflow agents run`): a read that is empty
    or does not parse is tried again, and after READ_ATTEMPTS the shards are skipped (their calls are cache misses,
    not errors; so are those of a read cut short at a line end, which parses)."""
    problem = "is empty"
    for _ in range(READ_ATTEMPTS):
        if not lock.is_file():
            return {}
        try:
            found = yaml_text.load(lock.read_text(encoding="utf-8"))
        except (yaml.YAMLError, UnicodeDecodeError) as err:
            problem = f"does not parse: {err}"
        else:
            if isinstance(found, dict):
                return found
        time.sleep(0.1)
    log.warning("response-cache shards skipped: %s %s", lock, problem)
    return {}


def _dvc_cache(root: Path):
    """DVC's local object cache of the project at `root` (its configured `cache.dir`), or None."""
    try:
        from dvc.repo import Repo

        with Repo(str(root)) as repo:
            return repo.cache.local
    except Exception:  # not a DVC project after all, or an unreadable config: the workspace files still count
        return None


__all__ = ["call_cache_path", "locked_shards", "shard_layer", "write_call_cache"]
