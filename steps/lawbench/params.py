"""Section `lawbench` of params.yaml (stages `lawbench_predict`): items per task sent to each agent (None: all
500; a smaller number for a quick smoke run, whose scores are then not comparable with the paper's), the tasks to
run, and the paper's generation limits (§4 Experiment setup: inputs cut to 2,048 tokens by right truncation, at
most 1,024 output tokens; steps.lawbench.truncate says how tokens are counted).

`paper_decoding` is the paper's decoding for a model family and `paper_section` the section as the paper ran it, for
a `protocol: paper` preset to call.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, field_validator

from steps.lawbench.protocol import PAPER, PAPER_MAX_INPUT_TOKENS, PAPER_MAX_NEW_TOKENS
from steps.llm.config import Decoding
from steps.protocol import PaperProtocol
from steps.sections import BenchmarkSection, check_subset

PAPER_TEMPERATURE_GPT = 0.7  # "For both ChatGPT and GPT-4, we set the temperature at 0.7 and top p to 1"
_GPT_FAMILY = ("gpt-4", "gpt4", "gpt-3.5", "gpt3.5", "chatgpt")


class LawBenchParams(BenchmarkSection):
    PAPER: ClassVar[PaperProtocol] = PAPER

    limit: int | None = Field(default=None, ge=1, le=500)
    tasks: list[str] | None = None  # task ids to run (e.g. [1-1, 3-1]); None: all 20
    # a prompt over this many tokens is cut (None: sent whole); `truncation` right keeps its beginning (the paper's)
    max_input_tokens: int | None = Field(default=PAPER_MAX_INPUT_TOKENS, ge=1)
    truncation: Literal["right", "left"] = "right"
    # tokens: the served model's tokenizer where its server exposes `/tokenize` (vLLM, llama.cpp), else characters
    count_tokens: Literal["tokens", "characters"] = "tokens"
    # a cap on every agent's max_tokens on LawBench (its own smaller one stays; None: no cap of LawBench's own)
    max_new_tokens: int | None = Field(default=PAPER_MAX_NEW_TOKENS, ge=1)

    @field_validator("tasks")
    @classmethod
    def _known_tasks(cls, value: list[str] | None) -> list[str] | None:
        return check_subset(value)

    def shared_limit(self) -> int | None:
        return self.limit


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


def paper_section() -> LawBenchParams:
    """The section as the paper ran LawBench: all 500 items of all 20 tasks, prompts cut to 2,048 tokens by right
    truncation (counted by the served model's tokenizer where it can be), at most 1,024 new tokens (the defaults)."""
    return LawBenchParams(
        limit=None,
        tasks=None,
        max_input_tokens=PAPER_MAX_INPUT_TOKENS,
        truncation="right",
        count_tokens="tokens",
        max_new_tokens=PAPER_MAX_NEW_TOKENS,
    )


SECTION = LawBenchParams
