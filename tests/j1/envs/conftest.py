"""J1 instances built by the real `j1_personas` and `j1_instances` flows from the fixture sources
(fixtures/sources.json).

`project` writes the fixture cases, case types and topic sources where the flows read them, with a params file
that takes every eligible source (scripted environment model, a private response cache), and runs both flows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import j1_instances, j1_personas
from steps.j1.envs.registry import instance_from_row
from steps.j1.envs.schemas import Instances, topics_arrow_types
from steps.j1.extract.schemas import CASES_ARROW_TYPES
from steps.simulate.instance import Instance
from steps.tables import read_table, to_arrow, write_parquet_atomic

FIXTURES = Path(__file__).parent / "fixtures"
ALL = {code: None for code in ("KQ", "LC", "CD", "DD", "CI", "CR")}


def sources() -> dict:
    return json.loads((FIXTURES / "sources.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Project:
    root: Path
    params: Path

    @property
    def paths(self) -> Paths:
        return Paths(data=self.root / "data", reports=self.root / "reports", cache=self.root / ".cache")

    @property
    def processed(self) -> Path:
        """J1's shared tables (cases, topics, personas, instances)."""
        return self.paths.shared("j1")

    @property
    def interim(self) -> Path:
        return self.paths.interim

    @property
    def report(self) -> Path:
        return self.paths.reports / "instances.md"


def write_sources(root: Path, *, sizes: dict | None = None, seed: int = 0, environment: str = "scripted/persona"):
    """The fixture sources as the flows read them, and a params file; returns the project's paths."""
    data = sources()
    project = Project(root, root / "params.yaml")
    processed, interim = project.processed, project.interim
    write_parquet_atomic(to_arrow(pd.DataFrame(data["cases"]), CASES_ARROW_TYPES), processed / "cases.parquet")
    write_parquet_atomic(to_arrow(pd.DataFrame(data["topics"]), topics_arrow_types()), processed / "topics.parquet")
    write_parquet_atomic(to_arrow(pd.DataFrame(data["causes"])), interim / "judgments_civil.parquet")
    doc = {
        "environment": {"model": environment},
        "llm": {"cache_dir": str(root / "cache"), "backoff_base_s": 0.01, "backoff_max_s": 0.02, "max_attempts": 2},
        "j1": {"instances": {"seed": seed, "sizes": sizes or ALL}, "personas": {"seed": seed}},
    }
    project.params.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return project


def build(project: Project) -> None:
    kwargs = {"params_file": project.params, "paths": project.paths}
    assert run_stage("j1_personas", j1_personas, **kwargs) == 0
    assert run_stage("j1_instances", j1_instances, **kwargs) == 0


@pytest.fixture(scope="session")
def project(tmp_path_factory) -> Project:
    p = write_sources(tmp_path_factory.mktemp("j1"))
    build(p)
    return p


@pytest.fixture(scope="session")
def instance_rows(project) -> pd.DataFrame:
    return read_table(project.processed / "instances.parquet", Instances)


@pytest.fixture(scope="session")
def instances(instance_rows) -> dict[str, Instance]:
    """Engine instances by scenario code (the first instance of each scenario) after a Parquet round trip."""
    out = {}
    for row in instance_rows.to_dict("records"):
        out.setdefault(row["scenario"], instance_from_row(row))
    return out
