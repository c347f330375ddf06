"""Small, dependency-free Markdown table rendering, and the cells of report tables."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd


def _cell(value: object, total_label: str, grouping: int = 10000) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return total_label
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= grouping else str(value)
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(df: pd.DataFrame, *, null: str = "—", grouping: int = 10000) -> str:
    """Render a DataFrame as a GitHub-flavoured Markdown table; nulls become `null`; integers from `grouping` up
    get thousands separators."""
    header = "| " + " | ".join(str(c) for c in df.columns) + " |"
    align = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    rows = [
        "| " + " | ".join(_cell(v, null, grouping) for v in row) + " |" for row in df.itertuples(index=False, name=None)
    ]
    return "\n".join([header, align, *rows])


def _count(n: float | None) -> int:
    return 0 if n is None or n is pd.NA or (isinstance(n, float) and math.isnan(n)) else int(n)


def with_failed(value: object, n_failed: float | None, *, unparsable: float | None = None, null: str = "—") -> object:
    """A table cell with the failed model calls it leaves out beside it (`71.2 (3 failed)`), and the judge answers
    that did not parse (`— (3 unparsable)`, `71.2 (1 failed, 2 unparsable)`); the value itself, untouched, when
    there are neither (so a report without failures renders exactly as before)."""
    counts = [f"{n} {what}" for n, what in ((_count(n_failed), "failed"), (_count(unparsable), "unparsable")) if n]
    return f"{_cell(value, null)} ({', '.join(counts)})" if counts else value


LABELS_RULE = (
    "`[scripted]` after an agent: a scripted stand-in touched its numbers in that table (the agent itself, or the "
    "environment, judge or reference model those numbers use), so they check the pipeline and do not measure a "
    "model; `[limit N]`: its run had only the first N items, so its numbers are not comparable with a full run's; "
    "then the protocol label: `[paper protocol]`, or how the run differs from the paper's setting (role models and "
    "decoding, settings, data size, caveats; docs/evaluate.md), so a number beside the paper's says whether it is "
    "comparable (`jurisflow results`, `jurisflow eval` and the HTML report label the same numbers the same way)"
)

CONTENT_FILTER_RULE = (
    "a content-filter refusal (the provider withheld or cut the completion, whatever text came with it) is a failed "
    "call of kind `content_filter` and counts like any other; a refusal in words is an answer and is scored"
)


_EMPTIED = -1.0  # a stand-in no reported number takes (rates, scores and counts are ≥ 0)


def value_pivot(part: pd.DataFrame, index: list[str], columns: str, *, sort: bool = False) -> pd.DataFrame:
    """Long rows' `value` as index × columns (the first per cell), like `pivot_table`, except that a number that
    unparsable judge answers left empty (`n_unparsable` > 0) keeps its row and column, with no value, so that
    the report can show its count beside `—` instead of dropping it."""
    lost = part.n_unparsable.fillna(0).gt(0) if "n_unparsable" in part else pd.Series(False, index=part.index)
    kept = part.assign(value=part.value.astype(float).where(part.value.notna() | ~lost, _EMPTIED))
    wide = kept.pivot_table(index=index, columns=columns, values="value", aggfunc="first", sort=sort)
    return wide.mask(wide == _EMPTIED)


TRUNCATED_RULE = (
    "kept and scored as they are, marked `truncated` in the usage, prediction, turn and judged tables; a cut reply "
    "that holds no answer once its reasoning is removed is a failed call of kind `truncated` (docs/failures.md)"
)


def truncated_note(truncated: Mapping[str, Mapping[str, int]]) -> str:
    """One sentence counting the replies cut at max_tokens: `truncated` maps each agent to its counts by purpose
    (agent, dialogue, judge …; `AgentInfo.truncated`)."""
    total = {name: sum(by_purpose.values()) for name, by_purpose in truncated.items()}
    if not any(total.values()):
        return f"No reply was cut at max_tokens; replies cut there are {TRUNCATED_RULE}."
    counts = ", ".join(
        f"`{name}` {n}" + (f" ({', '.join(f'{p} {k}' for p, k in sorted(truncated[name].items()) if k)})" if n else "")
        for name, n in total.items()
    )
    return f"Replies cut at max_tokens, by agent (and purpose): {counts}; they are {TRUNCATED_RULE}."


def with_interval(value: object, half: float | None, digits: int = 2) -> object:
    """A table cell with its 95 % interval's half-width, `71.2 ± 3.1` (both rounded to `digits` places); the
    value untouched where there is no interval (None or NaN half-width) or no value."""
    if half is None or (isinstance(half, float) and math.isnan(half)) or not isinstance(value, int | float):
        return value
    if isinstance(value, float) and math.isnan(value):
        return value
    return f"{_cell(round(float(value), digits), '—')} ± {_cell(round(float(half), digits), '—')}"
