"""One entry point per task id: `score_task` dispatches to the task's scorer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from steps.lawbench.metrics import amounts, articles, charges, choice, ner, prison, rcf1, rouge, setf1
from steps.lawbench.metrics.proofread import score_proofreading
from steps.lawbench.metrics.result import ScoringError, TaskScore

Scorer = Callable[[Sequence[str], Sequence[str]], TaskScore]

SCORERS: dict[str, Scorer] = {
    "1-1": rouge.score_article_recitation,
    "1-2": choice.score_knowledge_qa,
    "2-2": choice.score_dispute_focus,
    "2-3": setf1.score_marital_disputes,
    "2-4": choice.score_issue_topic,
    "2-5": rcf1.score_reading_comprehension,
    "2-6": ner.score_entity_extraction,
    "2-7": rouge.score_opinion_summary,
    "2-8": choice.score_argument_mining,
    "2-9": setf1.score_event_detection,
    "2-10": rcf1.score_trigger_words,
    "3-1": articles.score_article_prediction,
    "3-2": rouge.score_scene_articles,
    "3-3": charges.score_charge_prediction,
    "3-4": prison.score_prison_term_without_articles,
    "3-5": prison.score_prison_term_with_articles,
    "3-6": choice.score_case_analysis,
    "3-7": amounts.score_damages,
    "3-8": rouge.score_consultation,
}


def score_task(
    task_id: str,
    predictions: Sequence[str],
    references: Sequence[str],
    prompts: Sequence[str] | None = None,
    *,
    cilin_path: Path | None = None,
    confusion_path: Path | None = None,
) -> TaskScore:
    """Score one task file given its items in index order (prediction, gold `refr`, prompt sent).

    Only 2-1 needs the prompts (its source sentence is taken from them) and reads the optional Cilin /
    confusion-set files; every other task ignores them.
    """
    if task_id == "2-1":
        if prompts is None:
            raise ScoringError("task 2-1 needs the prompts: its source sentences are taken from them")
        return score_proofreading(
            predictions, references, prompts, cilin_path=cilin_path, confusion_path=confusion_path
        )
    if task_id not in SCORERS:
        raise ScoringError(f"unknown LawBench task id {task_id!r}")
    return SCORERS[task_id](predictions, references)
