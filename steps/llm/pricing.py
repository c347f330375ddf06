"""Per-token prices from litellm's price map (pinned with the package), looked up once per model.

Passing the prices to litellm explicitly spares it a slow price-map search on every call; the door
computes the cost itself from the token counts. A model missing from the map has an unknown cost (None),
never a cost of zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import litellm


@dataclass(frozen=True)
class Pricing:
    input_per_token: float
    output_per_token: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return prompt_tokens * self.input_per_token + completion_tokens * self.output_per_token


@cache
def pricing_for(model: str) -> Pricing | None:
    """Prices of a litellm model string ("openai/gpt-4o-2024-11-20"), or None when litellm has none."""
    bare = model.split("/", 1)[1] if "/" in model else model
    for key in (model, bare):
        entry = litellm.model_cost.get(key)
        if entry and entry.get("input_cost_per_token") is not None:
            return Pricing(float(entry["input_cost_per_token"]), float(entry.get("output_cost_per_token") or 0.0))
    return None


def prompt_tokens(model: str, messages: list[dict]) -> int:
    """Input tokens of one request by litellm's `token_counter`, chat overhead included. The bare model name
    picks the tokenizer when litellm's price map knows it (`openai/gpt-4o` alone would fall back to cl100k_base);
    otherwise litellm's default tokenizer counts."""
    bare = model.split("/", 1)[1] if "/" in model else model
    return int(litellm.token_counter(model=bare if bare in litellm.model_cost else model, messages=messages))
