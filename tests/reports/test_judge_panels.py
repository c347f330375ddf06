"""Panels of judges and human labels in the judge audit (stage `judges_report`): a panel of two scripted judges that
disagree by construction (`scripted/judge` and `scripted/judge_contrary`, which answers 10 − the proxy's score)
judges four J1-like items through the model door; the stage's κ, α, ρ and the agreement with a fake human-label
CSV match values computed by hand here, and κ and α match statsmodels and krippendorff."""

from __future__ import annotations

import asyncio
from fractions import Fraction
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

import steps.judges.scripted
import steps.judges.scripted_contrary  # noqa: F401  (registers its contrary)
from flows.kit.context import FlowContext
from steps.judges.panel import judge_by_panel
from steps.judges.pointwise import Comparison, judge_pointwise_many
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.params import Params
from steps.paths import Paths
from steps.reports.judges import judges_report

A, B = "scripted/judge", "scripted/judge_contrary"
PANEL = f"panel(mean): {A} + {B}"
REFERENCE = "甲乙丙丁戊"  # 4 character bigrams
# the proxy's score is round(10 × bigram F1): the reference itself 10, a disjoint text 0, its first three characters
# (2 of the 4 bigrams, both right: P 1, R 1/2, F1 2/3) 7; the contrary judge gives 10 − that
CANDIDATES = {"KQ/1": REFERENCE, "KQ/2": "子丑寅卯", "KQ/3": "甲乙丙", "KQ/4": "甲乙丙"}
VALUES = {A: [1.0, 0.0, 0.7, 0.7], B: [0.0, 1.0, 0.3, 0.3]}
HUMAN = "benchmark,item,agent,rater,score\n" + "".join(
    f"j1,{item},oracle,{rater},{score}\n"
    for item, scores in {"KQ/1": (8, 10), "KQ/2": (2, 0), "KQ/3": (6, 8), "KQ/4": (5, 5)}.items()
    for rater, score in zip(("r1", "r2"), scores, strict=True)
)


def _judged(door: ModelDoor, model: ModelConfig) -> pd.DataFrame:
    comparisons = [Comparison(REFERENCE, c) for c in CANDIDATES.values()]
    judged = asyncio.run(judge_pointwise_many(door, model, comparisons))
    rows = [
        {"instance_id": item, "scenario": "KQ", "metric": "I-2", "component": "", **j.row()}
        for item, j in zip(CANDIDATES, judged, strict=True)
    ]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("panels")
    door = ModelDoor(LLMSettings(cache_dir=str(root / "cache")), run_id="panel")
    models = [ModelConfig(name="judge", model=m) for m in (A, B)]
    aggregated, members = judge_by_panel(models, lambda m: _judged(door, m), ["instance_id", "metric"], "mean")
    run = root / "data" / "j1" / "runs" / "oracle"
    run.mkdir(parents=True)
    aggregated.to_parquet(run / "scores.parquet")
    members.to_parquet(run / "scores_panel.parquet")
    labels = root / "data" / "human_labels"
    labels.mkdir(parents=True)
    (labels / "fake.csv").write_text(HUMAN, encoding="utf-8")
    params = Params.model_validate({"agents": {"oracle": {"model": "scripted/oracle"}}})
    judges_report(FlowContext(params, Paths(data=root / "data", reports=root / "reports", cache=root / ".cache")))
    return root


def test_the_contrary_judge_disagrees_by_construction_and_the_panel_takes_the_mean(project):
    members = pd.read_parquet(project / "data/j1/runs/oracle/scores_panel.parquet")
    for judge, values in VALUES.items():
        assert members[members.judge == judge].value.tolist() == values
    panel = pd.read_parquet(project / "data/j1/runs/oracle/scores.parquet")
    assert panel.judge.unique().tolist() == [PANEL]
    assert panel.value.tolist() == [0.5, 0.5, 0.5, 0.5]  # (1 + 0) / 2, (0.7 + 0.3) / 2
    assert panel.attempts.tolist() == [2, 2, 2, 2]  # one call of each judge


def _hand_kappa(a: list[float], b: list[float]) -> float:
    """Linear-weighted κ from its definition, in fractions."""
    cats = sorted(set(a) | set(b))
    k, n = len(cats), len(a)
    weight = [[Fraction(abs(i - j), k - 1) for j in range(k)] for i in range(k)]
    observed = sum(weight[cats.index(x)][cats.index(y)] for x, y in zip(a, b, strict=True)) / n
    rows = [Fraction(a.count(c), n) for c in cats]
    cols = [Fraction(b.count(c), n) for c in cats]
    expected = sum(rows[i] * cols[j] * weight[i][j] for i in range(k) for j in range(k))
    return float(1 - observed / expected)


def test_kappa_alpha_and_spearman_match_the_hand_computed_values(project):
    agreement = pd.read_csv(project / "reports/judges_panels.csv")
    (row,) = agreement.itertuples(index=False)
    assert (row.benchmark, row.table, row.prompt, row.raters) == ("j1", "scores", "pointwise", f"{A} vs {B}")
    assert (row.level, row.units, row.kappa_weights) == ("ordinal", 4, "linear")  # four values: an ordinal scale
    # κ by hand: categories 0 < .3 < .7 < 1, pairs (1,0) (0,1) (.7,.3) (.7,.3): Σw·O = 2/3, Σw·E = 11/24 → 1 − 16/11
    assert _hand_kappa(*VALUES.values()) == pytest.approx(-5 / 11)
    assert row.kappa == pytest.approx(-5 / 11, abs=1e-4)
    table = np.zeros((4, 4))
    cats = [0.0, 0.3, 0.7, 1.0]
    for x, y in zip(*VALUES.values(), strict=True):
        table[cats.index(x), cats.index(y)] += 1
    assert cohens_kappa(table, wt="linear").kappa == pytest.approx(row.kappa, abs=1e-4)
    # ordinal α by hand: each value twice (n = 8); coincidences (0,1)×4 and (.3,.7)×4; δ²(c,k) = (Σ_{c..k} n_g −
    # (n_c + n_k)/2)²: δ²(0,1) = 36, δ²(.3,.7) = 4, so D_o = (4·36 + 4·4)/8 = 20; over every ordered pair of values
    # D_e = 2·4·(4 + 16 + 36 + 4 + 16 + 4)/(8·7) = 80/7; α = 1 − 20·7/80 = −0.75
    assert row.alpha == pytest.approx(-0.75, abs=1e-4)
    assert krippendorff.alpha(np.array(list(VALUES.values())), level_of_measurement="ordinal") == pytest.approx(-0.75)
    assert row.spearman == pytest.approx(-1.0)  # the contrary judge is 1 − the proxy


def test_each_judge_and_the_panel_against_the_human_mean_in_j1s_statistic(project):
    human = pd.read_csv(project / "reports/judges_human.csv")
    ours = human[(human.benchmark == "j1") & (human.source == "ours")]
    got = {(r.judge, r.statistic): (r["items"], r["value"]) for _, r in ours.iterrows()}
    # human means ×10 (0–100): 90, 10, 70, 50; judges ×100: A 100, 0, 70, 70; B 0, 100, 30, 30; the panel 50 each
    expected = {
        A: [-10, 10, 0, -20],
        B: [90, -90, 40, 20],
        PANEL: [40, -40, 20, 0],
    }
    for judge, d in expected.items():
        mean = sum(d) / 4
        sigma = (sum((x - mean) ** 2 for x in d) / 3) ** 0.5
        within = 100 * sum(abs(x) <= sigma for x in d) / 4
        assert got[(judge, "mean difference (human − judge)")] == (4, pytest.approx(mean, abs=1e-4))
        assert got[(judge, "σ of the difference")] == (4, pytest.approx(sigma, abs=1e-4))
        assert got[(judge, "within 1 σ %")] == (4, pytest.approx(within, abs=1e-4))
    assert [round(got[(j, "within 1 σ %")][1], 1) for j in expected] == [75.0, 50.0, 50.0]
    paper = human[(human.benchmark == "j1") & (human.source == "paper")]
    assert paper.set_index("statistic").value.to_dict() == {
        "mean difference (human − judge)": 0.03,
        "σ of the difference": 3.32,
        "within 1 σ %": 78.4,
    }


def test_the_report_shows_agreement_rankings_and_the_papers_figures(project):
    text = (project / "reports/judges.md").read_text(encoding="utf-8")
    assert "## Panels of judges" in text and "## Agreement with human labels" in text
    assert f"| j1 | scores | pointwise | {A} vs {B} | ordinal | 4 | -0.4545 | -1 | -0.75 |" in text
    assert "Human labels from data/human_labels/: " in text and "j1 8 ratings by 2 raters" in text
    assert "| paper | GPT-4o | all | within 1 σ % | — | 78.4 |" in text
    assert "| paper | GPT-4 | all | agreement with ties % | — | 63.4 |" in text  # UCL-Bench's, without labels
    assert "| paper | Gemini-3.0-Pro-Preview | consultation | Spearman | — | 0.862 |" in text
    rankings = pd.read_csv(project / "reports/judges_rankings.csv")
    means = rankings.set_index("judge")["mean"].to_dict()
    assert rankings.rank_change.tolist() == [0, 0, 0]  # one agent: first under every judge
    assert means == {A: pytest.approx(0.6), B: pytest.approx(0.4), PANEL: pytest.approx(0.5)}


def test_the_audit_table_has_a_row_per_member_and_one_for_the_panel(project):
    audit = pd.read_csv(project / "reports/judges.csv")
    assert audit.judge.tolist() == [PANEL, A, B]
    assert audit.judged.tolist() == [4, 4, 4] and audit.calls.tolist() == [8, 4, 4]  # the panel: both members' calls


def test_self_preference_of_a_panel_is_its_members():
    from steps.reports.judges import self_preference

    label = "panel(mean): openai/gpt-4o + deepseek/deepseek-chat"
    assert self_preference(label, "openai/gpt-4o-mini", False) == "same family"
    assert self_preference(label, "deepseek/deepseek-chat", False) == "same model"
    assert self_preference(label, "hosted_vllm/Qwen3-32B", False) == ""


def test_a_single_judge_has_no_panel_section_and_a_missing_key_part_reads_as_empty(tmp_path):
    """A single judge writes its members' table empty: no agreement or ranking rows (the default run's judges_report
    failed on it, its judged table having a key column with missing values)."""
    from steps.reports.judge_panels import panel_file, panels, valued

    run = tmp_path / "runs" / "oracle"
    run.mkdir(parents=True)
    judged = pd.DataFrame(
        {
            "instance_id": ["a", "b"],
            "turn": [1.0, np.nan],  # a key part missing on one row
            "judge": ["scripted/judge", "scripted/judge"],
            "judge_prompt_version": ["graded@1", "graded@1"],
            "value": [7.0, 3.0],
            "failure": [None, None],
        }
    )
    judged.to_parquet(run / "scores.parquet")
    judged.iloc[0:0].to_parquet(panel_file(run / "scores.parquet"))
    agreement, ranking = panels([({"benchmark": "mile", "table": "scores"}, run / "scores.parquet")])
    assert agreement.empty and ranking.empty
    units = valued(judged.assign(agent="oracle")).unit.tolist()
    assert len(units) == 2 and units[1].endswith("|") and "nan" not in units[1]
