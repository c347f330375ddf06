"""J1 instances: typed and complete, skipped with a reason, free of ground truth on the agent's side, seeded."""

from __future__ import annotations

import pandas as pd
import pytest

from steps.j1.envs.common.built import Draft, Skipped, finish
from steps.j1.envs.common.oracle_judgment import _term
from steps.j1.envs.common.plan import plan
from steps.j1.envs.registry import SCENARIOS, instance_from_row
from steps.j1.envs.schemas import InstanceSkips, instance_errors
from steps.j1.extract.statutes import find_statutes
from steps.j1.personas.generate import Persona, Subject
from steps.reports.long import long_columns
from steps.simulate.engine import Engine
from steps.tables import read_table
from tests.j1.envs.conftest import build, sources, write_sources

AGENT = {"KQ": "agent", "LC": "agent", "CD": "lawyer", "DD": "lawyer", "CI": "judge", "CR": "judge"}


def test_every_scenario_is_built_and_every_instance_validates(instance_rows):
    assert set(instance_rows.scenario) == set(SCENARIOS)
    assert instance_errors(instance_rows) == []
    for row in instance_rows.to_dict("records"):
        instance = instance_from_row(row)
        assert set(instance.profiles) == set(SCENARIOS[row["scenario"]].roles) - {"supervisor"}
        assert row["max_turns"] == SCENARIOS[row["scenario"]].ending.max_turns


def test_a_profile_without_a_mandatory_field_does_not_validate(instance_rows):
    broken = instance_rows.copy()
    cd = broken.index[broken.scenario == "CD"][0]
    profiles = {**broken.at[cd, "profiles"]}
    profiles["plaintiff"] = {**profiles["plaintiff"], "claims": None}
    broken.at[cd, "profiles"] = profiles
    errors = instance_errors(broken)
    assert len(errors) == 1 and "plaintiff.claims" in errors[0]
    alien = instance_rows.copy()
    kq = alien.index[alien.scenario == "KQ"][0]
    alien.at[kq, "profiles"] = {**alien.at[kq, "profiles"], "judge": {"findings": "x"}}
    assert "not roles of KQ" in instance_errors(alien)[0]


def test_sources_that_lack_what_a_scenario_needs_are_skipped_with_the_reason(project, instance_rows):
    skips = read_table(project.processed / "instance_skips.parquet", InstanceSkips)
    reasons = dict(zip(skips.instance_id, skips.reason, strict=True))
    bad_civil = "c3rd/b70c33cebbff4e92845dac32017d02b7"  # a 裁定书 (jurisdiction transfer), no defence, no evidence
    for code in ("CD", "DD", "CI"):
        assert reasons[f"{code}/{bad_civil}"].startswith("missing: judgment")
        assert f"{code}/{bad_civil}" not in set(instance_rows.instance_id)
    several = "CR/judge/b89d7fe1-7c28-4c61-ac37-bae1bf13cbfc"
    assert reasons[several].startswith("several defendants")
    text = instance_rows.profiles.astype(str).str.cat()
    assert "None" not in text.replace("': None", "") and "（无）" not in text  # no placeholder filled in


def test_a_failed_persona_skips_its_instance_with_the_failure():
    subject = Subject("CD/x/plaintiff", "CD", "plaintiff", "原告", "person", "案情")
    draft = Draft("CD/x", "CD", ("x",), {"plaintiff": {"kind": "person"}, "lawyer": {"template": "T"}}, {}, 20, subject)
    failed = Persona(
        "CD/x/plaintiff",
        "CD",
        "plaintiff",
        None,
        None,
        None,
        3,
        "…",
        None,
        True,
        True,
        "m/x",
        "trait levels: parse: invalid JSON answer after 2 attempts",
    )
    assert finish(draft, {}) == Skipped(
        "CD/x", "CD", ("x",), "missing: persona (not generated; rerun the personas stage)"
    )
    skipped = finish(draft, {failed.key: failed})
    assert isinstance(skipped, Skipped) and "invalid JSON" in skipped.reason


def _forbidden(code: str, truth: dict) -> list[str]:
    """Ground-truth strings the agent must not be given in its instance (spec j1-envs §9.3-25)."""
    if code in ("KQ", "LC"):
        return [t["answer"] for t in truth["topics"] if t["kind"] != "binary"]
    if code == "CD":
        return [*truth["claims"], truth["case_details"], *(e for e in truth["evidence"] if len(e) > 4)]
    if code == "DD":  # (an evidence item may be a bare word such as 证据, which any prompt may contain)
        return [truth["defence"], *(e for e in truth["evidence"] if len(e) > 4)]
    out = [*truth["rulings"], truth["reasoning"][4:40]]
    if code == "CR":
        out += [f"{c.removesuffix('罪')}罪" for c in truth["charges"]]
        if truth["prison_months"]:
            out.append(_term(truth["prison_months"]))
        if truth["fine_yuan"]:
            out.append(f"{int(truth['fine_yuan'])}元")
    return out


def test_the_agent_is_never_given_the_ground_truth(instance_rows):
    checked = 0
    for row in instance_rows.to_dict("records"):
        instance = instance_from_row(row)
        code, truth = row["scenario"], instance.ground_truth
        prompt = " ".join(m["content"] for m in Engine(SCENARIOS[code], instance, None).messages(AGENT[code]))
        for text in _forbidden(code, truth):
            assert text not in prompt, (row["instance_id"], text)
        if code in ("CI", "CR"):
            cited = {
                (s.law.strip("《》").removeprefix("中华人民共和国"), s.article) for _, s in find_statutes(prompt)[0]
            }
            laws = {(x["law"].removeprefix("中华人民共和国"), x["article"]) for x in truth["laws"]}
            assert not cited & laws, row["instance_id"]
        checked += 1
    assert checked == len(instance_rows) >= 6


def test_the_civil_scenarios_share_their_cases_and_dd_reads_the_complaint(instance_rows):
    by = {code: set(instance_rows[instance_rows.scenario == code].source_ids.map(tuple)) for code in ("CD", "DD", "CI")}
    assert by["CD"] == by["DD"] == by["CI"] and len(by["CD"]) == 3
    dd = instance_from_row(instance_rows[instance_rows.scenario == "DD"].iloc[0].to_dict())
    cd = instance_from_row(instance_rows[instance_rows.instance_id == "CD/" + dd.instance_id[3:]].iloc[0].to_dict())
    complaint = dd.profiles["lawyer"]["complaint"]
    assert complaint.startswith("民事起诉状") and "诉讼请求：" in complaint
    assert all(c in complaint for c in cd.ground_truth["claims"])


def test_same_params_give_identical_bytes_and_another_seed_other_personas(tmp_path, project):
    again = write_sources(tmp_path / "again")
    build(again)
    for name in ("personas.parquet", "instances.parquet", "instance_skips.parquet"):
        assert (again.processed / name).read_bytes() == (project.processed / name).read_bytes(), name
    other = write_sources(tmp_path / "other", seed=1)
    build(other)
    a = pd.read_parquet(project.processed / "personas.parquet").set_index("persona_id").levels
    b = pd.read_parquet(other.processed / "personas.parquet").set_index("persona_id").levels
    assert set(a.index) == set(b.index) and any(a[k] != b[k] for k in a.index)


def test_the_sample_takes_the_first_eligible_by_seeded_rank_and_records_what_it_passed():
    pools = {"criminal": [r for r in sources()["cases"] if r["kind"] == "criminal"], "civil": [], "KQ": [], "LC": []}
    whole = plan(pools, {"CR": None}, seed=0)
    assert [e.eligible for e in whole.eligibility] == [2] and len(whole.drafts) == 2
    one = plan(pools, {"CR": 1}, seed=0)
    assert len(one.drafts) == 1 and one.eligibility[0].taken == 1 and one.eligibility[0].lacking
    assert plan(pools, {"CR": 1}, seed=0) == one
    firsts = {plan(pools, {"CR": 1}, seed=s).drafts[0].instance_id for s in range(12)}
    assert len(firsts) == 2  # the seed changes which eligible case comes first
    short = plan(pools, {"CR": 5}, seed=0)
    assert short.eligibility[0].taken == 2 and len(short.skipped) == 1  # fewer eligible than asked: all taken


@pytest.mark.parametrize("code", ["KQ", "LC", "CD", "DD", "CI", "CR"])
def test_the_report_counts_each_scenario(project, code):
    report = project.report.read_text(encoding="utf-8")
    assert f"| {code} |" in report
    long = pd.read_csv(project.report.with_suffix(".csv"))
    assert list(long.columns) == long_columns(with_failed=False)
    ours = long[(long.table == "instances") & (long.scope == code) & (long.metric == "instances")]
    assert set(ours.source) == {"ours", "paper"}
