"""pandera schemas for every table the pipeline writes, and the Arrow types of their nested columns.

Each schema is strict (no unknown columns), coerces dtypes, and states the rules a row must satisfy.
`ARROW_TYPES` fixes the Parquet type of list / struct columns so that an empty list is still typed.
One module per family of tables: `sources` (stage ingest), `lawbench`, `extraction`, `usage`, `instances`
(topics, instances), `personas`, `runs` (J1 simulation turns and deliverables), `ucl`, `mile`, `plawbench`,
`j1eval` (J1-EVAL scores).
"""

from steps.schemas.base import Strict, TableError, is_list_of, is_list_of_dicts_with, validate
from steps.schemas.extraction import CASES_ARROW_TYPES, Cases, ExtractionIssues
from steps.schemas.instances import (
    INSTANCES_ARROW_TYPES,
    TOPICS_ARROW_TYPES,
    Instances,
    InstanceSkips,
    TopicSources,
    instance_errors,
)
from steps.schemas.j1eval import FAILURE_CAUSES_ARROW_TYPES, J1_METRICS, FailureCauses, J1Scores
from steps.schemas.lawbench import LawBenchRunPredictions, LawBenchScores
from steps.schemas.mile import MileDialogues, MileScores, MileTurns
from steps.schemas.personas import PERSONAS_ARROW_TYPES, Personas
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
from steps.schemas.runs import Deliverables, Turns
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
from steps.schemas.usage import CallCache, ModelUsage, UsageLog

ARROW_TYPES = {**SOURCE_ARROW_TYPES, "cases": CASES_ARROW_TYPES}
# J1 environments (issues 6, 7): topic sources, personas, instances; J1-EVAL failure causes
ARROW_TYPES |= {
    "topics": TOPICS_ARROW_TYPES,
    "personas": PERSONAS_ARROW_TYPES,
    "instances": INSTANCES_ARROW_TYPES,
    "failure_causes": FAILURE_CAUSES_ARROW_TYPES,
}

__all__ = [
    "ARROW_TYPES",
    "CASES_ARROW_TYPES",
    "FAILURE_CAUSES_ARROW_TYPES",
    "INSTANCES_ARROW_TYPES",
    "J1_METRICS",
    "PERSONAS_ARROW_TYPES",
    "SCHEMAS",
    "TOPICS_ARROW_TYPES",
    "CallCache",
    "Cases",
    "Deliverables",
    "ExtractionIssues",
    "FailureCauses",
    "InstanceSkips",
    "Instances",
    "J1Scores",
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
    "PlawTurns",
    "Strict",
    "TableError",
    "TopicSources",
    "Turns",
    "Ucl",
    "UclDialogues",
    "UclHintScores",
    "UclTurns",
    "UclVerdicts",
    "UsageLog",
    "instance_errors",
    "is_list_of",
    "is_list_of_dicts_with",
    "validate",
]
