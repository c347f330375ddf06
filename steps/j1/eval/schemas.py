"""J1-EVAL tables of stage `j1_judge`: one score row per (instance, metric, component) of an agent's run, and the
failure causes of every dialogue."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
from pandera.typing import Series

from steps.j1.envs import known_codes
from steps.schemas.base import Strict, is_list_of
from steps.schemas.judged import Judged

J1_METRICS = ["I-1", "I-2", "II-1", "II-2", "III-1", "III-2", "III-3", "III-4", "III-5", "III-6"]
# scored: measured; failed_task: the agent failed the task (no deliverable, invalid trial) and the row holds the
# paper's failure value (0, III-4 1); skipped: nothing to compare (no topic raised, no cited law in the truth);
# judge_failed: the judge gave no valid answer after its repair round; dialogue_failed: the dialogue broke on a
# failed model call (excluded by default, `j1.eval.call_failed`).
STATUSES = ["scored", "failed_task", "skipped", "judge_failed", "dialogue_failed"]
UNSCORED = ("skipped", "judge_failed", "dialogue_failed")
FAILURE_CAUSES = ["single_turn_collapse", "missing_final_objective", "missing_addressee", "role_omission"]
FAILURE_CAUSES_ARROW_TYPES: dict[str, pa_arrow.DataType] = {"failure_causes": pa_arrow.list_(pa_arrow.string())}


class J1Scores(Judged):
    """A value in [0, 1] or, for the statuses in `UNSCORED`, none; `component` is "" for the metric itself; the
    failure is the judge's failure kind, or the failed call of the dialogue."""

    run_id: Series[str] = pa.Field(str_length={"min_value": 1})
    agent: Series[str]
    scenario: Series[str]
    instance_id: Series[str]
    metric: Series[str] = pa.Field(isin=J1_METRICS)
    component: Series[str]  # "" | PLA DEF CLA EVI F&R RES | STA ACT UNI | SEN FINE | precision f1 | partial | T<n>
    status: Series[str] = pa.Field(isin=STATUSES)
    evidence: Series[str]  # JSON object: parsed items, checklist answers, stage labels, the judge's reason

    @classmethod
    def unvalued(cls, df: pd.DataFrame) -> pd.Series:
        return df.status == "skipped"

    @pa.check("scenario", error="must be a J1 environment's code")
    def known(cls, scenario: Series[str]) -> Series[bool]:
        return scenario.isin(known_codes())

    @pa.dataframe_check(error="(instance_id, metric, component) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["instance_id", "metric", "component"]).any()

    @pa.dataframe_check(error="a row has a value exactly when its status is scored or failed_task")
    def value_iff_scored(cls, df: pd.DataFrame) -> bool:
        return bool((df.value.isna() == df.status.isin(UNSCORED)).all())

    @pa.dataframe_check(error="a judge_failed or dialogue_failed row names its failure, and only those do")
    def failure_iff_failed(cls, df: pd.DataFrame) -> bool:
        return bool((df.failure.notna() == df.status.isin(["judge_failed", "dialogue_failed"])).all())


class J1ScoresPanel(J1Scores):
    """Every member's rows of a panel of judges (scores_panel.parquet): those a judge model gave, one per
    (instance, metric, component, judge)."""

    @pa.dataframe_check(error="(instance_id, metric, component, judge) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["instance_id", "metric", "component", "judge"]).any()


class FailureCauses(Strict):
    """One row per dialogue of a run: the court failure causes found in its transcript (J1 App F.4; none outside
    the court scenarios), written by the judge stage (steps.j1.eval.failures)."""

    run_id: Series[str] = pa.Field(str_length={"min_value": 1})
    agent: Series[str]
    scenario: Series[str]
    instance_id: Series[str] = pa.Field(unique=True)
    failure_causes: Series[object]

    @pa.check("scenario", error="must be a J1 environment's code")
    def known(cls, scenario: Series[str]) -> Series[bool]:
        return scenario.isin(known_codes())

    @pa.check("failure_causes", element_wise=True, error="must be a list of known failure causes")
    def causes(cls, value: object) -> bool:
        return is_list_of(value, str) and set(value) <= set(FAILURE_CAUSES)
