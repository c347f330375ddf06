"""A court-stage hint for each turn of a court transcript, from the presiding judge's own words: the cues are the
environment's registration's (`stages`: CIVIL or CRIMINAL here).

A judge utterance that names a later stage's typical action (法庭调查, 举证, 辩论, 调解, 本院认为 …) moves the trial
to that stage; the stage never goes back, and a party's reply is in the stage of the utterance it answers. This
is a reading aid for transcripts (`stage` in turns.parquet, `jurisflow show`); the III-1 judge segments the
trial itself (spec j1-envs §5.7).
"""

from __future__ import annotations

from steps.j1.envs.catalog import environments
from steps.simulate.model import Scenario, Turn, TurnKind

CIVIL = (
    ("开庭审理", ("开庭", "身份", "回避", "诉讼权利", "缺席", "合议庭", "独任", "审理程序", "简易程序")),
    ("法庭调查", ("法庭调查", "诉讼请求", "答辩", "举证", "质证", "出示证据", "证据")),
    ("法庭辩论", ("法庭辩论", "辩论", "争议焦点", "最后陈述", "补充意见")),
    ("法庭调解", ("调解", "择期宣判", "休庭")),
    ("法庭宣判", ("本院认为", "判决如下", "宣判")),
)
CRIMINAL = (
    (
        "开庭审理",
        ("开庭", "身份", "前科", "劣迹", "刑事处罚", "程序", "罪名", "起诉书", "诉讼权利", "回避", "认罪认罚"),
    ),
    ("法庭调查", ("法庭调查", "陈述", "经过", "出示证据", "举证", "辩护意见", "质证", "发问")),
    ("法庭宣判", ("本院认为", "判决如下", "宣判")),
)


def _stage_of(text: str, stages: tuple, current: int) -> int:
    later = [i for i, (_, cues) in enumerate(stages) if i > current and any(c in text for c in cues)]
    return max(later) if later else current


def court_stages(scenario: Scenario, turns: list[Turn]) -> list[str | None]:
    """The stage hint of every turn (None outside the court scenarios and for non-speech rows)."""
    env = environments().get(scenario.code)
    stages = env.stages if env is not None else ()
    chair = getattr(scenario.next_speaker, "chair", None)
    if not stages or chair is None:
        return [None] * len(turns)
    current = 0
    out: list[str | None] = []
    for t in turns:
        if t.kind is not TurnKind.UTTERANCE or t.failure is not None:
            out.append(None)
            continue
        if t.speaker == chair:
            current = _stage_of(t.text, stages, current)
        out.append(stages[current][0])
    return out
