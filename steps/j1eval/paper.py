# ruff: noqa: E501  (the published tables are kept as printed, one row per line)
"""The J1 paper's published numbers (Jia et al., "Ready Jurist One", Tables 3 and 6-12; spec j1-envs §7).

Values are on the paper's 0-100 scale as printed; "-" (the model failed the task) is kept as missing here and
counts as 0 in the paper's averages. Tables 3 and 6-10 were run in an environment driven by GPT-4o
(gpt-4o-2024-11-20, also the judge); Tables 11-12 (three repeats, mean and std) in one driven by Qwen3-32B.
"""

from __future__ import annotations

import io
import re
from functools import cache

import pandas as pd

TABLE3 = """group,model,KQ_I-1,KQ_I-2,LC_I-1,LC_I-2,CD_II-1,CD_II-2,DD_II-1,DD_II-2,CI_III-1,CI_III-2,CI_III-5,CI_III-6,CR_III-1,CR_III-3,CR_III-4,CR_III-5,CR_III-6,AVG_OO,AVG_PO
closed-source,GPT-4o,69.7,62.7,55.9,45.1,58.9,89.9,45.4,84.8,87.0,28.5,50.2,13.9,49.3,60.9,38.5,42.8,27.0,62.2,46.8
closed-source,Claude-3.7,68.4,60.7,52.4,49.6,68.8,89.2,38.7,68.8,65.8,21.2,40.2,17.5,56.9,88.4,15.7,72.8,41.1,62.3,50.2
open-source,Deepseek-v3 671B,67.1,60.7,54.5,49.7,84.7,63.6,57.2,76.3,24.0,12.4,19.5,7.6,42.4,76.8,33.9,57.2,32.3,57.6,40.6
open-source,Deepseek-r1 671B,72.5,62.8,57.2,48.3,69.9,46.4,36.3,47.9,-,0.8,1.1,0.7,0.8,1.4,98.6,1.4,0.7,42.2,13.9
open-source,Llama3.3-it 70B,64.8,50.1,43.9,23.6,97.9,84.5,32.3,62.4,61.0,12.8,25.3,4.5,50.7,81.2,25.0,50.1,17.2,52.9,42.4
open-source,Qwen3 32B,69.6,66.2,58.3,47.2,91.2,84.4,46.7,63.5,52.7,17.0,34.1,15.4,26.8,49.3,58.3,40.0,22.9,56.9,41.2
open-source,Gemma3-it 27B,64.1,49.5,54.1,26.0,96.3,84.8,37.9,68.8,61.7,15.5,32.4,6.4,60.0,49.3,22.1,36.1,15.6,51.5,43.3
open-source,Qwen3 14B,67.7,62.8,56.2,44.3,63.9,89.2,36.6,62.4,13.0,4.3,12.2,9.8,16.9,26.1,73.6,22.8,17.1,51.6,24.0
open-source,Gemma3-it 12B,62.0,42.0,47.9,19.2,51.8,84.1,35.3,63.9,39.1,12.0,23.7,3.5,41.3,58.0,40.8,38.3,8.1,48.6,30.1
open-source,GLM4 9B,66.0,54.9,54.0,32.4,56.6,82.2,40.4,52.2,12.7,2.3,8.0,1.5,25.1,39.1,75.0,24.8,10.1,47.9,22.4
open-source,Qwen3 8B,66.2,57.1,55.0,36.9,74.2,72.7,17.6,22.8,9.9,5.8,14.2,7.2,16.3,26.1,67.4,19.4,16.7,42.8,21.9
open-source,InternLM3-it 8B,65.3,55.3,55.5,42.4,91.0,72.2,36.1,53.8,31.8,7.7,19.0,4.2,29.1,60.9,45.1,46.7,28.7,51.6,35.8
open-source,Ministral-it 8B,59.6,37.6,51.5,14.5,60.0,2.8,34.2,14.0,22.7,5.7,12.4,0.5,2.1,4.3,98.0,2.3,0.9,23.8,16.9
open-source,Qwen2.5-it 7B,67.2,54.9,52.6,31.3,89.5,81.4,47.1,59.7,15.6,7.3,14.1,7.5,26.4,49.3,54.5,37.5,25.4,50.5,32.9
open-source,Qwen3 4B,62.2,55.9,50.7,37.2,51.4,83.7,33.1,51.5,28.0,11.3,18.3,7.6,20.8,44.9,57.3,32.9,18.8,49.7,26.4
legal-specific,LawLLM 13B,56.3,47.3,44.9,20.8,12.9,2.9,0.6,-,1.0,-,0.3,-,12.7,17.4,87.4,10.9,2.5,23.7,5.1
legal-specific,Chatlaw2 7B,60.6,53.1,50.4,25.0,22.4,17.0,1.3,0.9,-,-,-,-,-,-,-,-,-,25.9,3.0
"""

TABLE6 = """group,model,PLA,DEF,CLA,EVI,F&R
closed-source,GPT-4o,92.7,96.3,97.3,77.7,85.3
closed-source,Claude-3.7,92.0,93.1,96.2,85.2,79.6
open-source,Deepseek-v3 671B,71.4,87.7,67.3,35.2,56.5
open-source,Deepseek-r1 671B,75.3,71.0,44.3,11.7,29.8
open-source,Llama3.3-it 70B,78.9,93.1,98.0,66.7,86.0
open-source,Qwen3 32B,74.0,94.3,98.5,76.0,79.4
open-source,Gemma3-it 27B,86.5,94.4,98.4,74.7,70.1
open-source,Qwen3 14B,94.0,94.5,97.1,79.7,80.5
open-source,Gemma3-it 12B,80.4,91.5,96.9,73.8,78.2
open-source,GLM4 9B,80.8,83.9,89.4,73.6,83.8
open-source,Qwen3 8B,76.3,77.1,81.0,60.9,68.3
open-source,InternLM3-it 8B,77.4,52.1,79.6,77.0,74.8
open-source,Ministral-it 8B,-,14.2,-,-,-
open-source,Qwen2.5-it 7B,84.2,94.1,91.8,52.3,84.7
open-source,Qwen3 4B,89.3,91.1,94.8,76.1,67.00
legal-specific,LawLLM 13B,0.2,2.1,5.0,4.0,3.0
legal-specific,Chatlaw2 7B,6.9,16.7,23.3,15.0,23.0
"""

TABLE7 = """group,model,RES,DEF,EVI
closed-source,GPT-4o,92.5,86.6,75.3
closed-source,Claude-3.7,79.9,85.3,41.1
open-source,Deepseek-v3 671B,73.9,74.3,80.5
open-source,Deepseek-r1 671B,73.6,53.7,16.5
open-source,Llama3.3-it 70B,71.0,71.9,44.1
open-source,Qwen3 32B,73.4,79.3,37.7
open-source,Gemma3-it 27B,78.9,80.2,47.3
open-source,Qwen3 14B,77.1,76.2,33.8
open-source,Gemma3-it 12B,68.3,83.7,39.6
open-source,GLM4 9B,69.8,61.6,25.2
open-source,Qwen3 8B,25.7,27.9,15.0
open-source,InternLM3-it 8B,47.4,70.9,43.2
open-source,Ministral-it 8B,14.1,20.2,7.6
open-source,Qwen2.5-it 7B,69.3,73.6,36.3
open-source,Qwen3 4B,68.8,56.1,29.7
legal-specific,LawLLM 13B,-,-,-
legal-specific,Chatlaw2 7B,1.1,1.6,-
"""

TABLE8 = """group,model,STA,ACT,UNI
closed-source,GPT-4o,85.8,88.2,89.2
closed-source,Claude-3.7,65.3,69.1,68.8
open-source,Deepseek-v3 671B,36.6,46.5,37.6
open-source,Deepseek-r1 671B,-,0.2,1.1
open-source,Llama3.3-it 70B,53.8,78.9,86.0
open-source,Qwen3 32B,49.7,57.5,60.2
open-source,Gemma3-it 27B,68.5,75.4,67.7
open-source,Qwen3 14B,11.6,19.6,25.8
open-source,Gemma3-it 12B,36.8,52.2,54.8
open-source,GLM4 9B,11.0,14.3,18.3
open-source,Qwen3 8B,9.1,10.6,28.0
open-source,InternLM3-it 8B,25.5,38.1,47.3
open-source,Ministral-it 8B,18.8,26.6,32.3
open-source,Qwen2.5-it 7B,11.0,22.7,32.3
open-source,Qwen3 4B,26.6,33.4,38.7
legal-specific,LawLLM 13B,0.5,1.5,4.3
legal-specific,Chatlaw2 7B,0.8,2.2,-
"""

TABLE9 = """group,model,III-1_STA,III-1_ACT,III-1_UNI,III-4_SEN,III-4_FINE
closed-source,GPT-4o,46.4,52.2,66.7,38.5,38.5
closed-source,Claude-3.7,47.8,59.6,95.7,21.6,9.8
open-source,Deepseek-v3 671B,39.1,45.6,78.3,34.9,32.9
open-source,Deepseek-r1 671B,2.2,2.6,1.4,98.6,98.6
open-source,Llama3.3-it 70B,44.9,56.5,85.5,21.6,28.4
open-source,Qwen3 32B,25.4,28.2,50.7,60.4,56.3
open-source,Gemma3-it 27B,52.9,67.1,92.8,21.9,22.3
open-source,Qwen3 14B,15.2,18.7,29.0,73.4,73.7
open-source,Gemma3-it 12B,37.0,45.7,69.6,41.1,40.4
open-source,GLM4 9B,21.7,28.5,39.1,76.2,73.8
open-source,Qwen3 8B,18.8,14.8,37.7,67.8,67.0
open-source,InternLM3-it 8B,27.5,30.8,60.9,45.4,44.9
open-source,Ministral-it 8B,2.2,1.9,4.3,97.7,98.3
open-source,Qwen2.5-it 7B,21.0,31.7,52.2,56.0,53.0
open-source,Qwen3 4B,23.2,18.5,49.3,59.1,55.5
legal-specific,LawLLM 13B,11.6,16.1,21.7,84.3,90.6
legal-specific,Chatlaw2 7B,-,-,-,-,-
"""

TABLE10 = """group,model,KQ,LC,CD,DD,CI,CR
closed-source,GPT-4o,5.9,4.9,6.7,5.2,37.6,15.3
closed-source,Claude-3.7,5.9,5.0,12.8,9.2,37.5,11.6
open-source,Deepseek-v3 671B,6.3,4.9,13.0,4.9,11.6,7.2
open-source,Deepseek-r1 671B,6.0,5.3,10.8,4.8,1.2,1.3
open-source,Llama3.3-it 70B,5.9,5.2,7.0,5.0,17.5,8.9
open-source,Qwen3 32B,5.9,4.9,9.1,7.6,33.3,21.0
open-source,Gemma3-it 27B,5.9,5.1,7.7,6.1,31.5,11.4
open-source,Qwen3 14B,6.0,5.0,6.1,6.7,32.9,16.9
open-source,Gemma3-it 12B,5.9,5.2,8.7,7.1,26.5,14.5
open-source,GLM4 9B,6.0,5.2,13.5,5.0,5.5,7.3
open-source,Qwen3 8B,6.1,4.8,14.3,14.1,32.3,13.1
open-source,InternLM3-it 8B,5.9,5.6,2.7,4.3,1.1,1.4
open-source,Ministral-it 8B,6.2,6.1,1.0,2.4,29.4,27.1
open-source,Qwen2.5-it 7B,5.9,4.9,5.6,5.2,32.4,20.0
open-source,Qwen3 4B,6.0,5.2,8.1,8.2,24.2,15.5
legal-specific,LawLLM 13B,6.1,5.4,20.0,15.0,2.5,25.3
legal-specific,Chatlaw2 7B,7.2,7.9,6.7,6.3,21.8,15.2
"""

TABLE11 = """model,KQ_I-1_mean,KQ_I-1_std,KQ_I-2_mean,KQ_I-2_std,LC_I-1_mean,LC_I-1_std,LC_I-2_mean,LC_I-2_std,CD_II-1_mean,CD_II-1_std,CD_II-2_mean,CD_II-2_std,DD_II-1_mean,DD_II-1_std,DD_II-2_mean,DD_II-2_std
GPT-4o,65.7,1.9,77.3,0.4,48.5,1.3,47.8,0.1,59.4,0.2,84.9,0.9,82.1,1.1,66.5,0.8
Deepseek-v3 671B,64.5,1.0,77.2,0.1,51.7,0.9,48.0,0.1,98.2,0.7,81.7,1.0,74.3,0.5,51.7,0.5
Qwen3 32B,68.6,1.9,76.7,0.5,56.6,2.2,47.7,0.2,85.3,0.9,87.2,0.2,89.5,1.3,57.1,0.8
Qwen3 14B,64.5,2.5,77.8,0.3,54.6,2.0,48.0,0.2,71.9,1.3,61.1,0.4,71.9,1.3,61.1,0.4
InternLM3-it 8B,63.0,0.2,76.8,0.1,51.4,1.1,45.6,0.1,98.0,0.2,58.5,0.1,57.1,1.1,47.6,0.4
"""

TABLE12 = """model,CI_III-1_mean,CI_III-1_std,CI_III-2_mean,CI_III-2_std,CI_III-5_mean,CI_III-5_std,CI_III-6_mean,CI_III-6_std,CR_III-1_mean,CR_III-1_std,CR_III-3_mean,CR_III-3_std,CR_III-4_mean,CR_III-4_std,CR_III-5_mean,CR_III-5_std,CR_III-6_mean,CR_III-6_std
GPT-4o,80.9,1.3,27.3,0.9,47.2,1.7,20.9,0.9,21.1,0.9,28.5,1.8,74.2,2.8,24.1,1.4,16.6,1.0
Deepseek-v3 671B,21.7,1.0,10.8,0.8,13.7,1.5,8.0,1.8,45.4,0.3,78.3,0.0,30.4,3.7,62.1,2.0,36.6,1.5
Qwen3 32B,45.9,0.2,13.1,1.4,29.3,0.9,16.2,0.5,33.7,0.6,53.6,1.2,49.7,0.4,44.3,1.1,26.1,0.7
Qwen3 14B,17.8,1.6,6.6,1.6,14.9,2.8,8.8,1.7,23.2,1.0,41.1,0.8,67.0,2.7,31.3,1.3,21.9,0.8
InternLM3-it 8B,24.1,0.2,8.4,1.3,18.0,0.7,9.2,1.1,23.5,0.5,51.7,0.7,56.2,0.7,37.8,0.5,26.2,0.2
"""
PAPER_ENVIRONMENT = "GPT-4o (gpt-4o-2024-11-20)"
PAPER_JUDGE = "GPT-4o (gpt-4o-2024-11-20)"
PAPER_REPEATS_ENVIRONMENT = "Qwen3-32B"
# other spellings of the paper's models (API and Hugging Face names), for agents named after one of them
ALIASES = {
    "GPT-4o": ("gpt-4o-2024-11-20",),
    "Claude-3.7": ("claude-3-7-sonnet-20250219", "claude-3.7-sonnet"),
    "Deepseek-v3 671B": ("deepseek-chat", "DeepSeek-V3", "deepseek-v3"),
    "Deepseek-r1 671B": ("deepseek-reasoner", "DeepSeek-R1", "deepseek-r1"),
    "Llama3.3-it 70B": ("Llama-3.3-70B-Instruct",),
    "Qwen3 32B": ("Qwen3-32B",),
    "Gemma3-it 27B": ("gemma-3-27b-it",),
    "Qwen3 14B": ("Qwen3-14B",),
    "Gemma3-it 12B": ("gemma-3-12b-it",),
    "GLM4 9B": ("glm-4-9b-chat", "GLM-4-9B-Chat"),
    "Qwen3 8B": ("Qwen3-8B",),
    "InternLM3-it 8B": ("internlm3-8b-instruct",),
    "Ministral-it 8B": ("Ministral-8B-Instruct-2410",),
    "Qwen2.5-it 7B": ("Qwen2.5-7B-Instruct",),
    "Qwen3 4B": ("Qwen3-4B",),
    "LawLLM 13B": ("LawLLM-13B",),
    "Chatlaw2 7B": ("Chatlaw2-7B", "ChatLaw2-MoE"),
}
_COLUMN = re.compile(r"^(?P<scope>KQ|LC|CD|DD|CI|CR)_(?P<metric>.+?)(?:_(?P<stat>mean|std))?$")


def _frame(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), na_values=["-"], keep_default_na=False)


def _melt(text: str, table: str, scope: str | None = None, prefix: str = "") -> pd.DataFrame:
    """One row per (model, column): scope and metric from the column name (KQ_I-1, III-1_STA, PLA …)."""
    wide = _frame(text)
    rows = []
    for record in wide.to_dict("records"):
        for column, value in record.items():
            if column in ("group", "model"):
                continue
            m = _COLUMN.match(column)
            where: str | None
            if column in ("AVG_OO", "AVG_PO"):
                where, metric, stat = "overall", column, None
            elif m and scope is None:
                where, metric, stat = m["scope"], m["metric"], m["stat"]
            else:
                where, metric, stat = scope, prefix + column.replace("_", "/"), None
            rows.append(
                {
                    "table": table if stat is None else f"repeats_{stat}",
                    "model": record["model"],
                    "scope": where,
                    "metric": metric,
                    "value": value,
                }
            )
    return pd.DataFrame(rows)


def _turns() -> pd.DataFrame:
    """Table 10: average turns, one column per environment."""
    wide = _frame(TABLE10).drop(columns="group")
    long = wide.melt(id_vars="model", var_name="scope", value_name="value")
    return long.assign(table="table10", metric="turns")[["table", "model", "scope", "metric", "value"]]


@cache
def paper_long() -> pd.DataFrame:
    """Every published number: table, model, scope (KQ … CR, overall), metric (I-1, II-2/PLA, AVG_OO …), value."""
    parts = [
        _melt(TABLE3, "table3"),
        _melt(TABLE6, "table6", "CD", "II-2/"),
        _melt(TABLE7, "table7", "DD", "II-2/"),
        _melt(TABLE8, "table8", "CI", "III-1/"),
        _melt(TABLE9, "table9", "CR"),
        _turns(),
        _melt(TABLE11, "repeats"),
        _melt(TABLE12, "repeats"),
    ]
    return pd.concat(parts, ignore_index=True)


def models() -> list[str]:
    return _frame(TABLE3).model.tolist()


def name_key(name: str) -> str:
    """A model name for matching: the last path segment, lower case, letters and digits only."""
    return re.sub(r"[^0-9a-z]", "", name.rsplit("/", 1)[-1].lower())


def paper_model_for(agent: str, model: str | None, explicit: dict[str, str]) -> str | None:
    """The paper's model for an agent: `explicit` (params) first, else the alias or the model string matching a
    paper model's name or one of its other spellings."""
    if agent in explicit:
        if explicit[agent] not in models():
            known = ", ".join(models())
            raise ValueError(f"j1.eval.paper_names.{agent}: '{explicit[agent]}' is not a J1 model ({known})")
        return explicit[agent]
    keys = {name_key(s): m for m in models() for s in (m, *ALIASES.get(m, ()))}
    return keys.get(name_key(agent)) or (keys.get(name_key(model)) if model else None)
