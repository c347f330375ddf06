"""The model door: every model call in jurisflow goes through `ModelDoor.complete`.

One async API over litellm with a content-keyed response cache (SQLite, and below it the read-only shards other
clones pushed: steps/llm/shards.py), bounded concurrency per endpoint, retries with exponential backoff and jitter
(respecting Retry-After), typed failures that never raise out of a batch, and one accounting record per call.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import litellm

from steps.llm import scripted, scripted_provider
from steps.llm.cache import CachedResponse, CacheError, ResponseCache, call_key
from steps.llm.capabilities import StructuredCheck, asks_structured, load_record
from steps.llm.config import LLMSettings, ModelConfig
from steps.llm.errors import (
    CallTimedOut,
    Classified,
    address,
    classify,
    classify_reply,
    is_truncated,
    unreachable,
    with_endpoint,
)
from steps.llm.ledger import SpendLedger
from steps.llm.pricing import pricing_for
from steps.llm.reasoning import separate, with_reasoning
from steps.llm.results import CallFailure, Completion, FailureKind, Reply, Request, UsageRecord, public_metadata
from steps.llm.secrets import RedactingFilter, api_key_for, redact

if TYPE_CHECKING:
    from steps.llm.shards import ShardLayer

litellm.suppress_debug_info = True
litellm.telemetry = False
litellm.turn_off_message_logging = True  # prompts and answers are never handed to litellm's loggers
# litellm warns once per model given explicit zero prices ("custom pricing"); cost stays None for those.
logging.getLogger("LiteLLM").setLevel(logging.ERROR)
for _logger in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):  # what litellm logs never holds a key we sent
    if not any(isinstance(f, RedactingFilter) for f in logging.getLogger(_logger).filters):
        logging.getLogger(_logger).addFilter(RedactingFilter())


@cache
def _load_sdk() -> None:
    """Import what the OpenAI SDK imports on its first request (its resource modules: ~1.5 s of CPU), so that the
    first call's timeout measures the server, not the import."""
    import openai.resources  # noqa: F401


class ModelDoor:
    """The only way to reach a model. Create one per flow run; close it at the end."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        run_id: str = "",
        cache_dir: Path | None = None,
        shards: ShardLayer | None = None,
    ):
        self.settings = settings
        self.run_id = run_id
        self.cache_dir = Path(cache_dir or settings.cache_dir)  # the response cache, and the usage log beside it
        self.cache = ResponseCache(self.cache_dir) if settings.cache else None
        self.shards = shards if settings.cache else None  # read when the SQLite cache misses
        self.usage: list[UsageRecord] = []
        self.observers: list[Callable[[UsageRecord], None]] = []  # told of each accounting row (progress displays)
        # told of each call's metadata when it starts: answered from the cache, or holding its slot to be sent (a
        # call waiting for a slot has not started; the Prefect UI shows its group queued until one has)
        self.starters: list[Callable[[dict[str, Any]], None]] = []
        self.answers: dict[str, tuple[str, CachedResponse]] = {}  # every answer this door gave: the stage's shard
        self.spent_usd = 0.0  # what this door's new calls cost (litellm's prices; hits and failures cost nothing)
        # with a cap and a run session (JURISFLOW_RUN_SESSION), the cap is over every stage of the run: their spend
        # is shared in a ledger beside the cache (steps/llm/ledger.py); without a session, over this door's calls
        self.ledger = SpendLedger.of_session(self.cache_dir) if settings.budget_usd is not None else None
        # Semaphores and shared futures belong to one event loop; a door used from several `asyncio.run`
        # calls gets fresh ones for each loop (see _for_this_loop).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._bounds: dict[str, asyncio.Semaphore] = {}
        self._inflight: dict[str, asyncio.Future] = {}
        self._sending = 0  # requests out whose answers are not yet stored (see _settle)
        self._routers: dict[tuple[str, str | None], Any] = {}
        self._structured: dict[str, StructuredCheck] | None = None  # what `models check` measured (read once)
        scripted_provider.install()

    # ------------------------------------------------------------------ public API
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
        """Return the completion of `messages` by `model`, or a typed failure. Never raises for call errors.

        `response_format` (OpenAI's, of type `json_schema`) asks for output constrained to a schema; it is sent only
        when the model's `structured_output` setting says so (`structured_wanted`), and then enters the cache key.

        `fresh=True` skips the cache lookup (the answer is still stored), e.g. to probe an endpoint. A model
        whose `api_key_env` variable is unset raises MissingApiKeyError (a configuration error) before any
        request is sent; a cached answer needs no key. A response cache that fails raises CacheError once the
        requests already sent are back and stored (`_settle`), and no new request is sent from then on.
        """
        sent_format = response_format if response_format is not None and self.structured_wanted(model) else None
        try:
            return await self._complete(
                model, messages, purpose=purpose, metadata=metadata, fresh=fresh, response_format=sent_format
            )
        except CacheError:
            await self._settle()
            raise

    def structured_wanted(self, model: ModelConfig) -> bool:
        """Whether a `response_format` for `model` is sent: its setting, `auto` by what `models check` recorded
        beside this door's cache (steps/llm/capabilities.py)."""
        if self._structured is None:
            self._structured = load_record(self.cache_dir)
        return asks_structured(model, self._structured)

    async def _complete(
        self,
        model: ModelConfig,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        metadata: dict | None,
        fresh: bool,
        response_format: dict[str, Any] | None = None,
    ) -> Reply:
        self._for_this_loop()
        metadata = dict(metadata or {})
        key_extra = metadata
        if model.is_scripted:  # a scripted answer is a function of the messages, the metadata and the policy code
            policy = scripted.fingerprint_of(model.model, metadata)
            key_extra = {**metadata, "_policy": policy}
        key = call_key(model, messages, key_extra, response_format)
        cached = self._cached(key) if not fresh else None
        if cached is not None:
            self._started(metadata)
            reply: Reply = self._completion(model, key, cached, attempts=0, cache_hit=True)
        elif key in self._inflight:  # the same call is already on its way: share its result
            reply = await asyncio.shield(self._inflight[key])
            reply = reply if isinstance(reply, CallFailure) else _as_hit(reply)
        else:
            api_key = api_key_for(model)  # raises before any request if the model's key variable is unset
            future: asyncio.Future = asyncio.get_running_loop().create_future()
            self._inflight[key] = future
            try:
                reply = await self._call_with_retries(model, messages, key, metadata, api_key, response_format)
                future.set_result(reply)
            except CacheError as err:  # the same call's waiters get it too
                future.set_exception(err)
                future.exception()  # retrieved: no "never retrieved" warning when nobody waits
                raise
            finally:
                self._inflight.pop(key, None)
                if not future.done():
                    future.cancel()
        self._account(reply, model, purpose, metadata)
        return reply

    async def complete_many(
        self, requests: Iterable[Request], on_reply: Callable[[Reply], None] | None = None
    ) -> list[Reply]:
        """Run many calls concurrently (bounded per endpoint); results come back in request order.

        `on_reply` is called as each reply arrives (e.g. to advance a progress bar).
        """

        async def one(r: Request) -> Reply:
            reply = await self.complete(r.model, r.messages, purpose=r.purpose, metadata=r.metadata)
            if on_reply is not None:
                on_reply(reply)
            return reply

        return list(await asyncio.gather(*(one(r) for r in requests)))

    def usage_records(self) -> list[dict[str, Any]]:
        return [asdict(u) for u in self.usage]

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
        if self.ledger is not None:
            self.ledger.close()

    # ------------------------------------------------------------------ internals
    def _cached(self, key: str) -> CachedResponse | None:
        """The SQLite cache's answer, else a shard's (then stored in SQLite too), else None."""
        if self.cache is None:
            return None
        cached = self.cache.get(key)
        if cached is None and self.shards is not None and (found := self.shards.get(key)) is not None:
            model, cached = found
            self.cache.put(key, model, cached)
        return cached

    def _for_this_loop(self) -> None:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop, self._bounds, self._inflight, self._sending = loop, {}, {}, 0

    def _bound(self, model: ModelConfig) -> asyncio.Semaphore:
        endpoint = model.endpoint()
        if endpoint not in self._bounds:
            limit = model.concurrency or self.settings.concurrency
            self._bounds[endpoint] = asyncio.Semaphore(limit * max(1, len(model.replicas)))
        return self._bounds[endpoint]

    async def _call_with_retries(
        self,
        model: ModelConfig,
        messages: list[dict[str, Any]],
        key: str,
        metadata: dict[str, Any],
        api_key: str | None,
        response_format: dict[str, Any] | None = None,
    ) -> Reply:
        deadline = time.monotonic() + self.settings.retry_budget_s
        attempt = 0
        while True:
            attempt += 1
            started = time.perf_counter()
            c: Classified | None
            sent = False
            try:
                async with self._bound(model):
                    if attempt == 1:
                        self._started(metadata)
                    if self.over_budget():  # checked when the call would go out: nothing is sent past the cap
                        return CallFailure(FailureKind.BUDGET, self._budget_message(), model.model, key, attempt - 1)
                    if self.cache is not None and self.cache.failed is not None:  # its answer could not be kept
                        raise CacheError(str(self.cache.failed))
                    sent, self._sending = True, self._sending + 1
                    response = await self._attempt(model, messages, metadata, api_key, response_format)
            except CacheError:
                raise
            except Exception as exc:  # every failure is classified; none escapes
                c = classify(exc)
                if unreachable(exc) and model.api_base:  # name the address that refused (never a key)
                    c = with_endpoint(c, _addresses(model))
                if model.is_scripted and c.kind is not FailureKind.TIMEOUT:
                    # a scripted policy is deterministic: its errors are not transient, but a busy machine's delay is
                    return CallFailure(FailureKind.BAD_REQUEST, c.message, model.model, key, attempt)
            else:
                c = classify_reply(response)  # a 200 without content is a failure, never an (empty) answer
                if c is None:
                    return self._store(model, key, response, time.perf_counter() - started, attempt)
                if model.is_scripted:
                    return CallFailure(c.kind, c.message, model.model, key, attempt)
            finally:
                if sent:  # counted until its answer is stored (the return above runs _store first)
                    self._sending -= 1
            if not c.retryable or attempt >= self.settings.max_attempts:
                return CallFailure(c.kind, c.message, model.model, key, attempt)
            delay = self._backoff(attempt, c.retry_after_s)
            if time.monotonic() + delay > deadline:
                return CallFailure(
                    c.kind, f"retry budget exhausted; last error: {c.message}", model.model, key, attempt
                )
            await asyncio.sleep(delay)

    async def _settle(self) -> None:
        """Wait until every request already sent has come back and its answer is stored (the cache's reserve holds
        them when the disk is full): a cache error ends the run without losing an answer that was paid for."""
        while self._sending:
            await asyncio.sleep(0.05)

    def over_budget(self) -> bool:
        """True once `llm.budget_usd` is set and spent: by the run's stages together (a run session), else by this
        door's new calls."""
        budget = self.settings.budget_usd
        return budget is not None and self.spent() >= budget

    def spent(self) -> float:
        """What counts toward the cap: the run session's spend (every stage of the run), else this door's."""
        return self.ledger.spent() if self.ledger is not None else self.spent_usd

    def _budget_message(self) -> str:
        scope = f"by this run's stages (session {self.ledger.session[:12]})" if self.ledger else "by this stage"
        return (
            f"llm.budget_usd {self.settings.budget_usd:g} reached (spent ${self.spent():.6f} {scope}); not sent. "
            f"Finished calls are cached: rerun with a higher llm.budget_usd to go on"
        )

    def _backoff(self, attempt: int, retry_after_s: float | None) -> float:
        exponential = min(self.settings.backoff_max_s, self.settings.backoff_base_s * 2 ** (attempt - 1))
        jittered = exponential * (0.5 + random.random() / 2)
        return max(retry_after_s, jittered) if retry_after_s is not None else jittered

    def _timeout_s(self, model: ModelConfig) -> float:
        return model.timeout_s or self.settings.timeout_s

    async def _attempt(
        self,
        model: ModelConfig,
        messages: list[dict[str, Any]],
        metadata: dict[str, Any],
        api_key: str | None,
        response_format: dict[str, Any] | None = None,
    ):
        """One request, bounded as a whole by the timeout. The timeout handed to litellm bounds each phase (connect,
        each read), so a server that sends a byte now and then would hold a call for ever without this bound."""
        limit = self._timeout_s(model)
        if not model.is_scripted:
            _load_sdk()
        bound = asyncio.timeout(limit)
        try:
            async with bound:
                return await self._litellm_call(model, messages, metadata, api_key, response_format)
        except TimeoutError:
            if not bound.expired():  # a timeout from below (the transport's): classified as it is
                raise
            raise CallTimedOut(f"no whole reply within timeout_s {limit:g} (connecting, waiting and reading)") from None

    async def _litellm_call(
        self,
        model: ModelConfig,
        messages: list[dict[str, Any]],
        metadata: dict[str, Any],
        api_key: str | None,
        response_format: dict[str, Any] | None = None,
    ):
        kwargs: dict[str, Any] = {
            **model.decoding.as_kwargs(),
            "timeout": self._timeout_s(model),
            "max_retries": 0,  # the door retries; the OpenAI SDK underneath must not
            "no-log": True,  # no litellm logging callbacks: the door keeps its own accounting
        }
        if not model.is_scripted:  # explicit prices spare litellm a slow price-map search on every call
            pricing = pricing_for(model.model)
            kwargs["input_cost_per_token"] = pricing.input_per_token if pricing else 0.0
            kwargs["output_cost_per_token"] = pricing.output_per_token if pricing else 0.0
        if model.is_scripted:
            # only scripted models see call metadata; a copy, since litellm's logging threads add to the dict it
            # is given while the door goes on reading its own (a "dictionary changed size during iteration")
            kwargs["metadata"] = dict(metadata)
        if response_format is not None:  # litellm hands it on as is to OpenAI-compatible servers
            kwargs["response_format"] = response_format
        if model.replicas:  # the key goes into the deployments: passed per call, it would bypass the balancing
            return await self._router(model, api_key).acompletion(model=model.name, messages=messages, **kwargs)
        if api_key is not None:  # see secrets.api_key_for: only the model's own key, or a dummy for api_base
            kwargs["api_key"] = api_key
        if model.api_base:
            kwargs["api_base"] = model.api_base
        return await litellm.acompletion(model=model.model, messages=messages, **kwargs)

    def _router(self, model: ModelConfig, api_key: str | None):
        route = (model.name, api_key)
        if route not in self._routers:
            key = {} if api_key is None else {"api_key": api_key}
            deployments = [
                {"model_name": model.name, "litellm_params": {"model": model.model, "api_base": base, **key}}
                for base in model.replicas
            ]
            self._routers[route] = litellm.Router(model_list=deployments, num_retries=0, routing_strategy="least-busy")
        return self._routers[route]

    def _store(self, model: ModelConfig, key: str, response: Any, latency: float, attempts: int) -> Reply:
        # not None: classify_reply checked it. A server that echoes the key into its answer must not get it
        # into the cache, or from there into a transcript (scripted models never see a key: ~40 us saved).
        # the reasoning the API returned beside the answer (litellm's `reasoning_content`, which also holds a leading
        # <think> block litellm took out of the text) goes into the stored text as a <think> block: `_completion`
        # splits it off again, so every caller gets the answer and keeps the trace
        message = response.choices[0].message
        text = with_reasoning(message.content, _field(message, "reasoning_content"))
        text = text if model.is_scripted else redact(text)
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        pricing = None if model.is_scripted else pricing_for(model.model)
        cached = CachedResponse(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=0.0 if model.is_scripted else pricing.cost(prompt_tokens, completion_tokens) if pricing else None,
            latency_s=round(latency, 6),
            truncated=is_truncated(response),  # an answer cut at max_tokens: kept, scored and counted as such
        )
        if self.cache is not None:
            self.cache.put(key, model.model, cached)
        self.spent_usd += cached.cost_usd or 0.0
        if self.ledger is not None and cached.cost_usd:
            self.ledger.add(self.run_id, cached.cost_usd)
        return self._completion(model, key, cached, attempts=attempts, cache_hit=False)

    @staticmethod
    def _completion(model: ModelConfig, key: str, c: CachedResponse, *, attempts: int, cache_hit: bool) -> Completion:
        """The reply as callers see it: the stored text split into its answer and its reasoning trace (the one
        place every reply passes: steps.llm.reasoning.separate)."""
        answer, reasoning = separate(c.text)
        return Completion(
            answer,
            model.model,
            key,
            c.prompt_tokens,
            c.completion_tokens,
            c.cost_usd,
            c.latency_s,
            attempts,
            cache_hit,
            c.truncated,
            reasoning,
        )

    def account_replay(
        self, reply: Completion, *, model_name: str, model: str, purpose: str, metadata: dict[str, Any]
    ) -> None:
        """The accounting row of a call answered without the door (a simulation journal replaying an interrupted
        run): the row the door wrote when the call was made, as a hit (no request, no latency)."""
        self._keep(reply)
        self._record(
            UsageRecord(
                self.run_id,
                purpose,
                model_name,
                model,
                reply.call_key,
                reply.prompt_tokens,
                reply.completion_tokens,
                reply.cost_usd,
                0.0,
                0,
                True,
                None,
                None,
                public_metadata(metadata),
                reply.truncated,
            )
        )

    def _account(self, reply: Reply, model: ModelConfig, purpose: str, metadata: dict[str, Any]) -> None:
        usage = partial(
            UsageRecord,
            run_id=self.run_id,
            purpose=purpose,
            model_name=model.name,
            model=model.model,
            call_key=reply.call_key,
            attempts=reply.attempts,
            metadata=public_metadata(metadata),
        )
        if isinstance(reply, Completion):
            hit = reply.cache_hit
            self._keep(reply)
            record = usage(
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                cost_usd=reply.cost_usd,  # the answer's price, hit or not: what it costs without the cache
                latency_s=0.0 if hit else reply.latency_s,
                cache_hit=hit,
                failure_kind=None,
                failure_message=None,
                truncated=reply.truncated,
            )
        else:
            record = usage(
                prompt_tokens=0,
                completion_tokens=0,
                cost_usd=None,
                latency_s=0.0,
                cache_hit=False,
                failure_kind=reply.kind.value,
                failure_message=redact(reply.message),
            )
        self._record(record)

    def _started(self, metadata: dict[str, Any]) -> None:
        for start in self.starters:
            start(metadata)

    def _record(self, record: UsageRecord) -> None:
        self.usage.append(record)
        for observe in self.observers:
            observe(record)

    def _keep(self, reply: Completion) -> None:
        """Remember an answer for the stage's shard (what a fresh run would store: no latency)."""
        self.answers[reply.call_key] = (
            reply.model,
            CachedResponse(
                with_reasoning(reply.text, reply.reasoning),
                reply.prompt_tokens,
                reply.completion_tokens,
                reply.cost_usd,
                0.0,
                reply.truncated,
            ),
        )


def _as_hit(reply: Completion) -> Completion:
    return Completion(
        reply.text,
        reply.model,
        reply.call_key,
        reply.prompt_tokens,
        reply.completion_tokens,
        reply.cost_usd,
        reply.latency_s,
        0,
        True,
        reply.truncated,
        reply.reasoning,
    )


def _field(message: Any, name: str) -> str | None:
    """A text field of a reply's message, or None (absent, not text)."""
    value = getattr(message, name, None)
    return value if isinstance(value, str) else None


def _addresses(model: ModelConfig) -> str:
    """The server address(es) of `model`, without credentials."""
    bases = model.api_base if isinstance(model.api_base, list) else [model.api_base or ""]
    return ", ".join(address(base) for base in bases)
