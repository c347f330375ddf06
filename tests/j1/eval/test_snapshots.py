"""What the judge stage actually asks, as readable snapshots in tests/j1/eval/snapshots/*.txt: each J1 comparison
with the reference and the candidate as the stage cuts them from a hand-built case (I-2 topic, II-2 claims, II-2
defence, III-2 rulings, III-5 reasoning), and the criminal procedure judge's two passes (tests/judges/snapshots
has the civil ones). Regenerate after an intended change with `JURISFLOW_UPDATE_SNAPSHOTS=1 pytest
tests/j1/eval/test_snapshots.py` and review the diff.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

import pytest

from steps.j1.eval.court import exchanges_of
from steps.j1.eval.courts import court
from steps.j1.eval.evaluate import evaluate_case
from steps.j1.eval.procedure import checklist_prompt, labels_prompt, procedure_version
from steps.j1.params import J1EvalParams, J1ProcedureParams
from steps.judges.pointwise import pointwise_prompt, pointwise_version
from steps.llm import LLMSettings, ModelDoor
from tests.j1.eval.conftest import PROXY, FixedPanel, make_case
from tests.j1.eval.test_consultation import TRUTH, dialogue
from tests.j1.eval.test_court import civil_case, criminal_case
from tests.j1.eval.test_drafting import DD_TRUTH, DEFENCE, cd_case, complaint
from tests.j1.eval.test_drafting import utterance as said

SNAPSHOTS = Path(__file__).parent / "snapshots"


def _asked(case) -> dict:
    """The comparisons the stage sends for a case (the procedure judge runs with the proxy model)."""
    with tempfile.TemporaryDirectory() as cache:
        door = ModelDoor(LLMSettings(cache=False, cache_dir=cache))
        panel = FixedPanel(door, PROXY)
        asyncio.run(evaluate_case(case, panel, J1EvalParams()))
        door.close()
    return panel.asked


def _snapshot(title: str, prompt_version: str, prompt: str) -> str:
    return f"# judge: {title}\n# prompt_version: {prompt_version}\n\n{prompt}\n"


def rendered() -> dict[str, str]:
    kq = _asked(make_case("KQ", TRUTH, dialogue(), ended_by="topics_done"))
    cd = _asked(cd_case(complaint(evidence="1. 借条一份")))
    dd_turns = [said(1, "lawyer", DEFENCE)]
    dd = _asked(make_case("DD", DD_TRUTH, dd_turns, text=DEFENCE))
    ci = _asked(civil_case())
    criminal, trial = court("criminal"), exchanges_of(criminal_case())
    out = {
        "i2_topic": ("pointwise, I-2 open topic (KQ)", kq["I-2"]),
        "ii2_claims": ("pointwise, II-2 CLA (CD claims)", cd["II-2/CLA"]),
        "ii2_defence": ("pointwise, II-2 DEF (DD defence arguments)", dd["II-2/DEF"]),
        "iii2_rulings": ("pointwise, III-2 (CI rulings)", ci["III-2"]),
        "iii5_reasoning": ("pointwise, III-5 (CI reasoning)", ci["III-5"]),
    }
    snapshots = {name: _snapshot(title, pointwise_version(), pointwise_prompt(c)) for name, (title, c) in out.items()}
    snapshots["iii1_criminal_stages"] = _snapshot(
        "procedure pass 1, III-1 (CR stage labels, second window)",
        procedure_version(criminal),
        labels_prompt(criminal, trial[4:], trial[:4], J1ProcedureParams(window=8, context=4)),
    )
    snapshots["iii1_criminal_checklist"] = _snapshot(
        "procedure pass 2, III-1 (CR checklist, preparation unit)",
        procedure_version(criminal),
        checklist_prompt(criminal, "court_preparation", trial[:7]),
    )
    return snapshots


@pytest.mark.parametrize("name", sorted(rendered()))
def test_prompt_matches_its_snapshot(name):
    if os.environ.get("JURISFLOW_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(exist_ok=True)
        for key, text in rendered().items():
            (SNAPSHOTS / f"{key}.txt").write_text(text, encoding="utf-8")
    path = SNAPSHOTS / f"{name}.txt"
    assert path.is_file(), f"no snapshot {path.name}; run with JURISFLOW_UPDATE_SNAPSHOTS=1"
    assert path.read_text(encoding="utf-8") == rendered()[name], f"{path.name} drifted; review and regenerate"


def test_every_snapshot_shows_its_reference_and_candidate():
    for name, text in rendered().items():
        if name.startswith("iii1"):
            assert "审判长" in text and "第1轮" in text, name
        else:
            assert "【参考答案】" in text and "【待评答案】" in text, name
    assert {p.stem for p in SNAPSHOTS.glob("*.txt")} == set(rendered())
