"""Stage `j1_topics`: KQ and LC topic lists (⟨topic, answer⟩, binary or open) from LawBench Q&A items.

dvc.yaml → this flow → steps.j1.envs.common.topic_table (the rules of steps.j1.envs.common.topics; with
`j1.topics.method: llm`, steps.j1.envs.common.topic_model through the model door). Writes data/j1/topics.parquet
(+ topics_usage.parquet, the model calls).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import PARAMS_FILE, Params, load_params
from flows.kit.models import check_calls, model_session
from flows.kit.paths import PATHS, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.j1.envs.common.topic_model import PROMPT_VERSION, rewrite_sources
from steps.j1.envs.common.topic_table import derive_topics
from steps.j1.envs.schemas import TopicSources, topics_arrow_types
from steps.j1.params import J1Params
from steps.lawbench.sources import LawBenchItems
from steps.runs import run_id, run_spec
from steps.tables import read_table, write_table

USAGE = "topics_usage.parquet"  # in data/j1/


@task(cache_policy=NO_CACHE)
def derive(items: pd.DataFrame, params: Params) -> pd.DataFrame:
    return derive_topics(items, params.section(J1Params).topics)


@task(cache_policy=NO_CACHE)
def rewrite(rows: pd.DataFrame, items: pd.DataFrame, params: Params, usage: Path) -> tuple[pd.DataFrame, int]:
    """J1's procedure: the environment model turns each source into a topic list (failures keep no row).

    With `derived`, no model is called and the accounting table is written empty."""
    topics = params.section(J1Params).topics
    model = params.environment_model()
    rid, failed = run_id(run_spec(model, "topics", prompt_version=PROMPT_VERSION)), 0
    with model_session(params, rid, usage=usage) as session:
        if topics.method == "llm":
            total = len(rows) if topics.llm_limit is None else 2 * topics.llm_limit
            with counter(f"topics ({model.model})", min(total, len(rows))) as advance:
                rows, failed = asyncio.run(
                    rewrite_sources(
                        session.door,
                        model,
                        rows,
                        items,
                        limit=topics.llm_limit,
                        seed=topics.seed,
                        on_done=advance,
                    )
                )
    return rows, failed


@stage_flow
def j1_topics(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The KQ and LC topic lists."""
    params = load_params(params_file)
    out_dir = paths.shared("j1")
    items = read_table(paths.interim / "lawbench_items.parquet", LawBenchItems)
    rows, failed = rewrite(derive(items, params), items, params, out_dir / USAGE)
    valid = write_table(
        rows, out_dir / "topics.parquet", TopicSources, table="topics", arrow_types=topics_arrow_types()
    )
    check_calls(params, out_dir / USAGE)
    kinds = pd.Series([t["kind"] for ts in valid.topics for t in ts]).value_counts()
    per, method = valid.scenario.value_counts(), params.section(J1Params).topics.method
    return (
        f"{len(valid):,} topic sources done (KQ {per.get('KQ', 0)}, LC {per.get('LC', 0)}; "
        f"{method}), 0 skipped, {failed} failed; topics: {kinds.get('binary', 0):,} binary, "
        f"{kinds.get('open_statute', 0):,} statute, {kinds.get('open_phrase', 0):,} phrase"
    )


if __name__ == "__main__":
    main(j1_topics)
