"""pandera schemas for every table the pipeline writes, and the Arrow types of their nested columns.

Each schema is strict (no unknown columns), coerces dtypes, and states the rules a row must satisfy.
`ARROW_TYPES` fixes the Parquet type of list / struct columns so that an empty list is still typed.
One module per family of tables: `sources` (stage ingest), `lawbench`, `extraction`, `usage`, `instances`
(topics, instances: imported from `steps.schemas.instances` itself, as they load the J1 environments),
`personas`, `runs` (the turns and dialogues of every dialogue benchmark), `judged` (the base of every judged
table), `ucl`, `mile`, `plawbench`, `j1eval` (J1-EVAL scores).
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
from steps.schemas.ucl import UclDialogues, UclHintScores, UclVerdicts
from steps.schemas.usage import CallCache, ModelUsage, UsageLog

ARROW_TYPES = {**SOURCE_ARROW_TYPES, "cases": CASES_ARROW_TYPES}
# J1 environments (issues 6, 7): personas; J1-EVAL failure causes (topics and instances: steps.schemas.instances)
ARROW_TYPES |= {
    "personas": PERSONAS_ARROW_TYPES,
    "failure_causes": FAILURE_CAUSES_ARROW_TYPES,
}

__all__ = [
    "ARROW_TYPES",
    "CASES_ARROW_TYPES",
    "FAILURE_CAUSES_ARROW_TYPES",
    "J1_METRICS",
    "PERSONAS_ARROW_TYPES",
    "SCHEMAS",
    "CallCache",
    "Cases",
    "Dialogues",
    "ExtractionIssues",
    "FailureCauses",
    "J1Scores",
    "Judged",
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
    "ModelUsage",
    "Personas",
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
    "Strict",
    "TableError",
    "Turns",
    "Ucl",
    "UclDialogues",
    "UclHintScores",
    "UclVerdicts",
    "UsageLog",
    "is_list_of",
    "is_list_of_dicts_with",
    "validate",
]
