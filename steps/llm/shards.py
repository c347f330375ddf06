"""Response-cache shards: the answers one stage's calls got, as a table, and a read-only lookup over many of them.

A stage writes its shard beside its outputs (a DVC output, so `dvc push` carries it to the remote and `dvc pull`
brings it to another clone). A shard row is what the SQLite cache stores for a call less what depends on how it
ran (latency, when it was stored): call key, model, text, tokens, cost, whether it was cut at max_tokens. Rows
are unique by key and sorted by it, so a warm rerun writes the same bytes as a cold one. The key is the call's
content (model, endpoint, messages, decoding), so shards from different machines never clash: one key is one
request.

`ShardLayer` answers lookups from the shards a callable lists, below the door's SQLite cache: nothing is read
until the first lookup, then only the key column of every shard (the index), and a shard's other columns once one
of its keys is asked for. When two shards hold one key, the first listed wins.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pandas as pd

from steps.llm.cache import CachedResponse

COLUMNS = ["call_key", "model", "text", "prompt_tokens", "completion_tokens", "cost_usd", "truncated"]

log = logging.getLogger(__name__)


def shard_frame(answers: Mapping[str, tuple[str, CachedResponse]]) -> pd.DataFrame:
    """One row per call key (`answers`: key → (model string, answer)), sorted by key."""
    rows = [
        (key, model, a.text, a.prompt_tokens, a.completion_tokens, a.cost_usd, a.truncated)
        for key, (model, a) in sorted(answers.items())
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


class ShardLayer:
    """Read-only answers by call key from the shards `locate()` lists (called once, at the first lookup)."""

    def __init__(self, locate: Callable[[], Iterable[Path]]):
        self._locate = locate
        self._index: dict[str, Path] | None = None
        self._loaded: dict[Path, dict[str, tuple[str, CachedResponse]]] = {}
        self.hits = 0

    def get(self, key: str) -> tuple[str, CachedResponse] | None:
        """(model string, answer) for `key`, or None when no shard holds it."""
        if self._index is None:
            self._index = self._build_index()
        path = self._index.get(key)
        if path is None:
            return None
        if path not in self._loaded:
            self._loaded[path] = _read(path)
        found = self._loaded[path].get(key)
        self.hits += found is not None
        return found

    def __len__(self) -> int:
        if self._index is None:
            self._index = self._build_index()
        return len(self._index)

    def _build_index(self) -> dict[str, Path]:
        import pyarrow.parquet as pq

        index: dict[str, Path] = {}
        for path in self._locate():
            try:
                keys = pq.read_table(path, columns=["call_key"]).column("call_key").to_pylist()
            except (OSError, ValueError, KeyError) as err:  # an unreadable shard is a cache miss, not an error
                log.warning("response-cache shard %s skipped: %s", path, err)
                continue
            for key in keys:
                index.setdefault(key, path)
        return index


def _read(path: Path) -> dict[str, tuple[str, CachedResponse]]:
    import pyarrow.parquet as pq

    present = set(pq.read_schema(path).names)
    df = pd.read_parquet(path, columns=[c for c in COLUMNS if c in present])
    if "truncated" not in df:  # a shard written before answers cut at max_tokens were marked
        df["truncated"] = False
    return {
        r.call_key: (
            r.model,
            CachedResponse(
                r.text,
                int(r.prompt_tokens),
                int(r.completion_tokens),
                None if pd.isna(r.cost_usd) else float(r.cost_usd),
                0.0,
                bool(r.truncated),
            ),
        )
        for r in df.itertuples(index=False)
    }
