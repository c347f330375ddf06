"""The paper's published MILE numbers (Yue et al., NAACL 2025 Findings, Tables 1–3; spec maser-mile §5).

Scores are on the paper's 0–100 scale. The printed goal AVE is not the 7-metric mean for 9 of the 13 Table 1
rows (e.g. GPT-3.5-turbo: mean 57.42, printed 51.77); `AVE` keeps the printed value and `AVE (7-mean)` is the
recomputed mean, the one we report for our runs. Table 3's rows are raters (GPT-4o, human) and its columns the
lawyer the client talked to.
"""

from __future__ import annotations

import io
import re

import pandas as pd

GOAL = """group,model,CLI,DEF,F&R,CLA,EVID,STA,PROF,AVE
multilingual,GPT-4o,94.26,98.25,40.39,66.00,52.57,84.63,63.95,71.44
multilingual,GPT-3.5-turbo,85.23,92.31,36.33,55.31,45.06,39.44,48.23,51.77
multilingual,Gemini-1.5-pro,55.95,58.45,31.60,41.57,20.09,44.81,38.34,39.96
multilingual,Baichuan2-chat-13B,78.64,74.69,40.35,48.33,29.22,62.02,43.82,53.87
multilingual,LLaMa-3.1-instruct-8B,85.33,93.11,41.93,57.81,27.72,56.64,46.47,52.14
multilingual,Baichuan2-chat-7B,79.37,78.44,34.21,47.94,29.39,55.73,44.46,46.20
multilingual,InternLM2.5-chat-7B,62.77,64.28,35.74,44.62,31.03,50.97,44.21,43.51
multilingual,Mistral-instruct-v0.3-7B,14.48,12.82,21.36,30.00,27.60,23.85,23.12,26.56
legal,LawLLM-13B,49.91,38.49,30.49,32.61,27.24,50.13,27.58,30.09
legal,Interrogatory-7B,12.97,18.12,29.64,32.09,28.41,40.45,28.05,30.07
legal,Fuzi.mingcha-6B,53.34,5.91,19.86,25.82,27.46,24.29,23.64,24.73
base,Qwen2.5-instruct-7B,86.90,92.05,37.81,55.66,34.23,41.50,56.09,57.75
ours,SynthLaw-7B,90.20,96.15,54.20,70.00,54.60,91.74,59.05,73.71
"""
INTERACTION = """group,model,INT,PROF,LOGI,AVE
multilingual,GPT-4o,82.21,74.70,79.69,78.86
multilingual,GPT-3.5-turbo,78.01,71.62,76.83,75.49
multilingual,Gemini-1.5-pro,83.46,75.05,79.82,79.45
multilingual,Baichuan2-chat-13B,72.58,65.33,70.37,69.42
multilingual,LLaMa-3.1-instruct-8B,79.29,71.94,76.98,76.07
multilingual,Baichuan2-chat-7B,71.62,64.21,69.62,68.43
multilingual,InternLM2.5-chat-7B,64.35,60.18,63.81,62.78
multilingual,Mistral-instruct-v0.3-7B,21.64,24.84,23.82,23.43
legal,LawLLM-13B,57.25,53.17,56.42,55.61
legal,Interrogatory-7B,52.95,49.56,52.82,51.78
legal,Fuzi.mingcha-6B,51.52,46.53,50.34,49.47
base,Qwen2.5-instruct-7B,72.90,68.46,72.73,71.36
ours,SynthLaw-7B,83.23,74.48,79.22,78.97
"""
CONSISTENCY = """rater,GPT-4o,LawLLM-13B,Qwen2.5-instruct-7B,SynthLaw-7B
GPT-4o,87.88,86.55,85.82,87.95
Human,87,81,84,87
"""
GOAL_METRICS = ("CLI", "DEF", "F&R", "CLA", "EVID", "STA", "PROF")
# other spellings of the paper's model names (litellm strings, Hugging Face ids), for "same-named" rows
ALIASES = {
    "GPT-4o": ("gpt-4o-2024-08-06",),
    "Qwen2.5-instruct-7B": ("Qwen2.5-7B-Instruct",),
    "LLaMa-3.1-instruct-8B": ("Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct"),
    "Mistral-instruct-v0.3-7B": ("Mistral-7B-Instruct-v0.3",),
    "InternLM2.5-chat-7B": ("internlm2_5-7b-chat",),
    "Baichuan2-chat-7B": ("Baichuan2-7B-Chat",),
    "Baichuan2-chat-13B": ("Baichuan2-13B-Chat",),
    "Gemini-1.5-pro": ("gemini-1.5-pro",),
    "SynthLaw-7B": ("SynthLaw",),
}


def _key(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def paper_model(agent: str, model: str) -> str | None:
    """The paper's row for an agent whose alias or model name (without provider) is a paper model's name."""
    wanted = {_key(agent), _key(model.split("/")[-1])}
    for name in pd.read_csv(io.StringIO(GOAL)).model:
        if {_key(n) for n in (name, *ALIASES.get(name, ()))} & wanted:
            return name
    return None


def paper_long() -> pd.DataFrame:
    """The published numbers as long rows: table, group, model, metric, value."""
    goal = pd.read_csv(io.StringIO(GOAL))
    goal["AVE (7-mean)"] = goal[list(GOAL_METRICS)].mean(axis=1).round(2)
    inter = pd.read_csv(io.StringIO(INTERACTION))
    cons = pd.read_csv(io.StringIO(CONSISTENCY)).melt(id_vars="rater", var_name="model", value_name="value")
    frames = [
        goal.melt(id_vars=["group", "model"], var_name="metric").assign(table="goal"),
        inter.melt(id_vars=["group", "model"], var_name="metric").assign(table="interaction"),
        cons.assign(group=cons.rater, metric="CONS", table="consistency").drop(columns="rater"),
    ]
    return pd.concat(frames, ignore_index=True)[["table", "group", "model", "metric", "value"]]
