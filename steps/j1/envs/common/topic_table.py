"""The table of KQ and LC topic sources (stage `j1_topics`), one row per source, from LawBench items."""

from __future__ import annotations

import pandas as pd

from steps.j1.envs.common.identities import client_name, occupation_for
from steps.j1.envs.common.topics import TopicSource, kq_from_articles, kq_from_choices, lc_from_consultations
from steps.j1.params import TopicsParams

COLUMNS = [
    "scenario",
    "source_id",
    "theme",
    "background",
    "occupation",
    "client_name",
    "topics",
    "derivation",
    "items",
    "method",
]


def topic_sources(items: pd.DataFrame, *, articles_per_instance: int) -> list[TopicSource]:
    """Every KQ and LC topic source the LawBench items give (zero-shot rows of tasks 1-1, 1-2 and 3-8)."""
    zero = items[items.setting == "zero_shot"].sort_values(["task", "idx"], kind="stable")
    rows = {task: zero[zero.task == task].to_dict("records") for task in ("1-1", "1-2", "3-8")}
    return [
        *kq_from_choices(rows["1-2"]),
        *kq_from_articles(rows["1-1"], per_instance=articles_per_instance),
        *lc_from_consultations(rows["3-8"]),
    ]


def derive_topics(items: pd.DataFrame, topics: TopicsParams) -> pd.DataFrame:
    """Stage `j1_topics`'s rows before any model call: the topic sources of the LawBench items, derived by rule."""
    return topic_rows(topic_sources(items, articles_per_instance=topics.articles_per_instance), seed=topics.seed)


def topic_rows(sources: list[TopicSource], *, seed: int, method: str = "derived") -> pd.DataFrame:
    """Rows of topics.parquet: each source with the lay client's identity (seeded) and its topics."""
    rows = []
    for s in sources:
        key = f"{s.scenario}/{s.source_id}"
        rows.append(
            {
                "scenario": s.scenario,
                "source_id": s.source_id,
                "theme": s.theme,
                "background": s.background or None,
                "occupation": occupation_for(s.theme, seed=seed, key=key) if s.scenario == "KQ" else None,
                "client_name": client_name(seed=seed, key=key) if s.scenario == "LC" else None,
                "topics": [t.as_dict() for t in s.topics],
                "derivation": s.derivation,
                "items": list(s.items),
                "method": method,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)
