"""A stage's model session (`model_session`: the door for its run id, its resume journal, its accounting rows and
response-cache shard written next to its outputs, everything closed), and ending a stage whose calls failed or
whose judge's answers did not parse (`check_calls`: the one place that decides it)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from flows.kit.call_cache import shard_layer, write_call_cache
from flows.kit.config import Params
from flows.kit.judged import UNPARSABLE
from flows.kit.judged import tally as judged_tally
from flows.kit.stage import CallsFailed, console
from steps.llm import ModelConfig
from steps.llm.ledger import SESSION_ENV
from steps.llm.results import CONTEXT_REMEDY, TRANSIENT, FailureKind, rerun_note
from steps.llm.secrets import check_api_keys
from steps.schemas import ModelUsage, UsageLog
from steps.tables import write_table

if TYPE_CHECKING:
    from steps.llm.door import ModelDoor
    from steps.simulate.journal import Journal


def open_door(params: Params, run_id: str, models: Iterable[ModelConfig] = ()) -> ModelDoor:
    """The door for one flow run, its calls counted by the stage's progress. Every model in `models` whose
    `api_key_env` variable is unset is named in one MissingApiKeyError before anything runs (the door itself also
    refuses, before any request, a model whose key it lacks)."""
    check_api_keys(models)
    from flows.kit.progress import began, observe_calls
    from steps.llm.door import ModelDoor  # litellm (3 s of CPU to import) loads only in stages that call models

    door = ModelDoor(params.llm, run_id=run_id, cache_dir=Path(params.llm.cache_dir), shards=shard_layer())
    door.observers.append(observe_calls)  # the stage's progress counts its calls and tokens
    door.starters.append(began)  # and knows when a group's first call starts (its Prefect task run: Running)
    return door


@dataclass(frozen=True)
class ModelSession:
    """What a stage's model calls go through: the door, and the run's resume journal (dialogue stages)."""

    door: ModelDoor
    journal: Journal | None = None

    @property
    def calls(self) -> int:
        """Calls made so far (cache hits and failures included)."""
        return len(self.door.usage)

    @property
    def hits(self) -> int:
        """Calls answered from the response cache (or replayed from the journal)."""
        return sum(u.cache_hit for u in self.door.usage)

    def usage(self) -> pd.DataFrame:
        """The calls so far as the tracked usage table."""
        return usage_frame(self.door)


@contextmanager
def model_session(
    params: Params,
    run_id: str,
    *,
    usage: Path | None = None,
    journal: Path | None = None,
    models: Iterable[ModelConfig] = (),
) -> Iterator[ModelSession]:
    """The model door for one run (`open_door`) and, when `journal` names one, the run's resume journal. When
    the block ends without an error the door's accounting rows are written to `usage` (the tracked table, and
    the usage log: `write_usage`); the journal and the door are closed however it ends. A stage writes its
    run.json after the block and calls `check_calls` once every output is written."""
    door = open_door(params, run_id, models)
    log = None
    try:
        if journal is not None:
            from steps.simulate.journal import Journal

            log = Journal(journal)
        yield ModelSession(door, log)
        if usage is not None:
            write_usage(door, usage)
    finally:
        if log is not None:
            log.close()
        door.close()


TRACKED = list(ModelUsage.to_schema().columns)
USAGE_LOG = "usage"  # <llm.cache_dir>/usage/: one Parquet file per usage table written, never a DVC output


def usage_frame(door: ModelDoor) -> pd.DataFrame:
    """The door's accounting rows as the tracked usage table: only the columns a fresh run writes alike, in a fixed
    order (calls finish in any order), so a warm rerun writes the same bytes as a cold one."""
    df = _records(door)[TRACKED]
    return df.sort_values(TRACKED, kind="mergesort", na_position="first").reset_index(drop=True)


def write_usage(door: ModelDoor, path: Path) -> pd.DataFrame:
    """Write one accounting row per call (hits and failures included) to `path`, the tracked usage table, the
    answers to the stage's response-cache shard beside it (flows/kit/call_cache.py), and the rows with their latency,
    attempts and cache hits to the usage log (`usage_log_dir`)."""
    tracked = write_table(usage_frame(door), path, ModelUsage, table="model_usage")
    write_call_cache(door, path)
    log_usage(door, path)
    return tracked


def usage_log_dir(cache_dir: Path) -> Path:
    return Path(cache_dir) / USAGE_LOG


def log_usage(door: ModelDoor, table: Path) -> Path:
    """Append the door's rows, history included, to the usage log: `<cache_dir>/usage/<time>-<table>.parquet`
    (`usage_table`: the tracked table's absolute path).
    Read it with DuckDB, e.g. `SELECT usage_table, sum(latency_s) FROM '.cache/llm/usage/*.parquet' GROUP BY 1`."""
    now = datetime.now(UTC)
    stamp = now.isoformat(timespec="microseconds")
    df = _records(door).assign(usage_table=str(Path(table).resolve()), written_at=stamp)
    slug = re.sub(r"[^A-Za-z0-9]+", "_", str(table)).strip("_")[-120:]
    out = usage_log_dir(door.cache_dir) / f"{now:%Y%m%dT%H%M%S%fZ}-{slug}.parquet"
    write_table(df, out, UsageLog, table="model_usage_log")
    return out


def read_usage_log(cache_dir: Path, table: Path | None = None, *, last: bool = False) -> pd.DataFrame:
    """Every logged row (oldest first), or those of one usage table (`last`: only its latest write); empty when
    nothing was logged."""
    files = sorted(usage_log_dir(cache_dir).glob("*.parquet"))
    columns = list(UsageLog.to_schema().columns)
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True) if files else pd.DataFrame(columns=columns)
    if table is not None:
        df = df[df.usage_table == str(Path(table).resolve())]
    if last and len(df):
        df = df[df.written_at == df.written_at.max()]
    return df.reset_index(drop=True)


def _records(door: ModelDoor) -> pd.DataFrame:
    rows = door.usage_records()
    columns = [*TRACKED, "latency_s", "attempts", "cache_hit"]
    df = pd.DataFrame(rows, columns=columns) if rows else pd.DataFrame(columns=columns)
    df["metadata"] = [_json(m) for m in df["metadata"]]
    return df


def check_calls(
    params: Params,
    *usage: Path | pd.DataFrame,
    judged: Iterable[Path | pd.DataFrame] = (),
    limits: Iterable[str] = (),
) -> None:
    """End a stage whose model calls still failed after retries, or whose judge's answers did not parse; call it
    once every output is written.

    `usage` are the stage's usage tables (paths, or frames when nothing was written): their rows with a
    `failure_kind` are the stage's failure table. The failed fraction is over those rows, i.e. over the calls
    the stage made (cache hits included). `judged` are a judge stage's judged tables (flows/kit/judged.py): their
    unparsable answers (received, but no valid answer after the repair rounds) are tallied as the kind
    `unparsable`, as a fraction of the answers. `limits` are the call keys of the agent's calls that outgrew its
    context and ended their dialogues (`context_exceeded`, steps/simulate/records.py: `context_limit_keys`): the
    model's limit, said in one line and never a failed call. Above `llm.max_failed_fraction` (either fraction), or
    when every call failed, this raises `CallsFailed` (exit 1, DVC does not lock the stage); at or below it, the
    accepted counts are printed. The message says, per kind, whether a rerun asks again or what to change first.
    """
    columns = ["call_key", "failure_kind", "failure_message"]
    frames = [pd.read_parquet(u, columns=columns) if isinstance(u, Path) else u.reindex(columns=columns) for u in usage]
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    at_limit = rows.failure_kind.eq(FailureKind.CONTEXT_EXCEEDED.value) & rows.call_key.isin(set(limits))
    if at_limit.any():
        console.print(
            f"[yellow]model's limit[/]: {int(at_limit.sum())} of the agent's calls were longer than its context and "
            f"ended their dialogues ({FailureKind.CONTEXT_EXCEEDED.value}; not failed calls: a rerun ends them the "
            f"same way); to let them go on, give {CONTEXT_REMEDY}",
            soft_wrap=True,
        )
    rows = rows.assign(failure_kind=rows.failure_kind.mask(at_limit))
    verdicts = judged_tally(judged)
    if rows.failure_kind.isna().all() and not verdicts.unparsable:
        return
    failed = rows[rows.failure_kind.notna()]
    by_kind = {str(k): int(n) for k, n in failed.failure_kind.value_counts().sort_index().items()}
    n_failed, n_calls = len(failed), len(rows)
    fraction, tolerance = n_failed / n_calls if n_calls else 0.0, params.llm.max_failed_fraction
    kinds = ", ".join(f"{k} {n}" for k, n in by_kind.items())
    heads = [f"{n_failed} of {n_calls} model calls failed after retries ({kinds}; {fraction:.1%})"] if n_failed else []
    if verdicts.unparsable:
        by_kind[UNPARSABLE] = verdicts.unparsable
        heads.append(
            f"{verdicts.unparsable} of {verdicts.answers} judge answers unparsable after the repair rounds "
            f"({verdicts.share:.1%})"
        )
    head = "; ".join(heads)
    every = n_failed == n_calls > 0
    if not every and fraction <= tolerance and verdicts.share <= tolerance:
        console.print(f"[yellow]accepted[/]: {head} ≤ llm.max_failed_fraction {tolerance}", soft_wrap=True)
        return
    where = ", ".join(str(u) for u in usage if isinstance(u, Path)) or "the usage records"
    if "budget" in by_kind:  # the cap stopped the stage: the work not started is the `budget` rows
        cap = f"llm.budget_usd {params.llm.budget_usd:g} reached" + (
            " by this run's stages together" if os.environ.get(SESSION_ENV) else ""
        )
        raise CallsFailed(
            f"{cap}: {by_kind['budget']} of {n_calls} model calls not "
            f"sent ({kinds}); outputs written with those rows marked (rows of {where} with failure_kind budget); "
            f"finished calls are cached, so a rerun with a higher llm.budget_usd sends only the rest",
            by_kind,
            n_calls,
        )
    rule = "every call failed" if every else f"> llm.max_failed_fraction {tolerance}"
    tails = []
    if n_failed:
        first = str(failed.failure_message.iloc[0] or "")[:160]
        tails.append(f"the failed calls are the rows of {where} with a failure_kind (first: {first})")
        tails += rerun_notes([k for k in by_kind if k != UNPARSABLE])
    if verdicts.unparsable:
        tables = ", ".join(verdicts.where) or "the judged rows with failure unparsable"
        tails.append(
            f"the unparsable answers are the rows of {tables} (first: "
            f"{verdicts.first_error[:160]}); they are cached, so a rerun gets the same answers: judge with another "
            f"model or raise llm.max_failed_fraction"
        )
    raise CallsFailed(f"{head}, {rule}; outputs written, {'; '.join(tails)}", by_kind, n_calls)


def rerun_notes(kinds: Iterable[str]) -> list[str]:
    """What a rerun does about the failed calls of these kinds: asks again only those of a transient kind (the
    others come from the response cache); a kind that a rerun meets again is named with what to change first."""
    known = {k.value: k for k in FailureKind}
    transient = [k for k in kinds if k not in known or known[k] in TRANSIENT]
    lasting = [known[k] for k in kinds if k in known and known[k] not in TRANSIENT]
    notes = [f"a rerun asks again only the failed calls ({', '.join(transient)} may pass then)"] if transient else []
    notes += [f"{k.value}: {rerun_note(k)}" for k in lasting]
    return notes


def _json(value: object) -> str:
    import json

    return json.dumps(value or {}, ensure_ascii=False, sort_keys=True)
