"""A new J1 environment is one folder: a tiny environment `ZZ` written to a temporary folder (a consultation
with a four-turn cap, built from its own topic sources, with scripted policies) is picked up, with no other
edit, by the params validation, the plan, the instance schemas, the stages that build the instances and their
report, the engine (its rows, its scripted policies, a dialogue), the evaluator dispatch, the SQL's environment
tables and the report layout.

The folder joins the `steps.j1.envs` package in a fresh interpreter (its `__path__` extended before anything
else is imported), so the module-level layouts (Table 3's columns, the HTML list) are derived with it, as they
would be for a folder under steps/j1/envs/.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

ROOT = Path(__file__).resolve().parents[3]

ENV_PY = '''
"""ZZ, a test-only environment: KQ's protocol with a four-turn cap, built from its own topic sources."""

from dataclasses import replace

from steps.j1.envs.environment import Environment
from steps.j1.envs.common.built import Draft
from steps.j1.envs.common.profiles import KQAgent, KQClient, TopicsTruth
from steps.j1.envs.kq.instances import draft_kq
from steps.j1.envs.kq.scenario import KQ
from steps.simulate import Ending

ZZ = replace(KQ, code="ZZ", ending=Ending(max_turns=4, markers=KQ.ending.markers))


def draft(source):
    made = draft_kq(source)
    iid = "ZZ/" + made.instance_id.split("/", 1)[1]
    if not isinstance(made, Draft):
        return replace(made, instance_id=iid, scenario="ZZ")
    subject = replace(made.subject, key=f"{iid}/client", scenario="ZZ")
    return replace(made, instance_id=iid, scenario="ZZ", max_turns=ZZ.ending.max_turns, subject=subject)


ENV = Environment(
    scenario=ZZ,
    name="quick questioning",
    position=7,
    paper_size=5,
    population="topics",
    draft=draft,
    profiles={"client": KQClient, "agent": KQAgent},
    truth=TopicsTruth,
    evaluator="consultation",
    metrics=("I-1", "I-2"),
    outcome=("I-1", "I-2"),
)
'''

SCRIPTED_PY = """
from steps.llm import register_policy
from steps.j1.envs.kq.scripted import _persona, oracle

register_policy("persona", "ZZ", _persona)
register_policy("oracle", "ZZ", oracle)
"""

# Run in a fresh interpreter with the folder on the package's path; prints what each layer sees, as JSON.
PROBE = r"""
import json, sys
import steps.j1.envs
steps.j1.envs.__path__.append(sys.argv[1])
fixture = json.loads(open(sys.argv[2], encoding="utf-8").read())

import pandas as pd
from pydantic import ValidationError

from steps.j1.params import J1Params
from steps.j1.eval import consultation
from steps.j1.eval.case import Case
from steps.j1.eval.evaluate import evaluate_case, evaluator_of, metrics_of
from steps.j1.eval.report import PAPER_SIZES, SCOPES, TABLE3
from steps.j1.eval.tables import averages_of
from steps.llm.scripted import policy_for
from steps.benchmarks import benchmark
from steps.registry import resolve
from steps.j1.envs import known_codes
from steps.j1.envs.catalog import environment_table, metric_table
from steps.j1.envs.common.plan import plan, pool_of
from steps.j1.envs.registry import SCENARIOS, instance_from_row, instance_sizes
from steps.j1.envs.schemas import Instances, instance_errors, instances_arrow_types, typed_truth
from steps.tables import to_arrow
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.simulate.engine import run_dialogue
from steps.simulate.runner import DoorSpeaker
import asyncio

seen = {"known_codes": known_codes(), "scopes": list(SCOPES), "html": list(resolve(benchmark("j1").page.scope_order)())}
params = J1Params.model_validate(
    {"instances": {"sizes": {"ZZ": 1}}, "simulate": {"scenarios": ["ZZ"], "max_turns": {"ZZ": 3}}}
)
seen["params"] = [params.simulate.scenarios, params.simulate.max_turns]
try:
    J1Params.model_validate({"simulate": {"scenarios": ["YY"]}})
    seen["unknown"] = None
except ValidationError as e:
    seen["unknown"] = str(e)
seen["paper_sizes"] = instance_sizes("paper")
seen["turn_cap"] = SCENARIOS["ZZ"].ending.max_turns

topics = [dict(t, scenario="ZZ") for t in fixture["topics"] if t["scenario"] == "KQ"]
the_plan = plan({pool_of("ZZ"): topics}, {"ZZ": 1}, seed=0)
draft = the_plan.drafts[0]
seen["plan"] = [draft.instance_id, draft.scenario, draft.max_turns, [e.taken for e in the_plan.eligibility]]

profiles = dict(draft.profiles, client=dict(draft.profiles["client"], style="说话简短"))
row = {"instance_id": draft.instance_id, "scenario": "ZZ", "scenario_version": 1, "source_ids": list(draft.source_ids),
       "persona_ids": [], "profiles": profiles, "ground_truth": draft.ground_truth, "max_turns": draft.max_turns,
       "facets": draft.facets, "seed": 0}
frame = Instances.validate(pd.DataFrame([row]))
to_arrow(frame, instances_arrow_types())
seen["instance_errors"] = instance_errors(frame)
alien = pd.DataFrame([dict(row, profiles=dict(profiles, judge={"name": "x"}))])
seen["alien_errors"] = instance_errors(alien)
instance = instance_from_row(row, {"ZZ": 2})
seen["instance"] = [instance.scenario, instance.max_turns, sorted(instance.profiles)]
seen["policies"] = [policy_for("persona", "ZZ").__name__, policy_for("oracle", "ZZ").__name__]
door = ModelDoor(LLMSettings(cache_dir=sys.argv[3]))
agent = ModelConfig(name="oracle", model="scripted/oracle")
speak = DoorSpeaker(door, agent, ModelConfig(name="env", model="scripted/persona"))
dialogue = asyncio.run(run_dialogue(SCENARIOS["ZZ"], instance_from_row(row), speak))
door.close()
seen["dialogue"] = [str(dialogue.ended_by), dialogue.exchanges, [t.speaker for t in dialogue.utterances()][:4]]

seen["evaluator"] = evaluator_of("ZZ") is consultation.evaluate
seen["metrics"] = list(metrics_of("ZZ"))
case = Case(draft.instance_id, "ZZ", typed_truth("ZZ", draft.ground_truth), [],
            {"ended_by": "call_failed", "failure": "server", "text": None}, "agent")
rows = asyncio.run(evaluate_case(case, None, params.eval))
seen["broken_rows"] = [[r.metric, r.status] for r in rows]

seen["table3"] = [list(c) for c in TABLE3 if c[0] == "ZZ"]
seen["report_sizes"] = PAPER_SIZES.get("ZZ")
seen["sql_environments"] = environment_table().query("scenario == 'ZZ'").to_dict("records")
kinds = metric_table().dropna(subset=["average"])
cells = pd.DataFrame({"agent": "a", "scope": kinds.scenario, "metric": kinds.metric, "component": "",
                      "value": [0.0 if s == "ZZ" else 1.0 for s in kinds.scenario], "n": 1, "n_failed": 0,
                      "n_unparsable": 0, "judge": "rule", "proxy": False})
averages = averages_of(cells).set_index("metric").value
seen["averages"] = {k: round(float(v), 6) for k, v in averages.items()}
# the real stages j1_personas and j1_instances on the fixture sources, with topic sources of its own
import pathlib
from tests.j1.envs.conftest import build, write_sources
from steps.j1.envs.schemas import topics_arrow_types
from steps.tables import write_parquet_atomic
project = write_sources(pathlib.Path(sys.argv[3]) / "project", sizes={"KQ": None, "CR": None, "ZZ": None})
write_parquet_atomic(to_arrow(pd.DataFrame(fixture["topics"] + topics), topics_arrow_types()),
                     project.processed / "topics.parquet")
build(project)
built = pd.read_parquet(project.processed / "instances.parquet")
seen["built"] = built.groupby("scenario").size().to_dict()
seen["built_caps"] = sorted(set(built[built.scenario == "ZZ"].max_turns))
seen["report_row"] = [l for l in project.report.read_text(encoding="utf-8").splitlines() if l.startswith("| ZZ |")][0]
print(json.dumps(seen, ensure_ascii=False, default=str))
"""


@pytest.fixture(scope="module")
def seen(tmp_path_factory) -> dict:
    extra = tmp_path_factory.mktemp("extra")
    folder = extra / "zz"
    folder.mkdir()
    (folder / "__init__.py").write_text('"""A test-only J1 environment."""\n', encoding="utf-8")
    (folder / "env.py").write_text(ENV_PY.lstrip(), encoding="utf-8")
    (folder / "scripted.py").write_text(SCRIPTED_PY.lstrip(), encoding="utf-8")
    fixture = Path(__file__).parent / "fixtures" / "sources.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PROBE), str(extra), str(fixture), str(extra / "cache")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_params_know_the_new_environment_and_still_refuse_an_unknown_one(seen):
    assert "ZZ" in seen["known_codes"]
    assert seen["params"] == [["ZZ"], {"ZZ": 3}]
    assert "unknown scenario(s) ['YY']" in seen["unknown"] and "'ZZ'" in seen["unknown"]
    assert list(seen["paper_sizes"]) == ["KQ", "LC", "CD", "DD", "CI", "CR", "ZZ"] and seen["paper_sizes"]["ZZ"] == 5
    assert seen["turn_cap"] == 4


def test_the_plan_builds_its_instances_with_its_own_builder_and_pool(seen):
    instance_id, scenario, max_turns, taken = seen["plan"]
    assert instance_id.startswith("ZZ/") and scenario == "ZZ" and max_turns == 4 and taken == [1]


def test_the_instance_schemas_and_the_engine_take_its_rows(seen):
    assert seen["instance_errors"] == []
    assert "roles ['judge'] are not roles of ZZ" in seen["alien_errors"][0]
    assert seen["instance"] == ["ZZ", 2, ["agent", "client"]]
    assert seen["policies"] == ["_persona", "oracle"]  # its folder's scripted.py, found on disk


def test_the_instance_stages_build_it_and_the_instances_report_lists_it(seen):
    assert seen["built"] == {"CR": 2, "KQ": 3, "ZZ": 3} and seen["built_caps"] == [4]
    assert seen["report_row"].startswith("| ZZ | 3 | 5 | all | 3 |")  # built, the paper size it registers, asked


def test_the_engine_runs_its_dialogue_with_its_scripted_policies_and_turn_cap(seen):
    ended_by, exchanges, speakers = seen["dialogue"]
    assert (ended_by, exchanges) == ("max_turns", 4)  # its four topics outlast its four-turn cap
    assert speakers == ["client", "agent", "client", "agent"]


def test_the_evaluator_dispatch_scores_it_on_its_metrics(seen):
    assert seen["evaluator"] is True and seen["metrics"] == ["I-1", "I-2"]
    assert seen["broken_rows"] == [["I-1", "dialogue_failed"], ["I-2", "dialogue_failed"]]


def test_the_report_layout_and_the_sql_include_it_after_the_papers_six(seen):
    assert seen["scopes"] == ["KQ", "LC", "CD", "DD", "CI", "CR", "ZZ"] == seen["html"]
    assert seen["table3"] == [["ZZ", "I-1"], ["ZZ", "I-2"]] and seen["report_sizes"] == 5
    (row,) = seen["sql_environments"]
    assert row["position"] == 7 and row["name"] == "quick questioning" and row["population"] == "topics"
    # AVG_OO averages its two outcome cells (0) with the paper's eight (1): 8/10; AVG_PO is the paper's eight
    assert seen["averages"] == {"AVG_OO": 0.8, "AVG_PO": 1.0, "Overall": 0.9}
