"""Goal evaluation of one complaint (spec maser-mile §4.3): CLI and DEF by matching; F&R, CLA, EVID, STA and
PROF by the judge on 1–10.

References: F&R = the facts (`case_r_f`, its literal label removed); CLA = substantive claim + `。` + cost
claim; EVID = the evidence items joined with `；` (`evid_reference="raw"`: joined with nothing, as released);
PROF compares with the reference complaint whose placeholder claims section (`1. 非诉讼费用内容。`) is rebuilt
from the claims (`prof_reference="raw"` keeps the placeholder). The generated section comes first, then the
reference. STA sees only the complaint and the STA template.
"""

from __future__ import annotations

from typing import Any

from steps.judges.graded import Scale
from steps.mile.judging import JudgeTask, judge_version, render_judge, score_row
from steps.mile.matching import match_parties
from steps.mile.params import MileParams
from steps.mile.parties import Party
from steps.mile.scenario import complaint_template
from steps.mile.sections import CLAIMS, EVIDENCE, FACTS, header, split_sections

SECTION_METRICS = {FACTS: "F&R", CLAIMS: "CLA", EVIDENCE: "EVID"}
SECTION_NAMES = {FACTS: "事实和理由", CLAIMS: "诉讼请求", EVIDENCE: "证据和证据来源，证人姓名和住所"}
GOAL_METRICS = ("CLI", "DEF", "F&R", "CLA", "EVID", "STA", "PROF")


def references(truth: dict[str, Any], raw_evidence: list[str], options: MileParams) -> dict[str, str]:
    """The reference text of each judged local section, and of the whole complaint for PROF."""
    evidence = "".join(raw_evidence) if options.evid_reference == "raw" else "；".join(truth["evidence"])
    output = "\n".join(line.strip() for line in truth["output"].strip().splitlines())
    if options.prof_reference == "rebuilt":
        output = rebuild_claims(output, truth["claim"], truth["costs"])
    return {FACTS: truth["facts"], CLAIMS: f"{truth['claim']}。{truth['costs']}", EVIDENCE: evidence, "PROF": output}


def rebuild_claims(output: str, claim: str, costs: str) -> str:
    """The reference complaint with its placeholder claims replaced by the real ones (spec §3.4, §7.8)."""
    filled = {"1. 非诉讼费用内容。": f"1. {claim}", "2. 诉讼费用内容。": f"2. {costs}"}
    rebuilt = []
    for line in output.splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        rebuilt.append(indent + filled[line.strip()] if line.strip() in filled else line)
    return "\n".join(rebuilt)


def match_rows(
    instance_id: str, plaintiff: Party, defendants: list[Party], complaint: str, options: MileParams
) -> list[dict[str, Any]]:
    """CLI and DEF (the paper's substring rule), and their normalised variants CLI-norm and DEF-norm."""
    head = header(complaint)
    rows = []
    for metric, parties in (("CLI", [plaintiff]), ("DEF", defendants)):
        for suffix, normalised in (("", False), ("-norm", True)):
            m = match_parties(parties, head, count_empty=options.count_empty_fields, normalised=normalised)
            detail = f"{m.hits}/{m.fields}" + (f" missing: {', '.join(m.missing)}" if m.missing else "")
            if m.value is None:
                rows.append(score_row(instance_id, "goal", metric + suffix, failure="no_fields", detail=detail))
            else:
                rows.append(
                    score_row(instance_id, "goal", metric + suffix, value=m.value, scaled=100 * m.value, detail=detail)
                )
    return rows


def judge_tasks(instance_id: str, complaint: str, refs: dict[str, str]) -> list[JudgeTask]:
    """The five judge calls on one complaint: F&R, CLA, EVID, STA, PROF."""
    sections = split_sections(complaint)
    one = Scale(("分数",))
    tasks = []
    for section, metric in SECTION_METRICS.items():
        candidate, reference = sections.get(section), refs[section]
        context = {"section": SECTION_NAMES[section], "candidate": candidate, "reference": reference}
        tasks.append(
            JudgeTask(
                instance_id,
                "goal",
                {"分数": metric},
                render_judge("section.j2", context),
                one,
                judge_version("section.j2"),
                "mile.section",
                inputs={"candidate": candidate, "reference": reference},
            )
        )
    template = complaint_template("sta")
    tasks.append(
        JudgeTask(
            instance_id,
            "goal",
            {"规范性": "STA"},
            render_judge("standard.j2", {"template": template, "complaint": complaint.strip()}),
            Scale(("规范性",)),
            judge_version("standard.j2"),
            "mile.standard",
            inputs={"complaint": complaint},
        )
    )
    tasks.append(
        JudgeTask(
            instance_id,
            "goal",
            {"专业性": "PROF"},
            render_judge("professional.j2", {"reference": refs["PROF"].strip(), "complaint": complaint.strip()}),
            Scale(("专业性",)),
            judge_version("professional.j2"),
            "mile.professional",
            inputs={"complaint": complaint, "reference": refs["PROF"]},
        )
    )
    return tasks
