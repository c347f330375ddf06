"""One rendered prompt per judge, kept as a readable snapshot in tests/judges/snapshots/*.txt.

A reviewer reads there exactly what each judge is asked; a test fails when a template or the court data drift
from the snapshot. After an intended change, regenerate with
`JURISFLOW_UPDATE_SNAPSHOTS=1 pytest tests/judges/test_snapshots.py` (or `python -m tests.judges.test_snapshots`)
and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from steps.j1.eval.courts import court
from steps.j1.eval.metrics import candidate_reasoning, without_lead
from steps.j1.eval.procedure import checklist_prompt, labels_prompt, procedure_version
from steps.j1.params import J1ProcedureParams
from steps.judges import Comparison, RubricItem
from steps.judges.pairwise import version as pairwise_version
from steps.judges.pointwise import pointwise_prompt, pointwise_version
from steps.judges.prompts import render
from steps.judges.rubric import rubric_prompt, rubric_version
from tests.judges.trials import CIVIL_JUDGMENT, CIVIL_ORACLE_STEPS, exchanges

SNAPSHOTS = Path(__file__).parent / "snapshots"

# an example caller template for the generic pairwise judge (benchmark prompts come with their benchmarks)
PAIRWISE_EXAMPLE = """请比较两份法律咨询回答，判断哪一份更好地回答了用户的问题。

【用户问题】
{{ question }}

【回答一】
{{ answer_1 }}

【回答二】
{{ answer_2 }}

先简要说明理由，最后一行只写结论：回答一更好写[[1]]，回答二更好写[[2]]，两者相当写[[3]]。"""


def _snapshot(judge: str, prompt_version: str, prompt: str) -> str:
    return f"# judge: {judge}\n# prompt_version: {prompt_version}\n\n{prompt}\n"


def rendered() -> dict[str, str]:
    """Every snapshot's expected text, rendered from the current templates and data."""
    civil = court("civil")
    trial = exchanges(CIVIL_ORACLE_STEPS)
    reasoning = Comparison(
        reference=without_lead(
            "本院认为，原告与被告之间的民间借贷关系合法有效，被告未按约定期限还款，应承担还款责任。"
        ),
        candidate=candidate_reasoning(CIVIL_JUDGMENT),
        aspect="判决说理（本院认为部分）",
    )
    topic = Comparison(
        reference="借款人逾期不还的，出借人可以向人民法院起诉，要求偿还本金并按约定支付逾期利息。",
        candidate="可以去法院起诉，让他还钱。",
        question="朋友借钱到期不还，我该怎么办？",
    )
    items = [
        RubricItem("1", "指出借款合同合法有效", 2),
        RubricItem("2", "说明出借人可以向人民法院起诉", 2),
        RubricItem("3", "说明诉讼时效为三年", 1),
    ]
    pair = {"question": "朋友借钱到期不还，我该怎么办？", "answer_1": topic.candidate, "answer_2": topic.reference}
    return {
        "pointwise": _snapshot("pointwise (III-5)", pointwise_version(), pointwise_prompt(reasoning)),
        "pointwise_topic": _snapshot("pointwise (I-2 open topic)", pointwise_version(), pointwise_prompt(topic)),
        "stages": _snapshot(
            "procedure pass 1 (civil stage labels)",
            procedure_version(civil),
            labels_prompt(civil, trial[8:], trial[4:8], J1ProcedureParams()),
        ),
        "checklist": _snapshot(
            "procedure pass 2 (civil checklist, investigation unit)",
            procedure_version(civil),
            checklist_prompt(civil, "court_investigation", trial[7:11]),
        ),
        "pairwise": _snapshot(
            "pairwise (example caller template, candidate shown first)",
            pairwise_version("example.pairwise", PAIRWISE_EXAMPLE),
            render(PAIRWISE_EXAMPLE, pair, inline=True),
        ),
        "rubric": _snapshot(
            "rubric items (default template)",
            rubric_version(items),
            rubric_prompt("借款合同有效，你可以去法院起诉。", items, question=topic.question),
        ),
    }


def write_snapshots() -> None:
    SNAPSHOTS.mkdir(exist_ok=True)
    for name, text in rendered().items():
        (SNAPSHOTS / f"{name}.txt").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("name", sorted(rendered()))
def test_prompt_matches_its_snapshot(name):
    if os.environ.get("JURISFLOW_UPDATE_SNAPSHOTS") == "1":
        write_snapshots()
    path = SNAPSHOTS / f"{name}.txt"
    assert path.is_file(), f"no snapshot {path.name}; run with JURISFLOW_UPDATE_SNAPSHOTS=1"
    assert path.read_text(encoding="utf-8") == rendered()[name], f"{path.name} drifted; review and regenerate"


def test_every_snapshot_file_is_still_rendered():
    assert {p.stem for p in SNAPSHOTS.glob("*.txt")} == set(rendered())


if __name__ == "__main__":
    write_snapshots()
