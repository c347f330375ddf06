"""The personas table: one row per lay role of an instance (Big-Five levels, behaviour style, legal sense)."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
from pandera.typing import Series

from steps.j1.personas.big5 import LEVELS, TRAITS
from steps.schemas.base import Strict, is_list_of

_LEVELS = pa_arrow.struct([(t, pa_arrow.string()) for t in TRAITS])
PERSONAS_ARROW_TYPES: dict[str, pa_arrow.DataType] = {
    "source_ids": pa_arrow.list_(pa_arrow.string()),
    "assigned": _LEVELS,
    "levels": _LEVELS,
}


def _levels_ok(value: object) -> bool:
    return value is None or (
        isinstance(value, dict) and set(value) == set(TRAITS) and set(value.values()) <= set(LEVELS)
    )


class Personas(Strict):
    """A persona is complete (levels and style) or carries the failure that left it incomplete."""

    persona_id: Series[str] = pa.Field(unique=True)
    scenario: Series[str]
    role: Series[str]
    source_ids: Series[object]
    role_desc: Series[str]
    info: Series[str] = pa.Field(str_length={"min_value": 1})  # what the trait levels were assigned from
    assigned: Series[object] = pa.Field(nullable=True)  # the environment model's levels, before redistribution
    levels: Series[object] = pa.Field(nullable=True)  # after every "medium" was re-drawn 2:1:2
    style: Series[str] = pa.Field(nullable=True)
    legal_sense: Series[int] = pa.Field(ge=1, le=5)
    legal_sense_text: Series[str]
    withheld_field: Series[str] = pa.Field(nullable=True)
    vague_facts: Series[bool]
    costs_unprompted: Series[bool]
    model: Series[str] = pa.Field(str_contains="/")
    proxy: Series[bool]  # True when a scripted model wrote it
    prompt_version: Series[int] = pa.Field(ge=1)
    seed: Series[int]
    failure: Series[str] = pa.Field(nullable=True)

    @pa.check("source_ids", element_wise=True, error="must be a list of strings")
    def sources(cls, value: object) -> bool:
        return is_list_of(value, str)

    @pa.check("assigned", "levels", element_wise=True, error="must map the five traits to high/medium/low")
    def trait_levels(cls, value: object) -> bool:
        return _levels_ok(value)

    @pa.dataframe_check(error="a persona has a style and a failure, or neither")
    def style_xor_failure(cls, df: pd.DataFrame) -> bool:
        return bool((df["style"].isna() == df["failure"].notna()).all())
