"""A door whose every answer comes from a scripted stand-in, recording each request the stages would send.

`jurisflow estimate` runs the real steps (prompt builders, the dialogue engine, the judges) through
`StandInDoor` instead of `ModelDoor`: a call to any model is answered at once by a deterministic scripted model
(a scripted model answers for itself; an agent is answered by `scripted/oracle`, the environment and extraction
by `scripted/persona`, the judge by `scripted/judge`, unless told otherwise), and the request is recorded with
its call key and its tokens counted by the real model's tokenizer. So the number of calls and every prompt
follow the real protocol; only the replies, and so what depends on them (when a dialogue ends, a repair round),
are the stand-in's. Nothing is sent, cached or written.

Two ways to play a real agent (`EARLY` and `REAL_LIKE`): `scripted/oracle` answers from the ground truth and ends
every dialogue as early as it can (a lower bound on calls and tokens); `FILLER`, the real-model-like policy, answers
every call with neutral filler text of the agent's reply length (`reply_tokens`: a measured mean reply length, else
its `decoding.max_tokens`, else `ASSUMED_REPLY_TOKENS`) that carries no end marker and answers nothing, so
dialogues run until their turn cap or the environment ends them, and revisions, forced deliverables and repair
rounds happen as a real run's do (the small real models of reports/real_model.md ran every dialogue to its cap).

A judge that does not always answer in the requested format (`repair_rates`: the share of its answers that
`jurisflow models check`'s judge probes could not parse) is played as such: that share of a real judge's answers,
spread evenly over the stage's calls (`fails`), is neutral filler of the judge's reply length, which no judge parser
reads, so the judge's own repair round follows with its real prompt (the question, the bad answer, the repair
request); a repair answer fails at the same rate, counted apart from the first answers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import litellm

from steps.llm import scripted
from steps.llm.cache import call_key
from steps.llm.config import ModelConfig
from steps.llm.reasoning import separate
from steps.llm.results import CallFailure, Completion, FailureKind, Reply, Request

# which scripted model answers for a real model, by the purpose the call names (the door's accounting purposes)
STAND_INS = {"agent": "oracle", "environment": "persona", "extraction": "persona", "judge": "judge"}
StandIn = str | Callable[[scripted.ScriptedRequest], str]  # a scripted model's name, or a policy of one's own
CHAT_PRIMING = 3  # litellm (as OpenAI): every request's reply is primed with 3 tokens
FILLER = "filler"  # the real-model-like policy: replies of the agent's reply length that answer nothing
EARLY = dict(STAND_INS)  # an agent that ends every dialogue as early as it can: the low figure
REAL_LIKE = {**STAND_INS, "agent": FILLER}  # an agent that talks as a real model does: the expected figure
ASSUMED_REPLY_TOKENS = 1024  # a filler reply's length when the model sets no max_tokens and none was measured
# neutral text: no end marker, no legal content, no question, nothing a scripted role could take as an answer
FILLER_UNIT = "嗯，这一点我再想一想，稍后继续说明。"


def filler_text(counter: TokenCounter, tokens: int) -> str:
    """Neutral text of about `tokens` tokens by `counter` (whole units of `FILLER_UNIT`, then characters)."""
    if tokens <= 0:
        return ""
    unit = counter.text(FILLER_UNIT) or 1
    text = FILLER_UNIT * (tokens // unit)
    for ch in FILLER_UNIT:
        if counter.text(text) >= tokens:
            break
        text += ch
    return text or FILLER_UNIT[0]


def fails(n: int, rate: float) -> bool:
    """Whether the n-th (from 0) of a run of answers failing at `rate` fails: ⌊(n+1)·rate⌋ > ⌊n·rate⌋ (rounded to
    1e-9 first, so that e.g. rate 0.1 after 10 answers has failed exactly once)."""
    return math.floor(round((n + 1) * rate, 9)) > math.floor(round(n * rate, 9))


class TokenCounter:
    """Input and output tokens of one model's requests, as its usage rows will count them.

    A scripted model counts one token per character (steps/llm/scripted_provider.py); any other model is counted by
    litellm's `token_counter` for its bare name (o200k_base for gpt-4o*, its default cl100k_base for a model it does
    not know), chat overhead included. litellm counts each message apart (3 + role + content tokens, then 3 for the
    reply), so the count of a message is kept and a dialogue's growing history is tokenised once.
    """

    def __init__(self, model: str):
        self.scripted = model.startswith("scripted/")
        bare = model.split("/", 1)[1] if "/" in model else model
        self.name = bare if bare in litellm.model_cost else model
        self._memo: dict[tuple[str, str], int] = {}
        self._texts: dict[str, int] = {}

    def prompt(self, messages: list[dict[str, Any]]) -> int:
        if self.scripted:
            return sum(len(str(m.get("content") or "")) for m in messages)
        total = CHAT_PRIMING
        for m in messages:
            if set(m) <= {"role", "content"} and isinstance(m.get("content"), str):
                key = (str(m.get("role")), m["content"])
                if key not in self._memo:
                    self._memo[key] = litellm.token_counter(model=self.name, messages=[m]) - CHAT_PRIMING
                total += self._memo[key]
            else:  # anything but plain role + text: litellm counts it whole
                total += litellm.token_counter(model=self.name, messages=[m]) - CHAT_PRIMING
        return total

    def text(self, text: str, *, memo: bool = False) -> int:
        """The tokens of `text` alone; `memo`: kept for the next time (a dialogue's earlier replies recur)."""
        if self.scripted:
            return len(text)
        if not text:
            return 0
        if memo and text in self._texts:
            return self._texts[text]
        count = int(litellm.token_counter(model=self.name, text=text))
        if memo:
            self._texts[text] = count
        return count


@dataclass(frozen=True)
class Sent:
    """One request a stage would send: where, who, its call key and tokens (output: the stand-in's reply)."""

    stage: str
    purpose: str
    model_name: str
    model: str
    call_key: str
    input_tokens: int
    output_tokens: int
    max_tokens: int | None
    stand_in: str
    failed: bool = False  # the stand-in could not answer (no policy for the call): a failed call in the run
    item: str = ""  # the call's instance (its metadata's instance_id): a dialogue's calls are sequential
    api_base: str = ""  # where the model is served (the first replica): keys the calibration record
    concurrency: int | None = None  # the model's own bound on calls at once (None: llm.concurrency)
    replies: int = 0  # the model's own earlier replies in the request (its `assistant` messages: a dialogue's)
    reply_tokens: int = 0  # their tokens (the stand-ins' replies, as counted in input_tokens)


@dataclass
class StandInDoor:
    """The model door's `complete` / `complete_many` answered by scripted stand-ins; `sent` lists every request.

    `stage` names the stage whose calls are being recorded (the estimator sets it). `stand_ins` maps a purpose to
    what answers real models' calls of that purpose: a scripted model's name (default `STAND_INS`), `FILLER`, or a
    function of the request (tests answer as their fake server does). `reply_tokens` maps a model string to its
    measured mean reply length, which `FILLER` prefers to `decoding.max_tokens`; `prompt_ratios` maps (model,
    first api_base) to the server's prompt tokens over our count (`jurisflow models check`), which scales every
    prompt-token count of that model.
    """

    stand_ins: dict[str, StandIn] = field(default_factory=lambda: dict(STAND_INS))
    stage: str = ""
    sent: list[Sent] = field(default_factory=list)
    run_id: str = ""
    reply_tokens: dict[str, int] = field(default_factory=dict)
    prompt_ratios: dict[tuple[str, str], float] = field(default_factory=dict)  # (model, api_base) → server/ours
    repair_rates: dict[tuple[str, str], float] = field(default_factory=dict)  # (model, api_base) → judge's bad share
    _judged: dict[tuple[str, str, bool], int] = field(default_factory=dict)  # (stage, model, repair) → answers so far
    _counters: dict[str, TokenCounter] = field(default_factory=dict)
    _fillers: dict[tuple[str, int], str] = field(default_factory=dict)

    def counter(self, model: str) -> TokenCounter:
        if model not in self._counters:
            self._counters[model] = TokenCounter(model)
        return self._counters[model]

    def stand_in(self, model: ModelConfig, purpose: str) -> StandIn:
        """What answers `model`'s calls of `purpose` (a scripted model answers for itself)."""
        if model.is_scripted:
            return model.model.split("/", 1)[1]
        return self.stand_ins.get(purpose, STAND_INS["environment"])

    def prompt_tokens(self, model: ModelConfig, messages: list[dict[str, Any]]) -> int:
        """The request's prompt tokens by the model's counter, scaled by its calibration's ratio when there is one."""
        return self.scaled(model, self.counter(model.model).prompt(messages))

    def scaled(self, model: ModelConfig, counted: int) -> int:
        """Tokens by the model's counter, scaled by its calibration's ratio (server/ours) when there is one."""
        base = model.api_base[0] if isinstance(model.api_base, list) else model.api_base
        ratio = self.prompt_ratios.get((model.model, base or ""))
        return round(counted * ratio) if ratio else counted

    def reply_length(self, model: ModelConfig) -> int:
        """A filler reply's tokens for `model`: its measured mean reply (capped by max_tokens), else max_tokens."""
        cap = model.decoding.max_tokens
        measured = self.reply_tokens.get(model.model)
        if measured:
            return min(measured, cap) if cap else measured
        return cap or ASSUMED_REPLY_TOKENS

    def unparsable(self, model: ModelConfig, purpose: str, messages: list[dict[str, Any]]) -> bool:
        """Whether this judge answer is one its repair rate makes unparsable: of a real judge's answers in this stage
        (first answers and repair answers counted apart; a repair round's request holds the judge's earlier answer),
        the n-th (from 0) fails when ⌊(n+1)·rate⌋ > ⌊n·rate⌋, so exactly ⌊N·rate⌋ of the first N fail, evenly spread."""
        if purpose != "judge" or model.is_scripted:
            return False
        base = model.api_base[0] if isinstance(model.api_base, list) else model.api_base
        rate = min(max(self.repair_rates.get((model.model, base or ""), 0.0), 0.0), 1.0)
        if not rate:
            return False
        repair = any(m.get("role") == "assistant" for m in messages)
        key = (self.stage, model.model, repair)
        n = self._judged.get(key, 0)
        self._judged[key] = n + 1
        return fails(n, rate)

    def filler(self, model: ModelConfig) -> str:
        """The filler reply for `model`, made once per (model, length)."""
        length = self.reply_length(model)
        key = (model.model, length)
        if key not in self._fillers:
            self._fillers[key] = filler_text(self.counter(model.model), length)
        return self._fillers[key]

    async def complete(
        self,
        model: ModelConfig,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        metadata: dict | None = None,
        fresh: bool = False,
        response_format: dict[str, Any] | None = None,
    ) -> Reply:
        """The stand-in's answer to the call; the request is recorded with `model`'s call key and tokens (a
        `response_format` is not: the stand-in's answer does not depend on it, nor do the estimate's tokens)."""
        metadata = dict(metadata or {})
        key_extra = metadata
        if model.is_scripted:  # as the door keys a scripted call (steps/llm/door.py)
            policy = scripted.fingerprint_of(model.model, metadata)
            key_extra = {**metadata, "_policy": policy}
        key = call_key(model, messages, key_extra)
        who = self.stand_in(model, purpose)
        label = f"scripted/{who}" if isinstance(who, str) else getattr(who, "__name__", "a policy")
        counter = self.counter(model.model)
        item = str(metadata.get("instance_id") or "")
        own = [m for m in messages if m.get("role") == "assistant"]
        history = (len(own), self.scaled(model, sum(counter.text(str(m.get("content") or ""), memo=True) for m in own)))
        bad = self.unparsable(model, purpose, messages)
        if bad or (who == FILLER and not model.is_scripted):
            label = "unparsable judge answer (repair rate)" if bad else "real-model-like filler"
            text = self.filler(model)
            tokens_in, tokens_out = self.prompt_tokens(model, messages), self.reply_length(model)
            self._record(model, purpose, key, tokens_in, tokens_out, label, item=item, history=history)
            return Completion(text, model.model, key, tokens_in, tokens_out, None, 0.0, 1, False)
        try:
            request = scripted.ScriptedRequest(who if isinstance(who, str) else "", list(messages), metadata)
            text = str(scripted.answer(request) if isinstance(who, str) else who(request))
        except Exception as exc:  # as the door: a scripted model's error is a failed call, never an answer
            failure = CallFailure(FailureKind.BAD_REQUEST, f"stand-in {label}: {exc}", model.model, key, 1)
            self._record(
                model,
                purpose,
                key,
                self.prompt_tokens(model, messages),
                0,
                label,
                failed=True,
                item=item,
                history=history,
            )
            return failure
        tokens_in, tokens_out = self.prompt_tokens(model, messages), counter.text(text)
        cap = model.decoding.max_tokens
        if cap is not None and not model.is_scripted:  # a real model stops at its max_tokens, whatever it would say
            tokens_out = min(tokens_out, cap)
        self._record(model, purpose, key, tokens_in, tokens_out, label, item=item, history=history)
        answer, trace = separate(text)  # as the door splits every reply
        return Completion(answer, model.model, key, tokens_in, tokens_out, None, 0.0, 1, False, reasoning=trace)

    async def complete_many(self, requests: Iterable[Request], on_reply: Any = None) -> list[Reply]:
        out = []
        for r in requests:
            reply = await self.complete(r.model, r.messages, purpose=r.purpose, metadata=r.metadata)
            if on_reply is not None:
                on_reply(reply)
            out.append(reply)
        return out

    def account_replay(self, *_args: Any, **_kwargs: Any) -> None:
        """Nothing is replayed: the estimator's simulations keep no journal."""

    def _record(
        self,
        model: ModelConfig,
        purpose: str,
        key: str,
        tokens_in: int,
        tokens_out: int,
        who: str,
        *,
        failed: bool = False,
        item: str = "",
        history: tuple[int, int] = (0, 0),
    ) -> None:
        base = model.api_base[0] if isinstance(model.api_base, list) else model.api_base
        self.sent.append(
            Sent(
                self.stage,
                purpose,
                model.name,
                model.model,
                key,
                tokens_in,
                tokens_out,
                model.decoding.max_tokens,
                who,
                failed,
                item,
                base or "",
                model.concurrency,
                *history,
            )
        )
