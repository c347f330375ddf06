"""CI and CR: III-1 … III-6 on the trial transcript and the agent's final judgment (spec j1-envs §5.7-5.12).

UNI decides first (`steps.j1.eval.metrics.trial_validity`: a final judgment, enough exchanges, no single-turn
collapse). An invalid trial is the paper's failed task: every metric of the case is 0 and III-4 is 1 (its SEN
and FINE too), with no judge call. A valid one gets the two-pass procedure judge (III-1 = (STA + ACT) / 2), the
pointwise judge on the rulings (III-2, civil) and on the 本院认为 reasoning (III-5), and the rules: III-3 (every
charge of the court), III-4 (log deviation of term and fine) and III-6 (recall of the court's provisions, with
precision and F1 beside it). Which of them a case gets, and its court, is its environment's registration
(`metrics`, `court`).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from steps.j1.envs.registry import environment
from steps.j1.eval.case import Case, Panel
from steps.j1.eval.courts import court
from steps.j1.eval.failures import case_failure_causes
from steps.j1.eval.metrics import (
    LawRef,
    Sentence,
    candidate_reasoning,
    candidate_rulings,
    crime_accuracy,
    group_exchanges,
    law_accuracy,
    penalty_deviation,
    reference_rulings,
    trial_validity,
    without_lead,
)
from steps.j1.eval.metrics.laws import law_name_key
from steps.j1.eval.metrics.trial import Exchange, TrialValidity
from steps.j1.eval.procedure import ProcedureScore
from steps.j1.eval.records import Row, ScoreRow
from steps.j1.params import J1EvalParams
from steps.judges.pointwise import Comparison


def exchanges_of(case: Case) -> list[Exchange]:
    """The transcript as the paper's turns: each judge utterance with the reply it triggered."""
    return group_exchanges((int(t["exchange"]), t["speaker_label"], t["text"]) for t in case.utterances() if t["text"])


async def evaluate(case: Case, panel: Panel, options: J1EvalParams) -> list[ScoreRow]:
    row, truth, judgment = Row(case.instance_id, case.scenario), case.truth, case.document
    exchanges = exchanges_of(case)
    validity = trial_validity(exchanges, judgment, min_exchanges=options.min_exchanges)
    uni = row.rule(
        "III-1",
        validity.uni,
        "UNI",
        invalid=str(validity.reason) if validity.reason else None,
        judgment_exchange=validity.judgment_exchange,
        exchanges=len(exchanges),
        failure_causes=case_failure_causes(case),
    )
    laws = tuple(LawRef(law_name_key(s.law), s.article, s.sub_article) for s in truth.laws)
    if not validity.uni or judgment is None:  # (no judgment is never a valid trial)
        return [uni, *_procedure_rows(row, None, validity), *_failed(row, case, laws, validity, options)]
    procedure, *judged = await asyncio.gather(
        panel.procedure(court(_court(case)), exchanges, validity), *_comparisons(row, case, judgment, panel)
    )
    rows = [uni, *_procedure_rows(row, procedure, validity), *judged, *_laws(row, judgment, laws)]
    if _has(case, "III-3"):
        rows += _crime(row, judgment, truth)
    if _has(case, "III-4"):
        rows += _penalty(row, judgment, truth, options)
    return rows


def _court(case: Case) -> str:
    kind = environment(case.scenario).court
    if kind is None:
        raise ValueError(f"{case.scenario}: the court evaluator needs an environment that names its court")
    return kind


def _has(case: Case, metric: str) -> bool:
    return metric in environment(case.scenario).metrics


def _procedure_rows(row: Row, score: ProcedureScore | None, validity: TrialValidity) -> list[ScoreRow]:
    """III-1 with STA and ACT (UNI is its own rule row)."""
    if score is None:
        reason = f"invalid trial: {validity.reason}"
        return [row.failed_task("III-1", 0.0, c, reason=reason) for c in ("", "STA", "ACT")]
    main = row.judged("III-1", score.judgement)
    if not score.judgement.ok:
        return [main, *(replace(main, component=c, evidence={}) for c in ("STA", "ACT"))]
    return [
        main,
        replace(main, component="STA", value=score.sta, evidence={}),
        replace(main, component="ACT", value=score.act, evidence={}),
    ]


def _comparisons(row: Row, case: Case, judgment: str, panel: Panel) -> list:
    """III-2 (civil rulings) and III-5 (reasoning) as pending judge calls."""
    truth = case.truth
    pending = []
    if _has(case, "III-2"):
        pending.append(
            _compare(row, "III-2", reference_rulings(truth.rulings), candidate_rulings(judgment), "判决主文", panel)
        )
    pending.append(
        _compare(
            row,
            "III-5",
            without_lead(truth.reasoning),
            candidate_reasoning(judgment),
            "判决说理（本院认为部分）",
            panel,
        )
    )
    return pending


async def _compare(row: Row, metric: str, reference: str, candidate: str, aspect: str, panel: Panel) -> ScoreRow:
    if not reference.strip():
        return row.skipped(metric, reason="nothing in the truth")
    comparison = Comparison(reference=reference, candidate=candidate, aspect=aspect)
    return row.judged(metric, await panel.compare(comparison, metric=metric))


def _laws(row: Row, judgment: str | None, laws: tuple[LawRef, ...]) -> list[ScoreRow]:
    result = law_accuracy(judgment, laws)
    if result.value is None:
        return [row.skipped("III-6", c, reason="the court cites no provision") for c in ("", "precision", "f1")]
    return [
        row.rule(
            "III-6",
            result.value,
            truth=[list(r) for r in result.truth],
            cited=[list(r) for r in result.cited],
            matched=[list(r) for r in result.matched],
        ),
        row.rule("III-6", result.precision, "precision"),
        row.rule("III-6", result.f1, "f1"),
    ]


def _crime(row: Row, judgment: str, truth) -> list[ScoreRow]:
    result = crime_accuracy(judgment, truth.charges, defendant=truth.defendant)
    if result.value is None or result.matched_fraction is None:  # (both or neither)
        return [row.skipped("III-3", c, reason="no charge in the truth") for c in ("", "partial")]
    return [
        row.rule("III-3", result.value, truth=result.truth, predicted=result.predicted, source=result.source),
        row.rule("III-3", result.matched_fraction, "partial"),
    ]


def sentence_of(truth) -> Sentence:
    return Sentence(truth.penalty, truth.prison_months, truth.fine_yuan)


def _penalty(row: Row, judgment: str | None, truth, options: J1EvalParams, *, valid: bool = True) -> list[ScoreRow]:
    result = penalty_deviation(
        judgment, sentence_of(truth), valid=valid, defendant=truth.defendant, normaliser=options.penalty_normaliser
    )
    make = row.failed_task if result.failed else row.rule
    predicted = result.predicted
    evidence: dict[str, Any] = {
        "normaliser": result.normaliser,
        "truth": vars(result.truth),
        "predicted": vars(predicted) if predicted else None,
    }
    sen = (
        make("III-4", result.sen, "SEN")
        if result.sen is not None
        else row.skipped("III-4", "SEN", reason="life imprisonment or death: no term to compare")
    )
    return [
        make("III-4", result.value, sen_excluded=result.sen_excluded, **evidence),
        sen,
        make("III-4", result.fine, "FINE"),
    ]


def _failed(
    row: Row, case: Case, laws: tuple[LawRef, ...], validity: TrialValidity, options: J1EvalParams
) -> list[ScoreRow]:
    """Every other metric of an invalid trial: 0, and III-4 (SEN, FINE) 1."""
    reason = f"invalid trial: {validity.reason}"
    rows = [row.failed_task("III-5", 0.0, reason=reason)]
    if _has(case, "III-2"):
        rows.append(row.failed_task("III-2", 0.0, reason=reason))
    if laws:
        rows += [row.failed_task("III-6", 0.0, c, reason=reason) for c in ("", "precision", "f1")]
    else:
        rows += [row.skipped("III-6", c, reason="the court cites no provision") for c in ("", "precision", "f1")]
    if _has(case, "III-3"):
        rows += [row.failed_task("III-3", 0.0, c, reason=reason) for c in ("", "partial")]
    if _has(case, "III-4"):
        rows += _penalty(row, case.document, case.truth, options, valid=False)
    return rows
