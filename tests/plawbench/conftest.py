from __future__ import annotations

import pytest

from steps.plawbench.rubrics import RubricTables, build_rubrics
from steps.schemas import validate
from steps.sources import Fetched
from steps.sources.tables import interim_tables
from tests.judges.conftest import answers, door  # noqa: F401  (the fake-server judge fixtures)

NAMES = ("plawbench_case_analysis", "plawbench_consultation", "plawbench_drafting")


@pytest.fixture(scope="session")
def sources(manifest, mirror) -> dict:
    """The three PLawBench ingest tables, loaded from the pinned mirror."""
    out = {}
    for name in NAMES:
        files = [Fetched(f, mirror / f.path) for f in manifest.for_dataset(name)]
        table = interim_tables()[name]
        out[name] = validate(table.load(files), table.schema, table=name)
    return out


@pytest.fixture(scope="session")
def tables(sources) -> RubricTables:
    return build_rubrics(*(sources[n] for n in NAMES))


def rows_of(tables: RubricTables, item_id: str):
    return tables.items[tables.items.item_id == item_id].set_index("rubric_id")


def issues_of(tables: RubricTables, item_id: str):
    return tables.issues[tables.issues.item_id == item_id]
