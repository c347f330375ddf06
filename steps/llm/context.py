"""Which requests would outgrow their model's context, before any is sent (`jurisflow estimate`, `eval`, `models
check`): the requests the estimate records (steps/llm/standin.py: `Sent`, each stage's body run against stand-ins)
against the context each server reports (steps/llm/vllm.py: `server_limits`).

A request needs its prompt tokens plus its `max_tokens` (the reply's room; none set: the prompt alone, the reply may
then run to the end of the context). The counts are approximate: the prompt is counted by litellm's tokenizer for
the model's name (tiktoken's cl100k_base when litellm does not know the model, as for a local GGUF), scaled by the
server's ratio when `models check` calibrated the model, not by the server's own tokenizer; and a dialogue's history
holds the estimate's replies (a real-model-like agent's, the scripted environment's), not the model's. So a request
near the limit may fall on either side; `may_overflow` bounds a dialogue whose agent's earlier replies all ran to
max_tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from steps.llm.standin import Sent

# (api_base, model string) -> the context in tokens its server reports; None where it reports none
ContextOf = Callable[[str, str], int | None]
APPROXIMATE = (
    "token counts are approximate: litellm's tokenizer for the model's name (cl100k_base when litellm does not know "
    "it; scaled to the server's when `models check` calibrated it), and dialogue histories hold the estimate's replies"
)


@dataclass(frozen=True)
class Overflow:
    """The longest request of one item of one stage and role that needs more tokens than its model's context."""

    stage: str
    item: str  # the item's id ("" when the request names none)
    role: str  # the purpose of the call: agent, environment, judge …
    model_name: str
    prompt_tokens: int
    max_tokens: int | None
    context: int
    requests: int  # how many of the item's requests in the stage overflow (a dialogue's later turns too)

    @property
    def needed(self) -> int:
        return self.prompt_tokens + (self.max_tokens or 0)

    def line(self) -> str:
        """`stage  item  role model: prompt + max = needed > context`."""
        room = (
            f"{self.prompt_tokens:,} prompt + {self.max_tokens:,} max_tokens"
            if self.max_tokens
            else (f"{self.prompt_tokens:,} prompt (no max_tokens)")
        )
        more = f" ({self.requests} requests)" if self.requests > 1 else ""
        who = f"{self.stage}  {self.item or '-'}  {self.role} {self.model_name}"
        return f"{who}: {room} = {self.needed:,} > context {self.context:,}{more}"


def needed(s: Sent) -> int:
    """Tokens the request takes of the context: its prompt and the room its reply may use."""
    return s.input_tokens + (s.max_tokens or 0)


def at_most(s: Sent) -> int:
    """`needed` with every earlier reply of the model in the request (a dialogue's) as long as max_tokens allows."""
    if not s.replies or not s.max_tokens:
        return needed(s)
    return needed(s) - s.reply_tokens + s.replies * s.max_tokens


def overflows(sent: Iterable[Sent], context_of: ContextOf) -> list[Overflow]:
    """Per (stage, item, role), the longest request that needs more than its model's context, in the order the
    stages made them; requests to a model without a reported context are not checked."""
    found: dict[tuple[str, str, str, str], tuple[Sent, int, int]] = {}
    for s in sent:
        context = context_of(s.api_base, s.model) if s.api_base else None
        if context is None or needed(s) <= context:
            continue
        key = (s.stage, s.item or s.call_key, s.purpose, s.model_name)
        longest, n, _ = found.get(key, (s, 0, context))
        found[key] = (s if needed(s) > needed(longest) else longest, n + 1, context)
    return [
        Overflow(s.stage, s.item, s.purpose, s.model_name, s.input_tokens, s.max_tokens, context, n)
        for s, n, context in found.values()
    ]


def may_overflow(sent: Iterable[Sent], context_of: ContextOf) -> dict[str, int]:
    """Per stage, the requests that fit as estimated but would not if the model's earlier replies in them (a
    dialogue's history) had each run to max_tokens."""
    out: dict[str, int] = {}
    for s in sent:
        context = context_of(s.api_base, s.model) if s.api_base else None
        if context is not None and needed(s) <= context < at_most(s):
            out[s.stage] = out.get(s.stage, 0) + 1
    return out
