"""LawBench's HTML page (its registration's `page`): one chart of the score per task for each setting."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd


def charts(df: pd.DataFrame, chart: Callable[..., str]) -> list[str]:
    scope = lambda r: r.scope  # noqa: E731
    out = []
    for setting in ("zero_shot", "one_shot"):
        tasks = list(dict.fromkeys(df[df.table == setting].scope.dropna()))
        out.append(chart(f"LawBench {setting.replace('_', '-')} score per task", setting, tasks, scope, metric="score"))
    return out
