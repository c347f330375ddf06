"""KQ and LC topic lists derived from LawBench items (binary, statute and legal-phrase topics), and J1's own
LLM procedure through the model door."""

from __future__ import annotations

import asyncio
import json

import pandas as pd

from steps.j1.envs.common.topic_model import rewrite_sources
from steps.j1.envs.common.topic_table import topic_rows
from steps.j1.envs.common.topics import answer_polarity, kq_from_articles, kq_from_choices, lc_from_consultations
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from tests.fake_openai_server import FakeOpenAIServer

TRUE_Q = {
    "item_id": "z/1-2/1",
    "question": "关于合同的效力，下列哪一说法是正确的?A:限制行为能力人订立的合同一律无效;"
    "B:因重大误解订立的合同可以请求撤销;C:格式条款一律无效，无需另行判断;D:口头合同在法律上不能成立",
    "answer": "正确答案：B。",
}
FALSE_Q = {
    "item_id": "z/1-2/2",
    "question": "关于诉讼时效，下列哪一表述是错误的?A:普通诉讼时效期间为三年;"
    "B:诉讼时效期间届满后义务人可以提出不履行义务的抗辩;C:诉讼时效期间届满后权利人的实体权利随之消灭;"
    "D:当事人约定延长诉讼时效期间的约定无效",
    "answer": "正确答案：C。",
}
NAMES_Q = {
    "item_id": "z/1-2/3",
    "question": "下列哪一项属于不动产?A:汽车;B:房屋;C:手机;D:股票",
    "answer": "正确答案：B。",
}


def test_options_become_yes_no_topics_with_the_polarity_of_the_question():
    (true_src, false_src) = kq_from_choices([TRUE_Q, FALSE_Q, NAMES_Q])  # the names question is not used
    assert true_src.theme == "合同的效力" and [t.answer for t in true_src.topics] == ["否", "是", "否", "否"]
    assert [t.answer for t in false_src.topics] == ["是", "是", "否", "是"]  # asks for the false statement
    assert all(t.kind == "binary" and t.topic.endswith("这种说法对吗") for t in true_src.topics)
    assert "false statement" in false_src.derivation


def test_articles_of_one_law_become_open_topics_with_the_articles_text():
    items = [
        {
            "item_id": f"z/1-1/{i}",
            "idx": i,
            "question": f"民法商法农民专业合作社法第{n}条的内容是什么？",
            "answer": f"答案:第{n}条的内容:,（一）甲；,（二）乙。",
        }
        for i, n in enumerate(["一", "二", "三"])
    ]
    (source,) = kq_from_articles(items, per_instance=4)
    assert source.theme == "《农民专业合作社法》的有关规定" and len(source.topics) == 3
    assert source.topics[0].topic == "《农民专业合作社法》第一条是怎么规定的"
    assert source.topics[0].answer == "第一条的内容：（一）甲；（二）乙。" and source.topics[0].kind == "open_phrase"


def test_a_consultation_gives_open_statute_and_yes_no_topics():
    item = {
        "item_id": "z/3-8/1",
        "question": "我租的房子房东要提前收回，我交的押金能退回来吗？",
        "answer": "回答:租房押金可以退还。如果承租人没有违约，出租人应当退还押金。法律依据:《中华人民共和国民法典》"
        "第七百零三条租赁合同是出租人将租赁物交付承租人使用的合同。",
    }
    (source,) = lc_from_consultations([item])
    kinds = [t.kind for t in source.topics]
    assert kinds == ["binary", "open_phrase", "open_statute"] and source.topics[0].answer == "是"
    assert source.topics[0].topic == "我交的押金能退回来吗？"
    assert source.topics[2].statutes == (("中华人民共和国民法典", 703),)
    assert source.background == item["question"]


def test_yes_no_polarity_needs_the_questions_own_modal_verb_and_no_hedge():
    assert answer_polarity("押金能退回来吗？", "不能退还，因为您违约了。") == "否"
    assert answer_polarity("押金能退回来吗？", "可以退还。") == "是"
    assert answer_polarity("押金能退回来吗？", "可能可以退还。") is None  # hedged
    assert answer_polarity("押金能退回来吗？", "准生证是以前需要的证件。") is None  # another verb


def test_the_llm_procedure_validates_answers_and_drops_what_never_validates(tmp_path):
    rows = topic_rows(
        lc_from_consultations(
            [
                {
                    "item_id": "z/3-8/1",
                    "question": "房东不退押金怎么办？",
                    "answer": "回答:可以起诉。法律依据:《民法典》第七百零三条",
                }
            ]
        ),
        seed=0,
    )
    items = pd.DataFrame([{"item_id": "z/3-8/1", "question": "房东不退押金怎么办？", "answer": "回答:可以起诉。"}])
    good = {
        "background": "我租的房子房东不退押金。",
        "theme": "押金",
        "topics": [
            {"topic": "能不能起诉？", "kind": "binary", "answer": "是"},
            {"topic": "依据哪条法律？", "kind": "open_statute", "answer": "《中华人民共和国民法典》第七百零三条"},
        ],
    }
    answers = iter(
        [
            json.dumps({**good, "topics": [{"topic": "x", "kind": "binary", "answer": "不一定"}] * 2}),
            json.dumps(good, ensure_ascii=False),
        ]
    )
    with FakeOpenAIServer(reply=lambda body: next(answers)) as server:
        door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)))
        model = ModelConfig(name="env", model="hosted_vllm/m", api_base=server.url)
        frame, failed = asyncio.run(rewrite_sources(door, model, rows, items, limit=None, seed=0))
        door.close()
        assert server.count == 2 and "是或否" not in server.requests[1]["messages"][-1]["content"]
    assert failed == 0 and frame.method.tolist() == ["llm"] and frame.background.iloc[0] == good["background"]
    assert frame.topics.iloc[0][1]["statutes"] == [{"law": "中华人民共和国民法典", "article": 703, "sub_article": None}]


def test_the_scripted_environment_answers_the_llm_procedure_with_the_derived_list(tmp_path):
    rows = topic_rows(kq_from_choices([TRUE_Q]), seed=0)
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)))
    frame, failed = asyncio.run(
        rewrite_sources(
            door, ModelConfig(name="e", model="scripted/persona"), rows, pd.DataFrame([TRUE_Q]), limit=1, seed=0
        )
    )
    door.close()
    assert failed == 0 and frame.topics.iloc[0] == rows.topics.iloc[0] and frame.method.iloc[0] == "llm"


def test_the_scripted_environment_keeps_kq_and_lc_sources_of_one_frame(tmp_path):
    """KQ and LC rows in one frame leave each other's lay field NaN; the scripted answer must not carry it."""
    consultation = {
        "item_id": "z/3-8/1",
        "question": "我租的房子房东要提前收回，我交的押金能退回来吗？",
        "answer": "回答:租房押金可以退还。法律依据:《中华人民共和国民法典》第七百零三条租赁合同是出租人将租赁物"
        "交付承租人使用的合同。",
    }
    rows = topic_rows([*kq_from_choices([TRUE_Q]), *lc_from_consultations([consultation])], seed=0)
    assert rows.background.isna().any() and rows.occupation.isna().any()
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)))
    frame, failed = asyncio.run(
        rewrite_sources(
            door,
            ModelConfig(name="e", model="scripted/persona"),
            rows,
            pd.DataFrame([TRUE_Q, consultation]),
            limit=None,
            seed=0,
        )
    )
    door.close()
    assert failed == 0 and sorted(frame.scenario) == ["KQ", "LC"]
