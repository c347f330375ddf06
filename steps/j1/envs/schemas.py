"""Environment instance tables: topic sources, instances (typed role profiles and ground truth) and skips.

The Parquet types of `profiles` and `ground_truth` are derived from the registered environments' pydantic models
(`steps.j1.envs.catalog`): `profiles` is a struct with one struct per role name, whose fields are the union
of what that role is given in any scenario; `ground_truth` is the union of every scenario's ground truth. A
row's profiles and truth are validated against its own scenario's models by `instance_errors`. Not exported by
`steps.schemas`: they load every environment's registration, which the other tables' stages do not need.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, get_args, get_origin

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
from pandera.typing import Series
from pydantic import BaseModel, ValidationError

from steps.j1.envs.catalog import codes, environment, environments
from steps.schemas.base import Strict, is_list_of


def arrow_type(annotation: Any) -> pa_arrow.DataType:
    """The Arrow type of a pydantic field annotation (str, int, float, bool, Literal, list, model, Optional)."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return arrow_type(get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in get_args(annotation) if a is not type(None)]
        return arrow_type(inner)
    if origin is Literal:
        return pa_arrow.string()
    if origin is list:
        return pa_arrow.list_(arrow_type(get_args(annotation)[0]))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return struct_of([annotation])
    return {str: pa_arrow.string(), int: pa_arrow.int64(), float: pa_arrow.float64(), bool: pa_arrow.bool_()}[
        annotation
    ]


def struct_of(models: list[type[BaseModel]]) -> pa_arrow.StructType:
    """One struct with the union of the models' fields (a field shared by two models must agree in type)."""
    fields: dict[str, pa_arrow.DataType] = {}
    for model in models:
        for name, info in model.model_fields.items():
            typ = arrow_type(info.annotation)
            if fields.setdefault(name, typ) != typ:
                raise TypeError(f"{model.__name__}.{name}: {typ} conflicts with {fields[name]}")
    return pa_arrow.struct([(name, typ) for name, typ in sorted(fields.items())])


def _profiles_type() -> pa_arrow.StructType:
    roles: dict[str, list[type[BaseModel]]] = {}
    for env in environments().values():
        for role, model in env.profiles.items():
            roles.setdefault(role, []).append(model)
    return pa_arrow.struct([(role, struct_of(models)) for role, models in sorted(roles.items())])


_s = pa_arrow.string()


def instances_arrow_types() -> dict[str, pa_arrow.DataType]:
    """The Parquet types of instances.parquet's nested columns, from the registered environments."""
    return {
        "source_ids": pa_arrow.list_(_s),
        "persona_ids": pa_arrow.list_(_s),
        "profiles": _profiles_type(),
        "ground_truth": struct_of(list(dict.fromkeys(e.truth for e in environments().values()))),
        "facets": pa_arrow.struct(
            [("cause", _s), ("charges", pa_arrow.list_(_s)), ("topic_kinds", pa_arrow.list_(_s)), ("derivation", _s)]
        ),
    }


def topics_arrow_types() -> dict[str, pa_arrow.DataType]:
    """The Parquet types of topics.parquet's nested columns."""
    return {"topics": instances_arrow_types()["ground_truth"].field("topics").type, "items": pa_arrow.list_(_s)}


def _present(record: dict[str, Any] | None) -> dict[str, Any]:
    """A struct read back from Parquet with the fields of other scenarios (always null) dropped."""
    return {k: v for k, v in (record or {}).items() if v is not None}


def typed_profiles(scenario: str, profiles: dict[str, Any]) -> dict[str, BaseModel]:
    """The row's role profiles validated by its scenario's models (raises ValidationError or KeyError)."""
    models = environment(scenario).profiles
    return {role: model.model_validate(_present(profiles.get(role))) for role, model in models.items()}


def typed_truth(scenario: str, truth: dict[str, Any]) -> BaseModel:
    return environment(scenario).truth.model_validate(_present(truth))


def _first_error(where: str, e: ValidationError) -> str:
    first = e.errors()[0]
    return f"{where}.{'.'.join(map(str, first['loc']))}: {first['msg']}"


def instance_errors(df: pd.DataFrame) -> list[str]:
    """Every row whose profiles or ground truth do not validate against its scenario's models."""
    errors = []
    for row in df[["instance_id", "scenario", "profiles", "ground_truth"]].to_dict("records"):
        iid, code, profiles = row["instance_id"], row["scenario"], row["profiles"] or {}
        if code not in environments():
            errors.append(f"{iid}: {code} is not a registered environment")
            continue
        models = environment(code).profiles
        for role, model in models.items():
            try:
                model.model_validate(_present(profiles.get(role)))
            except ValidationError as e:
                errors.append(f"{iid}: {_first_error(role, e)}")
        try:
            typed_truth(code, row["ground_truth"])
        except ValidationError as e:
            errors.append(f"{iid}: {_first_error('ground_truth', e)}")
        extra = {r for r, p in profiles.items() if _present(p)} - set(models)
        if extra:
            errors.append(f"{iid}: roles {sorted(extra)} are not roles of {code}")
    return errors


class TopicSources(Strict):
    """One row per KQ / LC topic source: the lay client's identity, the topics and how they were derived."""

    scenario: Series[str]
    source_id: Series[str] = pa.Field(str_length={"min_value": 1})
    theme: Series[str] = pa.Field(str_length={"min_value": 1})
    background: Series[str] = pa.Field(nullable=True)
    occupation: Series[str] = pa.Field(nullable=True)
    client_name: Series[str] = pa.Field(nullable=True)
    topics: Series[object]
    derivation: Series[str]
    items: Series[object]
    method: Series[str] = pa.Field(isin=["derived", "llm"])

    @pa.check("scenario", error="must be an environment whose instances come from topic sources")
    def topical(cls, scenario: Series[str]) -> Series[bool]:
        return scenario.isin([c for c, e in environments().items() if e.population == "topics"])

    @pa.dataframe_check(error="(scenario, source_id) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["scenario", "source_id"]).any()


class Instances(Strict):
    """One row per environment instance: what every role is given, the ground truth and the turn cap."""

    instance_id: Series[str] = pa.Field(unique=True, str_matches=r"^[A-Z]{2}/")
    scenario: Series[str]
    scenario_version: Series[int] = pa.Field(ge=1)
    source_ids: Series[object]
    persona_ids: Series[object]
    profiles: Series[object]
    ground_truth: Series[object]
    max_turns: Series[int] = pa.Field(ge=1)
    facets: Series[object]
    seed: Series[int]

    @pa.check("scenario", error="must be a registered environment's code")
    def known(cls, scenario: Series[str]) -> Series[bool]:
        return scenario.isin(codes())

    @pa.check("source_ids", "persona_ids", element_wise=True, error="must be a list of strings")
    def string_lists(cls, value: object) -> bool:
        return is_list_of(value, str)

    @pa.dataframe_check(error="profiles or ground truth do not validate against the scenario's models")
    def typed(cls, df: pd.DataFrame) -> bool:
        return not instance_errors(df)


class InstanceSkips(Strict):
    """One row per candidate source that could not become an instance, with the reason (never a placeholder)."""

    instance_id: Series[str] = pa.Field(unique=True)
    scenario: Series[str]
    source_ids: Series[object]
    reason: Series[str] = pa.Field(str_length={"min_value": 1})

    @pa.check("scenario", error="must be a registered environment's code")
    def known(cls, scenario: Series[str]) -> Series[bool]:
        return scenario.isin(codes())
