"""UCL-Bench's paper protocol (spec ucl-bench §3.1, §4): GPT-4 (gpt-4-0613) simulates the user at temperature 0
and judges; every dialogue is compared with ChatGPT's (gpt-3.5-turbo-1106); 22 tasks of 50 items (1,100)."""

from __future__ import annotations

from steps.llm.config import Decoding
from steps.protocol import PaperProtocol, PaperRole, PaperSetting

GPT4 = "openai/gpt-4-0613"
CHATGPT = "openai/gpt-3.5-turbo-1106"
REFERENCE_NAME = "chatgpt"  # the reference's name under `protocol: paper` (its rows in the reports)

PAPER = PaperProtocol(
    roles={
        "environment": PaperRole(
            GPT4, "GPT-4 (gpt-4-0613)", "spec ucl-bench §3.1 (user simulator GPT-4, temperature 0)", Decoding()
        ),
        "judge": PaperRole(
            GPT4, "GPT-4 (gpt-4-0613)", "spec ucl-bench §3.1, §4 (judge GPT-4; temperature 0 as §9 recommends)"
        ),
        "reference": PaperRole(
            CHATGPT, "ChatGPT (gpt-3.5-turbo-1106)", "spec ucl-bench §3.1, §4 (reference ChatGPT, App. E.1)"
        ),
    },
    settings=(
        PaperSetting("max_exchanges", 3, "spec ucl-bench §3 (3 rounds)", "{value} exchanges, paper {paper}"),
        PaperSetting("single_round", False, "spec ucl-bench §3 (multi-turn)", "single-round variant"),
        PaperSetting("prompts", "released", "spec ucl-bench (the released legal_prompt.json)", "our prompts"),
    ),
    size=1100,  # Table 1: 22 tasks × 50; the public release has 10 per task
    unit="items",
    templates=("ucl/templates", "judges/templates"),
)
