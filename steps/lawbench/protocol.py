"""LawBench's paper protocol (spec lawbench §3; paper §4 Experiment setup): no model roles (every task is
rule-scored); 20 tasks of 500 items per setting; inputs cut to 2,048 tokens by right truncation, at most 1,024 new
tokens, ChatGPT and GPT-4 at temperature 0.7 and top_p 1, open models greedy (`paper_decoding`: applied to every
agent under `protocol: paper`; under `ours` the label names an agent whose decoding differs from it)."""

from __future__ import annotations

from steps.llm.config import Decoding
from steps.protocol import PaperProtocol, PaperSetting

PAPER_MAX_INPUT_TOKENS = 2048  # paper §4: "We set the input token length limit to 2048 ..."
PAPER_MAX_NEW_TOKENS = 1024  # "... and an output token length to 1024"
PAPER_TEMPERATURE_GPT = 0.7  # "For both ChatGPT and GPT-4, we set the temperature at 0.7 and top p to 1"
_GPT_FAMILY = ("gpt-4", "gpt4", "gpt-3.5", "gpt3.5", "chatgpt")


def is_gpt_family(model: str) -> bool:
    """Whether `model` (a litellm model string such as `openai/gpt-4-0613`, or a paper name such as `ChatGPT`,
    `GPT4`) is one of the OpenAI chat models the paper sampled at temperature 0.7."""
    name = model.rsplit("/", 1)[-1].lower()
    return name.startswith(_GPT_FAMILY)


def paper_decoding(model: str) -> Decoding:
    """The paper's decoding for `model` (§4 Experiment setup): ChatGPT and GPT-4 at temperature 0.7 and top_p 1,
    every other model greedy (temperature 0; the paper ran only open models besides those two); at most 1,024 new
    tokens for all. A `protocol: paper` preset sets an agent's `decoding` to this."""
    if is_gpt_family(model):
        return Decoding(temperature=PAPER_TEMPERATURE_GPT, top_p=1.0, max_tokens=PAPER_MAX_NEW_TOKENS)
    return Decoding(temperature=0.0, max_tokens=PAPER_MAX_NEW_TOKENS)


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
            caps="max_tokens",
        ),
    ),
    size=10_000,
    unit="items",
    templates=("lawbench/templates",),
    agent_decoding=paper_decoding,
    agent_source="paper §4 (ChatGPT, GPT-4: temperature 0.7, top_p 1; other models greedy; 1,024 new tokens)",
)
