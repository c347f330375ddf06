"""pandera schemas for every table the pipeline writes, and the Arrow types of their nested columns.

Each schema is strict (no unknown columns), coerces dtypes, and states the rules a row must satisfy.
`ARROW_TYPES` fixes the Parquet type of list / struct columns so that an empty list is still typed.
One module per family of tables: `lawbench`, `extraction`, `usage`, `instances`
(topics, instances: imported from `steps.schemas.instances` itself, as they load the J1 environments),
`personas`, `runs` (the turns and dialogues of every dialogue benchmark), `judged` (the base of every judged
table), `ucl`, `mile`, `plawbench`, `j1eval` (J1-EVAL scores). The interim tables of stage `ingest` are each
benchmark's own (`steps/<benchmark>/sources.py`, found by `steps.sources.tables`).
"""

from steps.schemas.base import Strict, TableError, is_list_of, is_list_of_dicts_with, validate
from steps.schemas.extraction import CASES_ARROW_TYPES, Cases, ExtractionIssues
from steps.schemas.j1eval import FAILURE_CAUSES_ARROW_TYPES, J1_METRICS, FailureCauses, J1Scores
from steps.schemas.judged import Judged
from steps.schemas.lawbench import LawBenchRunPredictions, LawBenchScores
from steps.schemas.mile import MileDialogues, MileScores
from steps.schemas.personas import PERSONAS_ARROW_TYPES, Personas
from steps.schemas.plawbench import (
    PlawItemScores,
    PlawJudgements,
    PlawParseIssues,
    PlawResponses,
    PlawRubricItems,
    PlawScores,
    PlawTasks,
)
from steps.schemas.runs import Dialogues, Turns
from steps.schemas.ucl import UclDialogues, UclHintScores, UclVerdicts
from steps.schemas.usage import CallCache, ModelUsage, UsageLog

# J1's cases and personas, J1-EVAL's failure causes (topics and instances: steps.schemas.instances)
ARROW_TYPES = {
    "cases": CASES_ARROW_TYPES,
    "personas": PERSONAS_ARROW_TYPES,
    "failure_causes": FAILURE_CAUSES_ARROW_TYPES,
}

__all__ = [
    "ARROW_TYPES",
    "CASES_ARROW_TYPES",
    "FAILURE_CAUSES_ARROW_TYPES",
    "J1_METRICS",
    "PERSONAS_ARROW_TYPES",
    "CallCache",
    "Cases",
    "Dialogues",
    "ExtractionIssues",
    "FailureCauses",
    "J1Scores",
    "Judged",
    "LawBenchRunPredictions",
    "LawBenchScores",
    "MileDialogues",
    "MileScores",
    "ModelUsage",
    "Personas",
    "PlawItemScores",
    "PlawJudgements",
    "PlawParseIssues",
    "PlawResponses",
    "PlawRubricItems",
    "PlawScores",
    "PlawTasks",
    "Strict",
    "TableError",
    "Turns",
    "UclDialogues",
    "UclHintScores",
    "UclVerdicts",
    "UsageLog",
    "is_list_of",
    "is_list_of_dicts_with",
    "validate",
]
