"""J1-EVAL's paper protocol (spec j1-envs): GPT-4o drives every environment role and scores the LLM-judged
metrics, greedy for every role; 508 instances (Table 5); our instances are rebuilt from public judgments."""

from __future__ import annotations

from steps.llm.config import Decoding
from steps.protocol import PaperProtocol, PaperRole, PaperSetting

GPT4O = "openai/gpt-4o-2024-11-20"  # the snapshot §8.1 names for GPT-4o (agent and metric LLM)

PAPER = PaperProtocol(
    roles={
        "environment": PaperRole(
            GPT4O, "GPT-4o", "spec j1-envs §8.1 (environment driver GPT-4o; greedy for all evaluations)", Decoding()
        ),
        "judge": PaperRole(
            GPT4O, "GPT-4o (gpt-4o-2024-11-20)", "spec j1-envs §8.1 (metric LLM gpt-4o-2024-11-20; greedy)", Decoding()
        ),
    },
    settings=(
        PaperSetting("simulate.max_turns", {}, "spec j1-envs §8.1 (turn caps 15/10/20/15/50/35)", "turn caps {value}"),
        PaperSetting("instances.sizes", "paper", "spec j1-envs §3.5 (Table 5)", "instances {value}"),
        PaperSetting(
            "instances.civil_cases", "shared", "paper §3 (CD, DD, CI from one set of 93 cases)", "civil cases {value}"
        ),
        PaperSetting("instances.topic_mix", "paper", "paper App. C (LC yes/no and open topics)", "LC topics {value}"),
    ),
    size=508,  # Table 5: KQ 98, LC 62, CD 93, DD 93, CI 93, CR 69
    unit="instances",
    caveats=("instances rebuilt from public judgments",),
    templates=("j1/envs", "j1/eval/templates", "judges/templates"),
)
