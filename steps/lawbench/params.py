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

from steps.lawbench.protocol import (
    PAPER,
    PAPER_MAX_INPUT_TOKENS,
    PAPER_MAX_NEW_TOKENS,
    paper_decoding,
)
from steps.llm.config import ModelConfig
from steps.protocol import PaperProtocol
from steps.sections import BenchmarkSection, check_subset


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

    def agent_model(self, agent: ModelConfig) -> ModelConfig:
        """The agent as `lawbench_predict` sends it: decoded as the paper decoded its family under `protocol:
        paper` (`with_protocol`), at most `max_new_tokens` new tokens (`with_max_new_tokens`)."""
        return with_max_new_tokens(with_protocol(agent, self.protocol), self.max_new_tokens)


def with_protocol(agent: ModelConfig, protocol: str) -> ModelConfig:
    """The agent as the paper decoded its family under `protocol: paper` (ChatGPT and GPT-4 at temperature 0.7 and
    top_p 1, every other model greedy, at most 1,024 new tokens: `paper_decoding`), over its own decoding; under
    `ours` the agent's own decoding (the protocol label names where it differs from the paper's). run.json records
    the decoding sent."""
    if protocol != "paper":
        return agent
    paper = paper_decoding(agent.model).model_dump(exclude_unset=True)
    return agent.model_copy(update={"decoding": agent.decoding.model_copy(update=paper)})


def with_max_new_tokens(agent: ModelConfig, max_new_tokens: int | None) -> ModelConfig:
    """The agent with at most `lawbench.max_new_tokens` new tokens: that cap when it sets no max_tokens or a larger
    one; its own smaller max_tokens stays (e.g. `eval --max-tokens 64`: a deviation run.json records and the
    label names). None: the agent's decoding unchanged."""
    own = agent.decoding.max_tokens
    if max_new_tokens is None or (own is not None and own <= max_new_tokens):
        return agent
    return agent.model_copy(update={"decoding": agent.decoding.model_copy(update={"max_tokens": max_new_tokens})})


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
