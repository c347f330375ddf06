"""Synthetic run tables of the four dialogue benchmarks (J1, MILE, UCL-Bench, PLawBench), of any size, for the
HTML report's tests and benchmark, and `write_inputs`: a whole `html_report` input tree (params.yaml, the report
CSVs, every agent's run tables validated by the stages' own schemas) in a temporary folder.
Deterministic: dialogue i of agent a is the same on every call."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import yaml

from flows.kit.paths import DIALOGUES, RUN_JSON, TURNS, Paths
from steps.j1.eval.schemas import FAILURE_CAUSES_ARROW_TYPES, FailureCauses, J1Scores
from steps.mile.schemas import MileDialogues, MileScores
from steps.plawbench.dialogue import SCENARIO as MULTITURN
from steps.plawbench.schemas import PlawItemScores, PlawJudgements, PlawResponses
from steps.schemas import Dialogues, Turns
from steps.tables import write_table
from steps.ucl.schemas import UclDialogues, UclHintScores, UclVerdicts
from steps.ucl.tasks import TASKS

ENVS = ("KQ", "LC", "CD", "DD", "CI", "CR")
ENDS = ("marker", "max_turns", "topics_done")
BENCHMARKS = ("lawbench", "j1", "mile", "ucl", "plawbench")
LAW_REASONS = ("民间借贷纠纷", "买卖合同纠纷", "劳动争议")
HOSTILE = "</script><script>alert(1)</script>"  # a turn's text that must not close the page's data element
# Replies that must neither end nor comment out the page's data element, nor turn into other text (issue 35, item 6):
# J1 dialogue i's turn 1 (an agent's reply) is HOSTILE_TEXTS[i], for the first few dialogues.
HOSTILE_TEXTS = (
    "",
    HOSTILE,
    "开始<!--<script>之后的一切",
    "]]><![CDATA[ & ]]>",
    "&lt;b&gt; &amp; \u2028行\u2029段",
)
AGENTS = ("oracle", "null")
N = 12  # dialogues per agent and benchmark in `write_inputs` (PLawBench: per variant)
DIALOGUE_PAGES = ("j1", "mile", "ucl", "plawbench")


def _text(i: int, t: int) -> str:
    if t == 1 and 0 < i < len(HOSTILE_TEXTS):
        return HOSTILE_TEXTS[i]
    return f"第{t}句：" + "案情陈述。" * 20


def _turn(
    run: tuple[str, str, str, str],
    iid: str,
    t: int,
    speaker: str,
    addressee: str,
    text: str,
    model: str,
    key: str,
    **rest,
) -> dict:
    """A row of turns.parquet: `run` is (run_id, agent, benchmark, scenario); `rest` overrides the defaults."""
    run_id, agent, benchmark, scenario = run
    row: dict[str, object] = {
        "run_id": run_id,
        "agent": agent,
        "benchmark": benchmark,
        "scenario": scenario,
        "instance_id": iid,
    }
    row |= {"turn_index": t, "exchange": t // 2 + 1, "speaker": speaker, "speaker_label": speaker}
    row |= {"addressee": addressee, "kind": "utterance", "stage": None, "paper_turn": None, "text": text}
    row |= {
        "model": model,
        "call_key": key,
        "prompt_tokens": 8,
        "completion_tokens": 4,
        "truncated": False,
        "revision": 0,
    }
    return row | {"failure": None, "reasoning": None, "data": "{}"} | rest


def j1_frames(
    n: int, agent: str = "oracle", turns_per: int = 8, failed_every: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """n dialogues spread over the six environments; dialogue i scores (i % 5) / 4 on II-1 and I-1. With
    `failed_every` k, every k-th dialogue ends in a failed call: its last turn is the failure, its scores unscored."""
    turns, deliverables, scores = [], [], []
    for i in range(n):
        env = ENVS[i % len(ENVS)]
        iid = f"{env}/synthetic/{i:05d}"
        failed = failed_every > 0 and i % failed_every == failed_every - 1
        for t in range(turns_per):
            speaker, addressee = ("agent", "user") if t % 2 else ("user", "agent")
            fails_here = failed and t == turns_per - 1
            text = "" if fails_here else _text(i, t)
            row = _turn(("r1", agent, "j1", env), iid, t, speaker, addressee, text, f"scripted/{agent}", f"k{i}-{t}")
            row |= {"stage": "审理" if env == "CR" else None, "prompt_tokens": 10, "completion_tokens": 5}
            turns.append(row | {"failure": "server_error" if fails_here else None})
        deliverables.append(
            {
                "run_id": "r1",
                "agent": agent,
                "benchmark": "j1",
                "scenario": env,
                "instance_id": iid,
                "ended_by": "call_failed" if failed else ENDS[i % len(ENDS)],
                "exchanges": turns_per // 2,
                "utterances": turns_per,
                "deliverable_kind": "answer",
                "deliverable": None if failed else "结论。",
                "forced": False,
                "failure": "agent: server_error" if failed else None,
                "failure_causes": ["missing_final_objective"] if env == "CR" and not failed else [],
            }
        )
        for metric in ("I-1", "II-1", "III-4"):
            scores.append(
                {
                    "run_id": "r1",
                    "agent": agent,
                    "instance_id": iid,
                    "scenario": env,
                    "metric": metric,
                    "component": "",
                    "value": None if failed else (i % 5) / 4,
                    "status": "dialogue_failed" if failed else "scored",
                    "failure": "call_failed" if failed else None,
                    "error": "",
                    "judge": "rule",
                    "judge_prompt_version": "",
                    "judge_proxy": False,
                    "attempts": 0,
                    "truncated": False,
                    "evidence": json.dumps({"why": f"evidence {i}"}),
                }
            )
    return pd.DataFrame(turns), pd.DataFrame(deliverables), pd.DataFrame(scores)


def mile_frames(n: int, agent: str = "oracle", rounds: int = 3) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """n complaint-drafting dialogues (client and lawyer, a supervisor's review, the complaint); dialogue i has
    goal scores (i % 5) / 4 and one interaction grade per round; every fifth dialogue's judge answer is unparsable."""
    turns, dialogues, scores = [], [], []
    for i in range(n):
        iid = f"mile/{i + 1:04d}"
        speech = [("client", "lawyer"), ("lawyer", "client")] * rounds + [("supervisor", "lawyer")]
        for t, (speaker, addressee) in enumerate(speech):
            text = "回复无误" if speaker == "supervisor" else f"{speaker}第{t}句：" + "借款事实。" * 12
            model = f"scripted/{agent}" if speaker == "lawyer" else "scripted/persona"
            row = _turn(("m1", agent, "mile", "MILE"), iid, t, speaker, addressee, text, model, f"m{i}-{t}")
            kind = "review" if speaker == "supervisor" else "utterance"
            turns.append(row | {"kind": kind, "paper_turn": t // 2 + 1, "prompt_tokens": 12, "completion_tokens": 6})
        dialogues.append(
            {
                "run_id": "m1",
                "agent": agent,
                "benchmark": "mile",
                "scenario": "MILE",
                "instance_id": iid,
                "ended_by": "marker",
                "exchanges": rounds,
                "utterances": 2 * rounds,
                "deliverable_kind": "complaint",
                "deliverable": "民事起诉状\n原告：张三\n诉讼请求：归还借款。",
                "forced": False,
                "failure": None,
                "law_reason": LAW_REASONS[i % len(LAW_REASONS)],
                "plaintiff_type": "personal",
                "turns": rounds,
                "client_revisions": 0,
                "lawyer_revisions": 0,
                "blurred": 0,
                "unsupervised": 0,
                "persona": "{}",
                "lawyer_view": "[]",
            }
        )
        unparsable = i % 5 == 4
        base: dict[str, object] = {
            "run_id": "m1",
            "agent": agent,
            "instance_id": iid,
            "error": "",
            "judge": "scripted/judge",
        }
        base |= {"judge_prompt_version": "v1", "judge_proxy": True, "attempts": 1, "truncated": False, "detail": ""}
        for metric in ("F&R", "CLA", "EVID", "STA", "PROF"):
            value = None if unparsable else (i % 5) / 4
            scores.append(
                base
                | {"stage": "goal", "metric": metric, "turn": pd.NA, "value": value, "grade": None}
                | {"scaled": None if value is None else 100 * value, "reason": f"goal {i}"}
                | {"failure": "unparsable" if unparsable else None}
            )
        for r in range(1, rounds + 1):
            grade = 1 + (i + r) % 10
            scores.append(
                base
                | {"stage": "interaction", "metric": "INT", "turn": r, "value": grade / 10, "grade": float(grade)}
                | {"scaled": 10.0 * grade, "reason": f"round {r}", "failure": None}
            )
    scores_df = pd.DataFrame(scores).astype({"turn": "Int64"})
    return pd.DataFrame(turns), pd.DataFrame(dialogues), scores_df


def ucl_frames(
    n: int, agent: str = "oracle", rounds: int = 2
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """n consultations over the first tasks of the catalogue with both judge orders against the reference (win,
    tie, lose by i) and a hint score; the reference-first verdict of every fourth dialogue is unparsable."""
    turns, dialogues, verdicts, hints = [], [], [], []
    tasks = [t for t in TASKS if not t.extra][:4]
    for i in range(n):
        task = tasks[i % len(tasks)]
        iid = f"{task.key}/{i}"
        for t in range(2 * rounds):
            speaker, addressee = ("assistant", "user") if t % 2 else ("user", "assistant")
            model = f"scripted/{agent}" if t % 2 else "scripted/persona"
            text = f"第{t}句：" + "请问法律规定。" * 10
            turns.append(_turn(("u1", agent, "ucl", "UCL"), iid, t, speaker, addressee, text, model, f"u{i}-{t}"))
        dialogues.append(
            {
                "run_id": "u1",
                "agent": agent,
                "benchmark": "ucl",
                "scenario": "UCL",
                "instance_id": iid,
                "ended_by": "marker",
                "exchanges": rounds,
                "utterances": 2 * rounds,
                "deliverable_kind": "dialogue",
                "deliverable": None,
                "forced": False,
                "failure": None,
                "task": task.key,
                "rounds": rounds,
                "transcript": "……",
                "first_query": "请问法律规定。",
                "closing_extra": None,
            }
        )
        base: dict[str, object] = {
            "run_id": "u1",
            "reference_run_id": "ref1",
            "agent": agent,
            "reference": "scripted_null",
        }
        base |= {"item_id": iid, "task": task.key, "error": "", "attempts": 1, "judge": "scripted/judge"}
        base |= {"judge_proxy": True, "judge_prompt_version": "v1", "truncated": False}
        outcome = ("win", "tie", "lose")[i % 3]
        for order in ("candidate_first", "reference_first"):
            failed = order == "reference_first" and i % 4 == 3
            verdicts.append(
                base
                | {"order": order, "verdict": pd.NA if failed else 1 + i % 3, "raw": f"verdict {i} {order}"}
                | {"outcome": None if failed else outcome, "failure": "unparsable" if failed else None}
                | {"value": None if failed else {"win": 1.0, "tie": 0.5, "lose": 0.0}[outcome]}
            )
        hints.append(
            {k: base[k] for k in ("run_id", "agent", "item_id", "task", "error", "attempts", "truncated", "judge")}
            | {"judge_proxy": base["judge_proxy"]}
            | {"value": (i % 5) / 4, "failure": None, "hint_free": False, "items": 4, "met": i % 5, "partial": 0}
            | {"forbidden_mentioned": 0, "holistic": 5.0, "raw": f"hints {i}", "judge_prompt_version": "v1"}
        )
    verdicts_df = pd.DataFrame(verdicts).astype({"verdict": "Int64"})
    return pd.DataFrame(turns), pd.DataFrame(dialogues), verdicts_df, pd.DataFrame(hints)


def plawbench_frames(
    n: int, agent: str = "oracle", rounds: int = 2
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """n consultations answered in both variants (single answer, multi-turn dialogue with the client) and one
    case-analysis answer (not shown in the viewer), judged on two rubric items; awarded i % 3 of 2 points."""
    responses, turns, judgements, items = [], [], [], []
    for i in range(n):
        iid = f"plc/{i + 1}"
        for variant in ("single", "multiturn"):
            responses.append(
                {
                    "agent": agent,
                    "run_id": "p1",
                    "item_id": iid,
                    "category": "consultation",
                    "scenario": "婚姻家庭",
                    "variant": variant,
                    "prompt": "我想咨询离婚财产分割。",
                    "response": "根据民法典第一千零八十七条……",
                    "failure": None,
                    "call_key": f"p{i}-{variant}",
                    "truncated": False,
                    "turns": 2 * rounds if variant == "multiturn" else 1,
                    "ended_by": "marker" if variant == "multiturn" else "",
                    "outcome": None,
                    "reasoning": "先看婚前财产。" if variant == "single" else None,
                }
            )
            awarded = float(i % 3)
            judgements.append(
                {
                    "agent": agent,
                    "item_id": iid,
                    "category": "consultation",
                    "scenario": "婚姻家庭",
                    "variant": variant,
                    "judge_run": "j1",
                    "judge": "scripted/judge",
                    "judge_prompt_version": "v1",
                    "judge_proxy": True,
                    "value": awarded / 2,
                    "failure": None,
                    "error": "",
                    "attempts": 1,
                    "truncated": False,
                    "awarded": awarded,
                    "max_points": 2.0,
                    "clamped": 0,
                    "fails_triggered": 0,
                    "penalty_points": 0.0,
                    "questions": None,
                    "questions_truncated": False,
                    "raw": "{}",
                    "evidence": "{}",
                }
            )
            for k, rubric in enumerate(("1.1", "1.2")):
                items.append(
                    {
                        "agent": agent,
                        "item_id": iid,
                        "category": "consultation",
                        "scenario": "婚姻家庭",
                        "variant": variant,
                        "rubric_id": rubric,
                        "group": "",
                        "points": 1.0,
                        "given": float(k < awarded),
                        "awarded": float(k < awarded),
                        "failed": False,
                        "error_label": None,
                        "justification": f"rubric {rubric} of item {i}",
                    }
                )
        for t in range(2 * rounds):
            speaker, addressee = ("lawyer", "client") if t % 2 else ("client", "lawyer")
            model = f"scripted/{agent}" if t % 2 else "scripted/persona"
            text = f"第{t}句：" + "关于财产。" * 10
            turns.append(
                _turn(("p1", agent, "plawbench", MULTITURN), iid, t, speaker, addressee, text, model, f"pt{i}-{t}")
            )
    analysis = dict(responses[0], item_id="pca/1", category="case_analysis", variant="single", call_key="pa")
    responses.append(analysis)
    return pd.DataFrame(responses), pd.DataFrame(turns), pd.DataFrame(judgements), pd.DataFrame(items)


def write_runs(data: Path, agent: str, n: int) -> None:
    """One agent's run tables of the four dialogue benchmarks under `data`, where stage `html_report` reads them
    (`Paths(data=data).run(benchmark, agent)`), each validated by the schema its stage writes it with."""
    paths = Paths(data=data)
    turns, deliverables, scores = j1_frames(n, agent=agent, failed_every=5)
    where = paths.run("j1", agent)
    write_table(turns, where / TURNS, Turns, table="turns")
    write_table(
        deliverables.drop(columns=["failure_causes"]),
        where / DIALOGUES,
        Dialogues,
        table="dialogues",
    )
    causes = deliverables[["run_id", "agent", "scenario", "instance_id", "failure_causes"]]
    write_table(
        causes,
        where / "failure_causes.parquet",
        FailureCauses,
        table="failure_causes",
        arrow_types=FAILURE_CAUSES_ARROW_TYPES,
    )
    write_table(scores, where / "scores.parquet", J1Scores, table="j1_scores")
    turns, dialogues, scores = mile_frames(n, agent=agent)
    where = paths.run("mile", agent)
    write_table(turns, where / TURNS, Turns, table="mile_turns")
    write_table(dialogues, where / DIALOGUES, MileDialogues, table="mile_dialogues")
    write_table(scores, where / "scores.parquet", MileScores, table="mile_scores")
    turns, dialogues, verdicts, hints = ucl_frames(n, agent=agent)
    where = paths.run("ucl", agent)
    write_table(turns, where / TURNS, Turns, table="ucl_turns")
    write_table(dialogues, where / DIALOGUES, UclDialogues, table="ucl_dialogues")
    write_table(verdicts, where / "verdicts.parquet", UclVerdicts, table="ucl_verdicts")
    write_table(hints, where / "hint_scores.parquet", UclHintScores, table="ucl_hint_scores")
    responses, turns, judgements, items = plawbench_frames(n, agent=agent)
    where = paths.run("plawbench", agent)
    write_table(responses, where / "responses.parquet", PlawResponses, table="plawbench_responses")
    write_table(turns, where / TURNS, Turns, table="plawbench_turns")
    write_table(judgements, where / "judgements.parquet", PlawJudgements, table="plawbench_judgements")
    write_table(items, where / "item_scores.parquet", PlawItemScores, table="plawbench_item_scores")
    run = {"run_id": "p1", "model": f"scripted/{agent}", "multiturn": {"environment": "scripted/persona"}}
    (where / RUN_JSON).write_text(json.dumps(run), encoding="utf-8")


def write_inputs(root: Path, reports: Path, agents: tuple[str, ...] = AGENTS, n: int = N) -> Path:
    """Everything stage `html_report` reads, under `root`: params.yaml naming `agents` (scripted models), the five
    report CSVs copied from `reports` (the committed ones: the real result tables), and n dialogues per agent
    and benchmark under root/data. Returns the params file. Dialogues per page: n × len(agents) (PLawBench 2n ×)."""
    params = root / "params.yaml"
    params.write_text(yaml.safe_dump({"agents": {a: {"model": f"scripted/{a}"} for a in agents}}), encoding="utf-8")
    (root / "reports").mkdir(parents=True, exist_ok=True)
    for bench in BENCHMARKS:
        shutil.copyfile(reports / f"{bench}.csv", root / "reports" / f"{bench}.csv")
    shutil.copyfile(reports / "judges.md", root / "reports" / "judges.md")  # the judge audit's page
    for agent in agents:
        write_runs(root / "data", agent, n)
    return params


def page_dialogues(page: str) -> list[dict]:
    """The dialogue records a benchmark page embeds for its transcript viewer (ValueError when it has none)."""
    found = re.findall(r'<script type="application/json" id="dialogue-data">(.*?)</script>', page, flags=re.S)
    if len(found) != 1:
        raise ValueError(f"expected one dialogue-data element, found {len(found)}")
    return json.loads(found[0])


def index_counts(index: str) -> dict[str, tuple[int, int]]:
    """The index page's table: benchmark page → (result rows, dialogues)."""
    found = re.findall(r'<a href="(\w+)\.html">[^<]*</a></th><td>(\d+)</td><td>(\d+)</td>', index)
    return {bench: (int(rows), int(dialogues)) for bench, rows, dialogues in found}


def markdown_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every pipe table of a Markdown text: (header cells, rows of cells), code spans' backticks dropped."""
    tables: list[tuple[list[str], list[list[str]]]] = []
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if len(block) >= 2:
            cells = [[c.strip().replace("`", "") for c in row.strip().strip("|").split("|")] for row in block]
            tables.append((cells[0], cells[2:]))
        block = []
    return tables
