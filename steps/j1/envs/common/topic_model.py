"""J1's own topic procedure (spec j1-envs §3.4): the environment model reads a source and writes the topics.

Used when `topics.method` is `llm`. The model gets the source material (a LawBench question with its answer,
or a 66law.cn consultation) and returns, as JSON, the lay client's occupation (KQ) or background (LC), the
theme and 2–6 ⟨topic, kind, answer⟩ pairs in order; a statute answer must cite at least one provision the
extraction parser can read. A source whose answer never validates is dropped and counted. The scripted
environment model answers with the rule-derived list (steps/j1/envs/common/topics.py), so the path runs offline.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from steps.j1.extract.statutes import find_statutes
from steps.llm import Completer, ModelConfig, ScriptedRequest, register_policy
from steps.llm.structured import complete_json
from steps.simulate.templates import render

PROMPT_VERSION = 1
SCENARIO = "j1.topics"
TEMPLATES = Path(__file__).parent / "templates"
Text = Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]


class TopicAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    topic: Text
    kind: Literal["binary", "open_statute", "open_phrase"]
    answer: Text

    @model_validator(mode="after")
    def _answer_fits_kind(self) -> TopicAnswer:
        if self.kind == "binary" and self.answer not in ("是", "否"):
            raise ValueError(f"a binary topic's answer must be 是 or 否, not {self.answer!r}")
        if self.kind == "open_statute" and not find_statutes(self.answer)[0]:
            raise ValueError(f"no provision (《法律》第X条) readable in {self.answer!r}")
        return self


class TopicsAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    theme: Text
    occupation: str | None = None
    background: str | None = None
    topics: Annotated[list[TopicAnswer], Field(min_length=2, max_length=6)]


def _material(row: dict[str, Any], items: dict[str, dict]) -> str:
    parts = [f"问：{items[i]['question']}\n答：{items[i]['answer']}" for i in row["items"] if i in items]
    return "\n\n".join(parts)


def _row(row: dict[str, Any], answer: TopicsAnswer) -> dict[str, Any]:
    topics = []
    for t in answer.topics:
        found = find_statutes(t.answer)[0] if t.kind == "open_statute" else []
        laws = list(dict.fromkeys((s.law.strip("《》"), s.article) for _, s in found))
        topics.append(
            {
                "topic": t.topic,
                "kind": t.kind,
                "answer": t.answer,
                "statutes": [{"law": law, "article": a, "sub_article": None} for law, a in laws],
            }
        )
    lay = {"occupation": answer.occupation} if row["scenario"] == "KQ" else {"background": answer.background}
    return {**row, **lay, "theme": answer.theme, "topics": topics, "method": "llm"}


def _derived(row: dict[str, Any]) -> str:
    """The rule-derived fields the scripted model answers with, as JSON. KQ and LC rows share one frame, so a lay
    field the row's scenario lacks is NaN there: it is null here (NaN is no valid answer, and every source would be
    dropped)."""
    fields = {k: row[k] for k in ("theme", "occupation", "background", "topics")}
    plain = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in fields.items()}
    return json.dumps(plain, ensure_ascii=False, default=str)


def _ranked(rows: pd.DataFrame, limit: int | None, seed: int) -> pd.DataFrame:
    key = rows.scenario + "/" + rows.source_id
    order = key.map(lambda k: hashlib.sha256(f"{seed}\x1f{k}".encode()).hexdigest())
    ranked = rows.assign(_rank=order).sort_values(["scenario", "_rank"], kind="stable")
    if limit is not None:
        ranked = ranked.groupby("scenario", sort=False).head(limit)
    return ranked.drop(columns="_rank").reset_index(drop=True)


async def rewrite_sources(
    door: Completer,
    model: ModelConfig,
    rows: pd.DataFrame,
    items: pd.DataFrame,
    *,
    limit: int | None,
    seed: int,
    on_done: Callable[..., None] | None = None,
) -> tuple[pd.DataFrame, int]:
    """The topic sources as the model writes them (the first `limit` per scenario by seeded rank)."""
    by_id = {r["item_id"]: r for r in items.to_dict("records")}
    chosen = _ranked(rows, limit, seed).to_dict("records")

    async def one(row: dict[str, Any]) -> dict[str, Any] | None:
        prompt = render(TEMPLATES, "topics.j2", {"scenario": row["scenario"], "material": _material(row, by_id)})
        meta = {
            "scenario": SCENARIO,
            "instance_id": f"{row['scenario']}/{row['source_id']}",
            "derived": _derived(row),
        }
        answer = await complete_json(
            door, model, [{"role": "user", "content": prompt}], TopicsAnswer, purpose="environment", metadata=meta
        )
        if on_done is not None:
            on_done()
        value = answer.value
        if value is None or not (value.occupation if row["scenario"] == "KQ" else value.background):
            return None  # no answer, or none for the lay field
        return _row(row, value)

    done = await asyncio.gather(*(one(r) for r in chosen))
    kept = [r for r in done if r is not None]
    return pd.DataFrame(kept, columns=rows.columns), len(done) - len(kept)


def _scripted(request: ScriptedRequest) -> str:
    """The rule-derived list, as the model's answer (offline stand-in for J1's GPT-4o step)."""
    derived = json.loads(request.metadata["derived"])
    topics = [{"topic": t["topic"], "kind": t["kind"], "answer": t["answer"]} for t in derived["topics"]][:6]
    return json.dumps({**derived, "topics": topics}, ensure_ascii=False)


register_policy("persona", SCENARIO, _scripted)
