"""pandera schemas for every table the pipeline writes, and the Arrow types of their nested columns.

Each schema is strict (no unknown columns), coerces dtypes, and states the rules a row must satisfy.
`ARROW_TYPES` fixes the Parquet type of list / struct columns so that an empty list is still typed.
One module per family of tables: `sources` (stage ingest), `lawbench`, `extraction`, `usage`, `instances`
(topics, instances), `personas`, `runs` (simulation turns and deliverables).
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
from steps.schemas.lawbench import LawBenchRunPredictions, LawBenchScores
from steps.schemas.personas import PERSONAS_ARROW_TYPES, Personas
from steps.schemas.runs import DELIVERABLES_ARROW_TYPES, Deliverables, Turns
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
from steps.schemas.usage import ModelUsage

ARROW_TYPES = {**SOURCE_ARROW_TYPES, "cases": CASES_ARROW_TYPES}
# J1 environments (issues 6, 7): topic sources, personas, instances, simulation runs
ARROW_TYPES |= {"topics": TOPICS_ARROW_TYPES, "personas": PERSONAS_ARROW_TYPES, "instances": INSTANCES_ARROW_TYPES,
                "deliverables": DELIVERABLES_ARROW_TYPES}  # fmt: skip

__all__ = [
    "ARROW_TYPES",
    "CASES_ARROW_TYPES",
    "DELIVERABLES_ARROW_TYPES",
    "INSTANCES_ARROW_TYPES",
    "PERSONAS_ARROW_TYPES",
    "SCHEMAS",
    "TOPICS_ARROW_TYPES",
    "Cases",
    "Deliverables",
    "ExtractionIssues",
    "InstanceSkips",
    "Instances",
    "JudgmentsCivil",
    "JudgmentsCriminal",
    "LawBenchItems",
    "LawBenchPredictions",
    "LawBenchPublished",
    "LawBenchRunPredictions",
    "LawBenchScores",
    "Mile",
    "ModelUsage",
    "Personas",
    "PlawCaseAnalysis",
    "PlawConsultation",
    "PlawDrafting",
    "Strict",
    "TableError",
    "TopicSources",
    "Turns",
    "Ucl",
    "instance_errors",
    "is_list_of",
    "is_list_of_dicts_with",
    "validate",
]
