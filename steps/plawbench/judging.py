"""Judging responses against their rubric: one rubric-judge call per response (spec §3.2), the arithmetic in
code (`steps.judges.rubric_tally`), one row per response, per dimension and per judged item.

PCA dimensions are the rubric's groups (each clamped to its `points`); LDG parts and sub-parts are groups,
不及格 conditions are fail checks and 统一扣分项 are penalties; PLC is a flat list whose questions are cut to
the first N before judging. A judge failure is a row with its kind and no score: excluded from the rates
and counted, never scored 0. With `plawbench.t1_penalties: paper` (opt-in) every judged consultation answer
is also asked for the paper's Table 8 penalties (`penalty_judge`): a `paper_penalty` score row holds the
penalised score beside the unpenalised `total`, and the judgement's evidence holds the findings.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from steps.judges import Judgement
from steps.judges.panel import aggregate_values
from steps.judges.result import NOBODY
from steps.judges.rubric import ItemKind, Rubric, RubricGroup, RubricItem, empty_answer_judgement, judge_rubric
from steps.llm import Completer, ModelConfig
from steps.plawbench.paper import error_labels
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.penalty_judge import PenaltyJudgement, judge_penalties
from steps.plawbench.prompts import judge_rules, task_input
from steps.plawbench.questions import first_questions
from steps.plawbench.schemas import PlawItemScores, PlawJudgements, PlawScores
from steps.protocol import Aggregation
from steps.schemas import Strict

DIMENSION_CODES = {"C": "conclusion", "F": "facts", "R": "reasoning", "S": "statute"}
TITLES = {
    "conclusion": "结论",
    "facts": "案件事实（案情简述）",
    "reasoning": "推理过程（分析过程）",
    "statute": "法条依据",
}
# what the proxy judge names when it does not award an item in full (one plausible label per dimension)
PROXY_ERRORS = {
    "conclusion": "法律定性错误",
    "facts": "遗漏关键事实",
    "reasoning": "推理步骤缺失",
    "statute": "遗漏核心法条",
    "consultation": "证据情节把握不足",
    "drafting": "法律适用不准确",
}


@dataclass(frozen=True)
class Prepared:
    """The text the judge reads, and for consultations how many questions there were."""

    text: str
    questions: int | None = None
    truncated: bool = False


def prepare(task: Any, response: str, options: PlawBenchParams) -> Prepared:
    if task.category != "consultation":
        return Prepared(response)
    qs = first_questions(response, options.max_questions)
    return Prepared(qs.text() if qs.kept else response, qs.total, qs.truncated)


def build_rubric(task: Any, rows: pd.DataFrame, options: PlawBenchParams) -> Rubric:
    groups, items = [], []
    children: dict[str, float] = rows.groupby("parent_id").points.sum().to_dict()
    for r in rows.sort_values("order").itertuples(index=False):
        if r.kind == "section":
            points = r.points if pd.notna(r.points) else children.get(r.rubric_id, 0.0)
            title = TITLES.get(r.dimension, r.text) if task.category == "case_analysis" else r.text
            note = _note(r.text) if task.category == "case_analysis" else ""
            groups.append(RubricGroup(r.rubric_id, title, float(points), note, _none(r.parent_id)))
        elif not r.judged or (pd.isna(r.points) and r.kind != "fail"):
            continue
        elif r.kind == "award":
            hint = PROXY_ERRORS.get(r.dimension) or PROXY_ERRORS[task.category]
            items.append(
                RubricItem(
                    r.rubric_id,
                    r.text,
                    float(r.points),
                    group=_none(r.parent_id),
                    reference=r.award_text,
                    error_hint=hint,
                )
            )
        elif r.kind == "fail":
            items.append(
                RubricItem(r.rubric_id, r.text, float(r.points or 0.0), ItemKind.FAIL, target=_none(r.parent_id))
            )
        elif r.kind == "deduction":
            escape = (task.document,) if "指令遵循" in r.text and task.document else ()
            items.append(
                RubricItem(
                    r.rubric_id,
                    r.text,
                    float(r.points),
                    ItemKind.PENALTY,
                    max_times=None if pd.isna(r.max_times) else int(r.max_times),
                    key_phrases=escape,
                )
            )
    return Rubric(
        items=tuple(items),
        groups=tuple(groups),
        max_points=float(task.max_points),
        rules=judge_rules(task, options),
        error_labels=error_labels(task.category),
        verdict=options.judge_verdict,
    )


def _none(value: Any) -> str | None:
    return None if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _note(section_text: str) -> str:
    """A PCA block's preamble without its heading line (e.g. an order requirement)."""
    lines = [ln for ln in str(section_text).splitlines() if ln.strip()]
    kept = [ln for ln in lines if not (ln.strip().startswith("【") and len(ln.strip()) <= 16)]
    return " ".join(kept).strip()


async def judge_all(
    door: Completer,
    judge: ModelConfig,
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    responses: pd.DataFrame,
    options: PlawBenchParams,
    *,
    repairs: int,
    on_done: Callable[[], None] | None = None,
) -> list[tuple[Any, Prepared, Judgement]]:
    """Judge every response that exists (failed agent calls are skipped here and counted by the caller); an empty
    one is scored 0 by rule without a judge call (`empty_answer_judgement`)."""
    task_of = {t.item_id: t for t in tasks.itertuples(index=False)}
    rows_of = dict(tuple(rubric.groupby("item_id", sort=False)))

    async def one(resp: Any) -> tuple[Any, Prepared, Judgement]:
        task = task_of[resp.item_id]
        prepared = prepare(task, resp.response, options)
        rubric = build_rubric(task, rows_of[resp.item_id], options)
        name = f"plawbench.{task.category}"
        if not prepared.text.strip():  # an empty answer is never judged as text: it meets nothing (0 by rule)
            if on_done is not None:
                on_done()
            return resp, prepared, empty_answer_judgement(rubric, name=name)
        judgement = await judge_rubric(
            door,
            judge,
            response=prepared.text,
            rubric=rubric,
            question=task_input(task),
            name=name,
            repairs=repairs,
            metadata={"scenario": "plawbench/judge", "instance_id": resp.item_id, "variant": resp.variant},
        )
        if on_done is not None:
            on_done()
        return resp, prepared, judgement

    todo = [r for r in responses.itertuples(index=False) if isinstance(r.response, str)]
    return list(await asyncio.gather(*(one(r) for r in todo)))


Penalties = dict[tuple[str, str], PenaltyJudgement]


async def judge_penalties_all(
    door: Completer,
    judge: ModelConfig,
    tasks: pd.DataFrame,
    results: list[tuple[Any, Prepared, Judgement]],
    *,
    repairs: int,
    on_done: Callable[[], None] | None = None,
) -> Penalties:
    """The Table 8 penalties of every consultation answer whose rubric judgement succeeded, by (item, variant)."""
    task_of = {t.item_id: t for t in tasks.itertuples(index=False)}

    async def one(resp: Any, prepared: Prepared, judgement: Judgement) -> tuple[tuple[str, str], PenaltyJudgement]:
        found = await judge_penalties(
            door,
            judge,
            response=prepared.text,
            base=float(judgement.evidence["total"]),
            question=task_input(task_of[resp.item_id]),
            repairs=repairs,
            metadata={"scenario": "plawbench/judge", "instance_id": resp.item_id, "variant": resp.variant},
        )
        if on_done is not None:
            on_done()
        return (resp.item_id, resp.variant), found

    todo = [r for r in results if r[0].category == "consultation" and r[2].ok and not _empty(r[2])]
    return dict(await asyncio.gather(*(one(*r) for r in todo)))


def _empty(judgement: Judgement) -> bool:
    """True for the rule judgement of an empty answer (nothing to judge, no penalty to find)."""
    return bool(judgement.evidence.get("empty_answer"))


AGENT_FAILED = "agent_call_failed"
PENALTY_DIMENSION = "paper_penalty"


def _penalty_cells(
    resp: Any, failure: str | None, penalties: Penalties, empty: bool
) -> tuple[float | None, str | None, dict[str, Any] | None]:
    """(penalised points, failure, evidence) of one consultation answer in the paper-penalty mode (an empty answer:
    0 points, nothing to penalise)."""
    if failure is not None:
        return None, failure, None
    if empty:
        return 0.0, None, None
    found = penalties[(resp.item_id, resp.variant)]
    if found.tally is None:
        return None, f"penalty_{found.failure}", found.evidence()
    return found.tally.penalised, None, found.evidence()


def judgement_rows(
    results: list[tuple[Any, Prepared, Judgement]],
    failed: pd.DataFrame,
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    judge_run: str,
    penalties: Penalties | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(judgements, scores, item_scores) tables (steps/plawbench/schemas.py). `failed` are the responses whose
    agent call failed: they get rows with the failure `agent_call_failed` and no score. With `penalties` (the
    paper-penalty mode) each consultation answer also gets a `paper_penalty` score row, without a score when
    its rubric or penalty judgement failed (failure `penalty_<kind>` for the latter)."""
    max_of = tasks.set_index("item_id").max_points.to_dict()
    sections = rubric[(rubric.kind == "section") & rubric.parent_id.isna()]
    dim_max = {(r.item_id, r.rubric_id): float(r.points) for r in sections.itertuples(index=False)}
    judgements, scores, items = [], [], []
    for resp, prepared, j in [*results, *((r, Prepared(""), None) for r in failed.itertuples(index=False))]:
        ev = j.evidence if j is not None else {}
        failure = AGENT_FAILED if j is None else (j.failure.value if j.failure else None)
        base = {
            "agent": resp.agent,
            "item_id": resp.item_id,
            "category": resp.category,
            "scenario": resp.scenario,
            "variant": resp.variant,
        }
        if penalties is not None and resp.category == "consultation":
            penalised, penalty_failure, penalty_evidence = _penalty_cells(
                resp, failure, penalties, j is not None and _empty(j)
            )
            if penalty_evidence is not None:
                ev = {**ev, "paper_penalties": penalty_evidence}
        judged = j.row() if j is not None else NOBODY.row(failure=failure, error=str(resp.failure or ""))
        judgements.append(
            {
                **base,
                "judge_run": judge_run,
                **judged,
                "error": judged["error"][:500],
                "awarded": ev.get("total"),
                "max_points": float(max_of[resp.item_id]),
                "clamped": ev.get("clamped", 0),
                "fails_triggered": sum(f["triggered"] for f in ev.get("fails", [])),
                "penalty_points": float(sum(p["deducted"] for p in ev.get("penalties", []))),
                "questions": prepared.questions,
                "questions_truncated": prepared.truncated,
                "raw": j.raw if j else "",
                "evidence": json.dumps(ev, ensure_ascii=False, sort_keys=True),
            }
        )
        scores.append(
            {
                **base,
                "dimension": "total",
                "awarded": ev.get("total"),
                "max_points": float(max_of[resp.item_id]),
                "failure": failure,
            }
        )
        if penalties is not None and resp.category == "consultation":
            scores.append(
                {
                    **base,
                    "dimension": PENALTY_DIMENSION,
                    "awarded": penalised,
                    "max_points": float(max_of[resp.item_id]),
                    "failure": penalty_failure,
                }
            )
        if resp.category == "case_analysis":
            groups = {g["id"]: g for g in ev.get("groups", [])}
            for code, dim in DIMENSION_CODES.items():
                if (resp.item_id, code) in dim_max:
                    got = groups.get(code)
                    scores.append(
                        {
                            **base,
                            "dimension": dim,
                            "awarded": got["awarded"] if got else None,
                            "max_points": dim_max[(resp.item_id, code)],
                            "failure": failure,
                        }
                    )
        for it in ev.get("items", []):
            items.append(
                {
                    **base,
                    "rubric_id": it["id"],
                    "group": it["group"] or "",
                    "points": it["points"],
                    "given": it["given"],
                    "awarded": it["awarded"],
                    "failed": it["failed"],
                    "error_label": it["error"],
                    "justification": it["justification"],
                }
            )
    return _frame(judgements, PlawJudgements), _frame(scores, PlawScores), _frame(items, PlawItemScores)


def _frame(rows: list[dict[str, Any]], schema: type[Strict]) -> pd.DataFrame:
    """The rows as a table; no rows (e.g. every judge answer failed) still gives the schema's columns."""
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=list(schema.to_schema().columns))


def penalty_answers(scores: pd.DataFrame, judge: str) -> pd.DataFrame:
    """The paper-penalty judge's answers (opt-in mode) as judged rows (`judge`, `value`, `failure`, `error`): one
    per `paper_penalty` score row that the penalty judge was asked for (its rubric judgement succeeded); a
    `penalty_<kind>` failure is the penalty judge's own `<kind>`. Empty when the mode is off."""
    rows = scores[scores.dimension == PENALTY_DIMENSION]
    failure = rows.failure.astype("string")
    asked = rows[failure.isna() | failure.str.startswith("penalty_", na=False)]
    return pd.DataFrame(
        {
            "judge": judge,
            "value": asked.awarded,
            "failure": asked.failure.astype("string").str.removeprefix("penalty_").astype(object),
            "error": "",
        }
    )


async def probe_all(
    door: Completer,
    judge: ModelConfig,
    tasks: pd.DataFrame,
    rubric: pd.DataFrame,
    results: list[tuple[Any, Prepared, Judgement]],
    options: PlawBenchParams,
    *,
    repairs: int,
) -> pd.DataFrame:
    """The judge probes (`steps.judges.probes`) on a seeded sample of the answers the judge valued: each answer's own
    judgement (round 0), `repeats` re-judgements with the seed moved by the round, and one with the rubric items
    shuffled; rows keyed `<item_id>|<variant>`."""
    from steps.judges.probes import REPEAT, SHUFFLE, probe_frame, probe_row, reseeded, sample_ids, shuffled

    probes = options.judge_probes
    valued = {f"{r.item_id}|{r.variant}": (r, p, j) for r, p, j in results if j.ok and not _empty(j)}
    keys = sample_ids(list(valued), probes.sample, probes.seed) if probes.repeats or probes.shuffle else []
    task_of = {t.item_id: t for t in tasks.itertuples(index=False)}
    rows_of = dict(tuple(rubric[rubric.item_id.isin({valued[k][0].item_id for k in keys})].groupby("item_id")))

    async def one(n: int, key: str) -> list[dict[str, Any]]:
        resp, prepared, judgement = valued[key]
        task = task_of[resp.item_id]
        built = build_rubric(task, rows_of[resp.item_id], options)
        asks = [(REPEAT, r, reseeded(judge, r), built) for r in range(1, probes.repeats + 1)]
        if probes.shuffle:
            asks.append((SHUFFLE, 1, judge, shuffled(built, probes.seed + n)))
        meta = {"scenario": "plawbench/judge_probe", "instance_id": resp.item_id, "variant": resp.variant}
        answers = await asyncio.gather(
            *(
                judge_rubric(
                    door,
                    model,
                    response=prepared.text,
                    rubric=rub,
                    question=task_input(task),
                    name=f"plawbench.{task.category}",
                    repairs=repairs,
                    metadata=meta,
                )
                for _, _, model, rub in asks
            )
        )
        own = probe_row(key, REPEAT, 0, judgement)
        return [own, *(probe_row(key, probe, r, a) for (probe, r, _, _), a in zip(asks, answers, strict=True))]

    done = await asyncio.gather(*(one(n, k) for n, k in enumerate(keys)))
    return probe_frame([row for rows in done for row in rows])


def panel_points(
    frames: Sequence[pd.DataFrame], keys: Sequence[str], columns: Sequence[str], aggregation: Aggregation
) -> pd.DataFrame:
    """The score or item-score rows of a panel of judges from each member's (`frames`, in the panel's order): one
    row per unit (`keys`, the first member's rows first), its `columns` (points) aggregated over the members whose
    row holds them (no `failure`); a unit some member scored loses the failure of a member that did not."""
    stacked = pd.concat(frames, ignore_index=True)
    scored = stacked[stacked.failure.isna()] if "failure" in stacked.columns else stacked
    out = stacked.drop_duplicates(list(keys), keep="first").reset_index(drop=True)
    groups = scored.groupby(list(keys), sort=False, dropna=False)
    index = pd.MultiIndex.from_frame(out[list(keys)])
    for column in columns:
        merged = groups[column].agg(lambda v: aggregate_values([float(x) for x in v.dropna()], aggregation))
        found = merged.reindex(index)
        out[column] = found.where(found.notna(), out[column].to_numpy()).to_numpy()
    if "failure" in out.columns:
        valued = pd.Series(True, index=groups.size().index).reindex(index, fill_value=False).to_numpy()
        out.loc[valued, "failure"] = None
    return out
