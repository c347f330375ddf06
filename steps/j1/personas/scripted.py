"""The scripted environment model's persona policies: seeded trait levels and a templated style.

Offline, trait levels are drawn from a fixed distribution keyed by the role's information (so the same
role always gets the same levels, and about a third of them are "medium", which the 2:1:2 redistribution
then re-draws); the style paragraph is assembled from one sentence per trait level.
"""

from __future__ import annotations

import json

from steps.j1.personas.big5 import TRAITS
from steps.j1.personas.generate import LEVELS_SCENARIO, STYLE_SCENARIO
from steps.j1.personas.seeded import rng_for
from steps.llm import ScriptedRequest, register_policy

_FIRST_DRAW = {"high": 1, "medium": 1, "low": 1}

_STYLE = {
    "extraversion": {
        "high": "你话比较多，愿意主动把自己的事情讲出来",
        "medium": "你说话不多不少，问到什么答什么",
        "low": "你比较内向，话不多，常常要律师追问才说",
    },
    "neuroticism": {
        "high": "情绪容易激动，说到委屈处会着急、语气变重，偶尔重复同一句话",
        "medium": "情绪总体平稳，只在关键处有些担心",
        "low": "情绪稳定，讲话心平气和",
    },
    "openness": {
        "high": "你愿意听取律师的新建议",
        "medium": "对律师的建议会先想一想再接受",
        "low": "你比较固执，习惯按自己的想法来",
    },
    "agreeableness": {"high": "对律师很信任、很配合", "medium": "对律师基本配合", "low": "有时会质疑律师，说话比较冲"},
    "conscientiousness": {
        "high": "讲述有条理，时间、金额都记得比较清楚",
        "medium": "讲述大体清楚，个别细节记不准",
        "low": "讲述比较零散，细节常常记不清",
    },
}


def scripted_levels(request: ScriptedRequest) -> str:
    info = str(request.metadata.get("info", request.last_user))
    rng = rng_for(0, "scripted-levels", info)
    levels = {t: rng.choices(list(_FIRST_DRAW), weights=list(_FIRST_DRAW.values()))[0] for t in TRAITS}
    return json.dumps(levels, ensure_ascii=False)


def scripted_style(request: ScriptedRequest) -> str:
    levels = request.metadata["levels"]
    parts = [_STYLE[t][levels[t]] for t in TRAITS]
    return f"{parts[0]}；{parts[1]}。{parts[2]}，{parts[3]}。{parts[4]}。"


register_policy("persona", LEVELS_SCENARIO, scripted_levels)
register_policy("persona", STYLE_SCENARIO, scripted_style)
