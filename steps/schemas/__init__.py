"""pandera schemas for every table the pipeline writes, and the Arrow types of their nested columns.

Each schema is strict (no unknown columns), coerces dtypes, and states the rules a row must satisfy.
`ARROW_TYPES` fixes the Parquet type of list / struct columns so that an empty list is still typed.
One module per family of tables: `sources` (stage ingest), `lawbench`, `extraction`, `usage`, `plawbench`.
"""

from steps.schemas.base import Strict, TableError, is_list_of, is_list_of_dicts_with, validate
from steps.schemas.extraction import CASES_ARROW_TYPES, Cases, ExtractionIssues
from steps.schemas.lawbench import LawBenchRunPredictions, LawBenchScores
from steps.schemas.mile import MileDialogues, MileScores, MileTurns
from steps.schemas.plawbench import (
    PlawItemScores,
    PlawJudgements,
    PlawParseIssues,
    PlawResponses,
    PlawRubricItems,
    PlawScores,
    PlawTasks,
    PlawTurns,
)
from steps.schemas.sources import (
    SCHEMAS,
    SOURCE_ARROW_TYPES,
    JudgmentsCivil,
    JudgmentsCriminal,
    LawBenchItems,
    LawBenchPredictions,
    LawBenchPublished,
    Mile,
    PlawCaseAnalysis,
    PlawConsultation,
    PlawDrafting,
    Ucl,
)
from steps.schemas.ucl import UclDialogues, UclHintScores, UclTurns, UclVerdicts
from steps.schemas.usage import ModelUsage

ARROW_TYPES = {**SOURCE_ARROW_TYPES, "cases": CASES_ARROW_TYPES}

__all__ = [
    "ARROW_TYPES",
    "CASES_ARROW_TYPES",
    "SCHEMAS",
    "Cases",
    "ExtractionIssues",
    "JudgmentsCivil",
    "JudgmentsCriminal",
    "LawBenchItems",
    "LawBenchPredictions",
    "LawBenchPublished",
    "LawBenchRunPredictions",
    "LawBenchScores",
    "Mile",
    "MileDialogues",
    "MileScores",
    "MileTurns",
    "ModelUsage",
    "PlawCaseAnalysis",
    "PlawConsultation",
    "PlawDrafting",
    "PlawItemScores",
    "PlawJudgements",
    "PlawParseIssues",
    "PlawResponses",
    "PlawRubricItems",
    "PlawScores",
    "PlawTasks",
    "PlawTurns",
    "Strict",
    "TableError",
    "Ucl",
    "UclDialogues",
    "UclHintScores",
    "UclTurns",
    "UclVerdicts",
    "is_list_of",
    "is_list_of_dicts_with",
    "validate",
]
