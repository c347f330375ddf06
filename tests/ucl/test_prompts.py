"""Released prompts are used as released (`ucl.prompts: released`, the default) and ours stay available (`ours`).

The released templates are read from the pinned mirror (the ucl table built from `legal_prompt.json`); no test
holds their text: each checks a rendered prompt against the data's own pre-filled fields, or against the
original code's `str.format` of the released template. The stage test runs the real stages with the simulated
user and the judge on the fake OpenAI-compatible server and reads the requests they received.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import ucl_judge, ucl_reference, ucl_report, ucl_simulate
from steps.judges.prompts import render as render_inline
from steps.simulate.templates import render as render_role
from steps.tables import write_table
from steps.ucl.cases import item_cases
from steps.ucl.instances import build_instances
from steps.ucl.pairs import judge_prompt
from steps.ucl.prompts import fill, prompt_record
from steps.ucl.scenario import UCL, UCL_OURS
from steps.ucl.sources import Ucl
from tests.fake_openai_server import FakeOpenAIServer

TASK = "Real Case Consulting"  # only the user holds the information; its released role prompt and ours differ
ITEM = f"{TASK}/0"
USER_SAYS = "你好，我想咨询一下我遇到的法律问题。"
OURS_OPENING = "请你扮演一位正在向 AI 助手寻求法律帮助的用户"  # the first line of our templates/user.j2


def sha12(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def user_prompts(items: pd.DataFrame, prompts: str) -> dict[str, str]:
    scenario = UCL if prompts == "released" else UCL_OURS
    return {
        i.instance_id: render_role(scenario.templates, scenario.role("user").template, i.profiles["user"])
        for i in build_instances(items, max_exchanges=3, prompts=prompts)  # type: ignore[arg-type]
    }


# ------------------------------------------------------------------ every public item, rendered


def test_every_released_prompt_reaches_its_role_as_the_data_holds_it(ucl_items):
    """The user's prompt is the record's pre-filled role prompt, the assistant's its model prompt, and the judge's
    the original code's `evaluation_prompt.format(...)`, on all 230 items (whitespace at the ends stripped)."""
    rows = ucl_items.set_index("item_id")
    released = user_prompts(ucl_items, "released")
    assert len(released) == 230
    assert all(text == rows.loc[i, "role_prompt"].strip() for i, text in released.items())
    ours = user_prompts(ucl_items, "ours")
    assert all(ours[i] != released[i] and ours[i].startswith(OURS_OPENING) for i in released)
    for inst in build_instances(ucl_items, max_exchanges=3):
        said = render_role(UCL.templates, UCL.role("assistant").template, inst.profiles["assistant"])
        row = rows.loc[inst.instance_id]
        assert said == row.model_prompt.strip() == fill(row.model_template, information=row.information).strip()
    for item_id, case in item_cases(ucl_items).items():
        row = rows.loc[item_id]
        template, context = judge_prompt(case, "released")
        prompt = render_inline(template, {**context, "answer_1": "对话甲", "answer_2": "对话乙"}, inline=True)
        expected = row.evaluation_prompt.format(
            information=row.information,
            needs=row.needs,
            evaluation_hints=row.evaluation_hints,
            dialogue1="对话甲",
            dialogue2="对话乙",
        )
        assert prompt == expected.strip()


def test_fill_replaces_each_placeholder_once_and_never_rereads_a_value():
    assert fill("{information}|{needs}", information="{needs}{x}", needs="N") == "{needs}{x}|N"
    assert fill("无占位符 {other}", needs="N") == "无占位符 {other}"
    with pytest.raises(KeyError, match="needs"):
        fill("{information}{needs}", information="I")


def test_the_run_record_hashes_each_template_used(ucl_items):
    items = ucl_items[ucl_items.task.isin([TASK, "Charge Prediction"])]
    rows = items.drop_duplicates("task").set_index("task")
    released = prompt_record("released", items, ("user", "assistant", "judge"))
    assert released == {
        "source": "released",
        "released_file": "ucl/legal_prompt.json",
        "templates": {
            role: {t: sha12(rows.loc[t, column]) for t in sorted(rows.index)}
            for role, column in (
                ("user", "role_template"),
                ("assistant", "model_template"),
                ("judge", "evaluation_template"),
            )
        },
    }
    ours = prompt_record("ours", items, ("user", "judge", "hint_judge"))
    folder = Path(UCL.templates)
    files = {"user": "user.j2", "judge": "judge/judge_pairwise.j2", "hint_judge": "judge/judge_hints.j2"}
    assert ours == {
        "source": "ours",
        "templates": {
            role: f"{Path(f).name}@{sha12((folder / f).read_text(encoding='utf-8'))}" for role, f in files.items()
        },
    }


# ------------------------------------------------------------------ the stages, against a fake server


def _reply(body: dict) -> str:
    return "[[3]]" if body["model"].endswith("judge-model") else USER_SAYS


def _run(tmp_path: Path, ucl_items: pd.DataFrame, url: str, prompts: str | None) -> Paths:
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    write_table(ucl_items, paths.interim / "ucl.parquet", Ucl, table="ucl")
    ucl = {"limit": 1, "tasks": [TASK], "max_exchanges": 1, "pointwise": False}
    doc = {
        "agents": {"oracle": {"model": "scripted/oracle"}},
        "environment": {"model": "hosted_vllm/user-model", "api_base": url},
        "judge": {"model": "hosted_vllm/judge-model", "api_base": url},
        "llm": {"cache_dir": str(tmp_path / "cache"), "backoff_base_s": 0.01, "max_attempts": 2},
        "ucl": ucl if prompts is None else {**ucl, "prompts": prompts},
    }
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert run_stage("ucl_reference", ucl_reference, params_file=params, paths=paths) == 0
    assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", params_file=params, paths=paths) == 0
    assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 0
    assert run_stage("ucl_report", ucl_report, params_file=params, paths=paths) == 0
    return paths


def _requests(server: FakeOpenAIServer, model: str) -> list[list[dict]]:
    return [b["messages"] for b in server.requests if b["model"].endswith(model)]


@pytest.mark.parametrize("prompts", [None, "ours"])
def test_the_stages_send_the_released_prompts_by_default_and_ours_on_request(tmp_path, ucl_items, prompts):
    row = ucl_items.set_index("item_id").loc[ITEM]
    with FakeOpenAIServer(reply=_reply) as server:
        paths = _run(tmp_path, ucl_items, server.url, prompts)
    users, judges = _requests(server, "user-model"), _requests(server, "judge-model")
    # the user opens the reference's dialogue (the agent's opening is the same request: from the response cache);
    # the judge sees the pair in both orders
    assert len(users) == 1 and len(judges) == 2
    expected_user = user_prompts(ucl_items[ucl_items.item_id == ITEM], prompts or "released")[ITEM]
    assert all(m[0] == {"role": "system", "content": expected_user} for m in users)
    run = json.loads((paths.run("ucl", "oracle") / "run.json").read_text(encoding="utf-8"))
    judged = json.loads((paths.run("ucl", "oracle") / "judge" / "run.json").read_text(encoding="utf-8"))
    for record in (run, judged):  # the protocol record names the prompts the run used
        assert record["protocol_record"]["prompts"]["source"] == record["prompts"]["source"]
    verdicts = pd.read_parquet(paths.run("ucl", "oracle") / "verdicts.parquet")
    report = (paths.reports / "ucl.md").read_text(encoding="utf-8")
    if prompts is None:  # released: the item's own role prompt, and the judge's released template
        assert expected_user == row.role_prompt.strip() and OURS_OPENING not in expected_user
        dialogue = pd.read_parquet(paths.run("ucl", "oracle") / "dialogues.parquet").transcript.iloc[0]
        reference = pd.read_parquet(paths.reference("ucl") / "dialogues.parquet").transcript.iloc[0]
        shown = [
            row.evaluation_prompt.format(
                information=row.information,
                needs=row.needs,
                evaluation_hints=row.evaluation_hints,
                dialogue1=first,
                dialogue2=second,
            ).strip()
            for first, second in ((dialogue, reference), (reference, dialogue))
        ]
        assert sorted(m[0]["content"] for m in judges) == sorted(shown)
        assert run["prompts"]["source"] == "released" and judged["prompts"]["source"] == "released"
        assert run["prompts"]["templates"]["user"] == {TASK: sha12(row.role_template)}
        assert judged["prompts"]["templates"] == {"judge": {TASK: sha12(row.evaluation_template)}}
        assert verdicts.judge_prompt_version.str.startswith("ucl.pairwise.released@").all()
        assert "Prompts: released (legal_prompt.json): the simulated user reads" in report
    else:
        assert expected_user.startswith(OURS_OPENING)
        assert all("【对话一】" in m[0]["content"] and "[AI助手1对话开始]" not in m[0]["content"] for m in judges)
        assert run["prompts"]["source"] == "ours" and run["prompts"]["templates"]["user"].startswith("user.j2@")
        assert judged["prompts"]["source"] == "ours" and list(judged["prompts"]["templates"]) == ["judge"]
        assert judged["prompts"]["templates"]["judge"].startswith("judge_pairwise.j2@")
        assert verdicts.judge_prompt_version.str.startswith("ucl.pairwise@").all()
        assert "Prompts: ours: the simulated user and the pairwise judge read our Chinese templates" in report
    # the assistant reads its task's released model prompt either way
    assert run["prompts"]["templates"]["assistant"] == {TASK: sha12(row.model_template)}
