"""PLawBench's interim tables (stage `ingest`): case analysis (PCA), consultation (PLC) and document drafting
(LDG); each table's loader and schema.

Spec plawbench.md §2. The rubrics are kept as the data gives them: PCA's four scored dimensions as
structured items with integer points; PLC's and LDG's free-text rubrics as text plus the declared total
("总分：N分"), to be parsed item by item by the PLawBench stage.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import pandas as pd
import pandera.pandas as pa
import pyarrow
from pandera.typing import Series

from steps.plawbench.sql import QUERIES
from steps.registry import SourceTable
from steps.schemas.base import Strict, is_list_of_dicts_with
from steps.sources.errors import SourceFormatError
from steps.sources.readers import read_json_array, read_jsonl, require_keys
from steps.sources.types import Fetched

_TOTAL = re.compile(r"总分\s*[：:]\s*(\d+(?:\.\d+)?)\s*分?")


def declared_total(rubric: str) -> float | None:
    """The "总分：N分" header of a rubric, or None when the rubric has none."""
    m = _TOTAL.search(rubric)
    return float(m.group(1)) if m else None


def load_case_analysis(files: list[Fetched]) -> pd.DataFrame:
    """`practical_case_analysis_250.jsonl`: no id field, so the 0-based line index is the id."""
    rows = []
    for f in files:
        label = str(f.local)
        for lineno, rec in read_jsonl(f.local, label):
            where = f"line {lineno}"
            require_keys(rec, ["label", "context", "question", "rubrics"], file=label, where=where)
            rubrics = rec["rubrics"]
            if not isinstance(rubrics, list) or not rubrics:
                raise SourceFormatError(label, where, "'rubrics' must be a non-empty list")
            items = []
            for k, r in enumerate(rubrics):
                require_keys(r, ["criterion", "points", "tags"], file=label, where=f"{where}, rubrics[{k}]")
                try:
                    points = int(str(r["points"]).strip())
                except ValueError:
                    raise SourceFormatError(
                        label, f"{where}, rubrics[{k}]", f"points {r['points']!r} is not an integer"
                    ) from None
                items.append({"tag": r["tags"], "criterion": r["criterion"], "points": points})
            rows.append(
                {
                    "item_id": f"pca/{lineno - 1}",
                    "line": lineno - 1,
                    "label": rec["label"],
                    "context": rec["context"],
                    "question": rec["question"],
                    "rubrics": items,
                    "max_points": sum(i["points"] for i in items),
                }
            )
    return pd.DataFrame(rows)


def load_consultation(files: list[Fetched]) -> pd.DataFrame:
    """`public_legal_consultation_18.json`: id, conversation, rubrics (text), score ("" in all rows)."""
    rows = []
    for f in files:
        label = str(f.local)
        records = read_json_array(f.local, label)
        for i, rec in enumerate(records):
            require_keys(rec, ["id", "conversation", "rubrics"], file=label, where=f"record {i}")
            rows.append(
                {
                    "item_id": f"plc/{rec['id']}",
                    "id": int(rec["id"]),
                    "conversation": rec["conversation"],
                    "rubric": rec["rubrics"],
                    "declared_total": declared_total(rec["rubrics"]),
                }
            )
    return pd.DataFrame(rows)


def load_drafting(files: list[Fetched]) -> pd.DataFrame:
    """`Plantiffs_Statement.json` / `Defendants_Statement.json`: the same 6 disputes from both sides."""
    sides = {"Plantiffs_Statement.json": "plaintiff", "Defendants_Statement.json": "defendant"}
    rows = []
    for f in files:
        label = str(f.local)
        side = sides.get(PurePosixPath(f.source.path).name)
        if side is None:
            raise SourceFormatError(label, "path", "not a known drafting file")
        records = read_json_array(f.local, label)
        for i, rec in enumerate(records):
            require_keys(rec, ["id", "tag", "conversation", "Rubrics", "score"], file=label, where=f"record {i}")
            rows.append(
                {
                    "item_id": f"{side}/{rec['id']}",
                    "side": side,
                    "id": int(rec["id"]),
                    "tag": rec["tag"],
                    "conversation": rec["conversation"],
                    "rubric": rec["Rubrics"],
                    "max_points": float(rec["score"]),
                    "declared_total": declared_total(rec["Rubrics"]),
                }
            )
    return pd.DataFrame(rows)


class PlawCaseAnalysis(Strict):
    item_id: Series[str] = pa.Field(unique=True)
    line: Series[int] = pa.Field(ge=0)
    label: Series[str] = pa.Field(str_length={"min_value": 1})
    context: Series[str] = pa.Field(str_length={"min_value": 1})
    question: Series[str] = pa.Field(str_length={"min_value": 1})
    rubrics: Series[object]
    max_points: Series[int] = pa.Field(gt=0)

    @pa.check("rubrics", element_wise=True, error="rubrics must be a list of {tag, criterion, points}")
    def rubrics_are_items(cls, value: object) -> bool:
        return bool(value) and is_list_of_dicts_with(value, "tag", "criterion", "points")


class PlawConsultation(Strict):
    item_id: Series[str] = pa.Field(unique=True)
    id: Series[int] = pa.Field(ge=1)
    conversation: Series[str] = pa.Field(str_length={"min_value": 1})
    rubric: Series[str] = pa.Field(str_length={"min_value": 1})
    declared_total: Series[float] = pa.Field(nullable=True, gt=0)


class PlawDrafting(Strict):
    item_id: Series[str] = pa.Field(unique=True)
    side: Series[str] = pa.Field(isin=["plaintiff", "defendant"])
    id: Series[int] = pa.Field(ge=1)
    tag: Series[str] = pa.Field(str_length={"min_value": 1})
    conversation: Series[str] = pa.Field(str_length={"min_value": 1})
    rubric: Series[str] = pa.Field(str_length={"min_value": 1})
    max_points: Series[float] = pa.Field(gt=0)
    declared_total: Series[float] = pa.Field(nullable=True, gt=0)


_str = pyarrow.string()
RUBRIC_ITEMS = pyarrow.list_(pyarrow.struct([("tag", _str), ("criterion", _str), ("points", pyarrow.int64())]))

TABLES = (
    SourceTable(
        "plawbench_case_analysis",
        "PLawBench case analysis",
        load_case_analysis,
        PlawCaseAnalysis,
        {"rubrics": RUBRIC_ITEMS},
        summary=QUERIES.path("data_plawbench_case_analysis"),
    ),
    SourceTable(
        "plawbench_consultation",
        "PLawBench consultation",
        load_consultation,
        PlawConsultation,
        summary=QUERIES.path("data_plawbench_consultation"),
    ),
    SourceTable(
        "plawbench_drafting",
        "PLawBench document drafting",
        load_drafting,
        PlawDrafting,
        summary=QUERIES.path("data_plawbench_drafting"),
    ),
)
