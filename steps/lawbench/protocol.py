"""LawBench's paper protocol (spec lawbench §3; paper §4 Experiment setup): no model roles (every task is
rule-scored); 20 tasks of 500 items per setting; inputs cut to 2,048 tokens by right truncation, at most 1,024 new
tokens, ChatGPT and GPT-4 at temperature 0.7 and top_p 1, open models greedy (steps/lawbench/params.py:
paper_decoding, applied to every agent under `protocol: paper`)."""

from __future__ import annotations

from steps.protocol import PaperProtocol, PaperSetting

PAPER_MAX_INPUT_TOKENS = 2048  # paper §4: "We set the input token length limit to 2048 ..."
PAPER_MAX_NEW_TOKENS = 1024  # "... and an output token length to 1024"


def _tokens(value: object) -> str:
    return "sent whole" if value is None else f"{value:,}"


PAPER = PaperProtocol(
    settings=(
        PaperSetting(
            "max_input_tokens",
            PAPER_MAX_INPUT_TOKENS,
            "paper §4 (input limit 2,048 tokens)",
            "inputs {value}, paper cut at {paper} tokens",
            show=_tokens,
        ),
        PaperSetting("truncation", "right", "paper §4 (right truncation)", "{value} truncation, paper right"),
        PaperSetting(
            "max_new_tokens",
            PAPER_MAX_NEW_TOKENS,
            "paper §4 (output limit 1,024 tokens)",
            "new tokens {value}, paper {paper}",
            show=_tokens,
        ),
    ),
    size=10_000,
    unit="items",
    templates=("lawbench/templates",),
)
