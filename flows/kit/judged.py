"""Judge answers that arrived but never parsed: the share a stage's `check_calls` (flows/kit/models.py) weighs
against `llm.max_failed_fraction` beside its failed calls.

A judged table (J1 and MILE scores, UCL-Bench verdicts and hint scores, PLawBench judgements, the extraction's
LLM fields as `steps.j1.extract.records.answer_rows` gives them) has the columns `judge`, `value`, `failure` and
`error` of `steps.schemas.judged.Judged`. Its *answers* are the rows a judge model was asked for: a model judged
them (`judge` is neither `rule` nor empty) and they hold a value or a judge failure; rows left out for another
reason (a broken dialogue, a failed agent call, nothing to compare) are not answers. An answer whose failure is
`unparsable` is one the model gave but that held no valid answer after the repair rounds: its calls succeeded, so
only this tally sees it. A frame's `attrs["source"]` says where its rows are kept (e.g. "data/j1/
extraction_issues.parquet with kind invalid"); a path is its own source. (No import from steps/ here: the kit is in
every model stage's closure.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

UNPARSABLE = "unparsable"
# the kinds of a judge's own failures (steps.judges.result.JudgeFailure; tests/judges/test_result.py checks it)
JUDGE_FAILURES = ("call_failed", UNPARSABLE, "out_of_range")
COLUMNS = ["judge", "value", "failure", "error"]
NOT_A_JUDGE = ("rule", "")


@dataclass(frozen=True)
class JudgedTally:
    """The answers of a stage's judged tables, those unparsable, the first one's error and where they are kept."""

    answers: int = 0
    unparsable: int = 0
    first_error: str = ""
    where: tuple[str, ...] = ()

    @property
    def share(self) -> float:
        return self.unparsable / self.answers if self.answers else 0.0


def answers(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of a judged table that a judge model was asked for (see the module docstring)."""
    by_model = ~table.judge.fillna("").isin(NOT_A_JUDGE)
    return table[by_model & (table.value.notna() | table.failure.isin(JUDGE_FAILURES))]


def tally(tables: Iterable[Path | pd.DataFrame]) -> JudgedTally:
    """Count the answers of `tables` (paths of judged Parquet tables, or frames) and the unparsable ones."""
    n_answers, n_unparsable, first, where = 0, 0, "", []
    for table in tables:
        frame = pd.read_parquet(table, columns=COLUMNS) if isinstance(table, Path) else table[COLUMNS]
        asked = answers(frame)
        bad = asked[asked.failure == UNPARSABLE]
        n_answers, n_unparsable = n_answers + len(asked), n_unparsable + len(bad)
        if len(bad):
            first = first or str(bad.error.iloc[0] or "")
            source = f"{table} with failure {UNPARSABLE}" if isinstance(table, Path) else table.attrs.get("source")
            where += [source] if source else []
    return JudgedTally(n_answers, n_unparsable, first, tuple(where))
