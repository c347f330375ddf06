"""A small OpenAI-compatible HTTP server for tests and benchmarks, with fault injection.

It answers `/v1/chat/completions` and `/v1/models` on a loopback port, in its own thread and event loop, and
Google AI Studio's `/v1/models/<model>:generateContent` (what litellm's `gemini/` provider calls at a custom
`api_base`; recorded in `requests` as the OpenAI-shaped body it stands for, with `gemini: True`; no faults).
Replies are scripted by a function of the request (default: an echo of the last user message). Faults are
queued with `inject(...)` and consumed by the next requests, one per request (`None` in the queue lets
that request through untouched):

- `("429", retry_after_s)`: HTTP 429 with a `Retry-After` header
- `("500",)`, `("502",)`, `("503",)`: a server error;  `("400",)`: a bad request
- `("401",)`, `("403",)`: refused, with an error body that echoes the Authorization header it received
  (as a careless proxy does: the door must keep the key out of everything it writes)
- `("slow", seconds)`: answer only after `seconds` (to trigger client timeouts)
- `("malformed",)`: HTTP 200 whose body is not JSON; `("malformed_truncated",)`: JSON cut mid-way;
  `("malformed_html",)`: an HTML page; `("malformed_shape",)`: JSON that is not a completion (no choices)
- `("drop",)`: close the connection without answering
- `("filtered",)`: HTTP 200 with `content: null` and `finish_reason: content_filter`; `("filtered_text",)`: the
  same with a partial answer; `("filtered_empty",)`: with an empty string
- `("null_length",)`: `content: null` with `finish_reason: length` (max_tokens spent on reasoning)
- `("null_stop",)`: `content: null` with `finish_reason: stop`
- `("empty_stop",)`: an empty string with `finish_reason: stop` (the model's own empty answer)
- `("think_cut",)`: `finish_reason: length` inside an unclosed `<think>…` (cut off while reasoning);
  `("think_only",)`: a closed `<think>…</think>` and no answer, `length`; `("reasoning_only",)`: content `""` and
  the reasoning in the `reasoning_content` field, `length`
- `("think_stop",)`: a closed `<think>…</think>` and no answer, `finish_reason: stop`; `("reasoning_stop",)`: content
  `""` and the reasoning in the `reasoning_content` field, `stop` (a reply that is only a trace: an empty answer)
- `("cut",)`: the normal answer with `finish_reason: length` (an answer cut at max_tokens)
- `("trickle", seconds)`: the normal answer, its body sent a few bytes at a time over `seconds` (every read
  gets a byte in time: only a limit on the whole call stops it)
- `("bad_utf8",)`: HTTP 200 whose JSON body holds bytes that are not UTF-8

A reasoning model: `reasoning` (a function of the request, default None) gives every normal reply a
`reasoning_content` field beside its content (as vLLM's and DeepSeek's reasoning parsers do); a `<think>…</think>`
trace inside the content is `reply`'s to write.

Usage counts 7 prompt tokens and one completion token per character; given a tokenizer (`tokens`, text -> count),
it counts as OpenAI's chat API does (`chat_tokens`), so that usage rows hold real token counts.

Persistent faults: `fault_for(body)` (None by default) is asked for every request that no queued fault takes,
and returns one of the faults above or None; e.g. a rule failing every request whose prompt holds a marker,
so those calls fail on every retry. Set it to None to make the server healthy again.

`inject_random(rate, seed=...)` adds faults at random: each request that finds no queued fault gets one with
probability `rate`, drawn from a mix of the kinds above by a seeded generator. `faults_injected` counts
every fault served, by kind. It records every request body and header, and the maximum number of requests
in flight at once. A port that is taken makes `start` raise at once (and `python -m tests.fake_openai_server`
exit 1 with a one-line error). `owned_by` sets the field of that name in `/v1/models` (vLLM says `vllm`,
llama.cpp `llamacpp`); `props` makes it answer llama.cpp's `/props` with that body (e.g. `{"total_slots": 2,
"default_generation_settings": {"n_ctx": 8192}}`; None: 404, as vLLM); `max_model_len` adds vLLM's field of that
name to every card of `/v1/models`.

A small context: `context_size` N makes the server hold N tokens per request, as a llama.cpp slot
(`context_style="llama.cpp"`, the default: `/props` reports `n_ctx` N, and a request whose prompt holds N tokens or
more gets llama.cpp's HTTP 400 "the request exceeds the available context size, try increasing it") or a vLLM server
(`"vllm"`: `/v1/models` reports `max_model_len` N, `/props` is 404, and a request whose prompt plus `max_tokens` is
over N gets vLLM's 400 "This model's maximum context length is N tokens. However, you requested …"). Prompt tokens
are counted as `chat_tokens` does with `tokens` (default: one per character). Each refusal counts as the fault kind
`context` in `faults_injected`; a queued or ruled fault comes first.

A tokenizer endpoint: `tokenize_style` `"vllm"` or `"llama.cpp"` makes the server answer `POST /tokenize` and
`POST /detokenize` (beside `/v1`) in that server's shapes (vLLM: `{"model", "prompt"}` -> `{"count",
"max_model_len", "tokens"}` and `{"model", "tokens"}` -> `{"prompt"}`; llama.cpp: `{"content"}` -> `{"tokens"}` and
`{"tokens"}` -> `{"content"}`), with a byte-level tokenizer: each UTF-8 byte of the text is one token (a Chinese
character is 3), as a tokenizer without a Chinese vocabulary. None (the default): both are 404. Pair it with
`owned_by` (`vllm`, `llamacpp`) so that clients tell the kind. `tokenize_requests` records their bodies.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

Reply = Callable[[dict[str, Any]], str]
Tokens = Callable[[str], int]  # a tokenizer: text -> tokens
FaultRule = Callable[[dict[str, Any]], tuple | None]

# Each fault kind and how many arguments its tuple carries after the kind.
FAULT_ARGS: dict[str, int] = {
    "429": 1,
    "500": 0,
    "502": 0,
    "503": 0,
    "400": 0,
    "401": 0,
    "403": 0,
    "slow": 1,
    "malformed": 0,
    "malformed_truncated": 0,
    "malformed_html": 0,
    "malformed_shape": 0,
    "drop": 0,
    "filtered": 0,
    "filtered_text": 0,
    "filtered_empty": 0,
    "null_length": 0,
    "null_stop": 0,
    "empty_stop": 0,
    "think_cut": 0,
    "think_only": 0,
    "reasoning_only": 0,
    "think_stop": 0,
    "reasoning_stop": 0,
    "cut": 0,
    "trickle": 1,
    "bad_utf8": 0,
}

# The default mix of `inject_random`: every transient and every answer-shaped fault, no 400/401/403 (those
# end a call for good and would make a soak test measure configuration, not resilience).
RANDOM_MIX: tuple[tuple, ...] = (
    ("429", 0),
    ("500",),
    ("502",),
    ("503",),
    ("slow", 2.0),
    ("malformed",),
    ("malformed_truncated",),
    ("drop",),
    ("filtered",),
    ("filtered_text",),
    ("null_length",),
    ("think_cut",),
    ("null_stop",),
    ("bad_utf8",),
)

_MALFORMED_BODIES = {
    "malformed": ("{not json", "application/json"),
    "malformed_truncated": (
        '{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "mess',
        "application/json",
    ),
    "malformed_html": ("<html><body>502 Bad Gateway</body></html>", "text/html"),
    "malformed_shape": ('{"id": "x", "object": "chat.completion", "created": 0, "model": "m"}', "application/json"),
}

_NULLISH = {  # fault kind -> (content, finish_reason) of a 200 reply
    "filtered": (None, "content_filter"),
    "filtered_text": ("根据您的描述，这起案件", "content_filter"),
    "filtered_empty": ("", "content_filter"),
    "null_length": (None, "length"),
    "null_stop": (None, "stop"),
    "empty_stop": ("", "stop"),
    "think_cut": ("<think>用户问的是合同纠纷，先看诉讼时效，再看", "length"),
    "think_only": ("<think>用户问的是合同纠纷，先看诉讼时效。</think>", "length"),
    "reasoning_only": ("", "length"),
    "think_stop": ("<think>用户问的是合同纠纷，先看诉讼时效。</think>", "stop"),
    "reasoning_stop": ("", "stop"),
}
REASONING = "用户问的是合同纠纷，先看诉讼时效，再看"  # the `reasoning_content` of `reasoning_only`
TRICKLE_CHUNK = 16  # bytes per write of a trickled body
# a completion whose answer holds an invalid UTF-8 sequence (a lone continuation byte, then a truncated lead)
BAD_UTF8 = b'{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, ' + (
    b'"message": {"role": "assistant", "content": "\xe4\xb8\x80 \x80\xe4"}, "finish_reason": "stop"}]}'
)


def echo_reply(body: dict[str, Any]) -> str:
    last = next((m["content"] for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
    return f"echo: {last}"


def _check_fault(fault: tuple | None) -> None:
    if fault is None:  # a queued "no fault"
        return
    if not isinstance(fault, tuple) or not fault or fault[0] not in FAULT_ARGS:
        raise ValueError(f"unknown fault {fault!r}; known kinds: {', '.join(FAULT_ARGS)}")
    if len(fault) != 1 + FAULT_ARGS[fault[0]]:
        raise ValueError(f"fault {fault!r} takes {FAULT_ARGS[fault[0]]} argument(s) after its kind")


def chat_tokens(messages: list[dict[str, Any]], tokens: Tokens) -> int:
    """A chat request's prompt tokens as OpenAI counts them: 3 per message plus its role's and content's tokens, and
    3 that prime the reply."""
    return 3 + sum(3 + tokens(m.get("role", "")) + tokens(m.get("content") or "") for m in messages)


def _completion(
    body: dict[str, Any], number: int, content: str | None, finish_reason: str, tokens: Tokens | None = None
) -> dict[str, Any]:
    prompt_tokens = 7 if tokens is None else chat_tokens(body["messages"], tokens)
    completion_tokens = (max(1, len(content)) if tokens is None else tokens(content)) if content else 0
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "test-model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


@dataclass
class FakeOpenAIServer:
    reply: Reply = echo_reply
    reasoning: Reply | None = None  # the `reasoning_content` of every normal reply (None: no such field)
    latency_s: float = 0.0
    models: tuple[str, ...] = ("test-model",)
    owned_by: str | None = None
    props: dict[str, Any] | None = None
    max_model_len: int | None = None
    fault_for: FaultRule | None = None
    tokens: Tokens | None = None  # a tokenizer for usage (default: 7 per prompt, one per answer character)
    context_size: int | None = None  # tokens a request may hold (see the module's docstring); None: any
    context_style: Literal["llama.cpp", "vllm"] = "llama.cpp"
    tokenize_style: Literal["llama.cpp", "vllm"] | None = None  # answer /tokenize and /detokenize (module docstring)
    tokenize_requests: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers_seen: list[dict[str, str]] = field(default_factory=list)
    faults_injected: Counter = field(default_factory=Counter)  # fault kind -> how many requests got it
    in_flight: int = 0
    max_in_flight: int = 0
    port: int = 0
    _faults: deque = field(default_factory=deque)
    _random_rate: float = 0.0
    _random_mix: tuple[tuple, ...] = ()
    _rng: random.Random = field(default_factory=random.Random)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ------------------------------------------------------------------ control
    def inject(self, *faults: tuple | None) -> None:
        """Queue faults for the next requests, one per request, in order (None: no fault for that one)."""
        for fault in faults:
            _check_fault(fault)
        with self._lock:
            self._faults.extend(faults)

    def inject_random(self, rate: float, *, seed: int = 0, mix: Sequence[tuple] = RANDOM_MIX) -> None:
        """From now on, give each request without a queued fault a fault with probability `rate`, drawn
        uniformly from `mix` by a generator seeded with `seed` (`rate=0` turns random faults off)."""
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"fault rate must be within [0, 1], got {rate}")
        for fault in mix:
            _check_fault(fault)
        if rate > 0 and not mix:
            raise ValueError("a random fault rate needs at least one fault kind in the mix")
        with self._lock:
            self._random_rate, self._random_mix, self._rng = rate, tuple(mix), random.Random(seed)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def count(self) -> int:
        return len(self.requests)

    def reset_stats(self) -> None:
        with self._lock:
            self.requests.clear()
            self.headers_seen.clear()
            self.faults_injected.clear()
            self.max_in_flight = 0

    def _next_fault(self, body: dict[str, Any]) -> tuple | None:
        """The fault for the request being handled (called under the lock): queued, else the persistent rule's,
        else a random one."""
        if self._faults:
            return self._faults.popleft()  # may be None: a queued pass
        if self.fault_for is not None and (fault := self.fault_for(body)) is not None:
            return fault
        if self._random_rate and self._rng.random() < self._random_rate:
            return self._rng.choice(self._random_mix)
        return None

    # ------------------------------------------------------------------ handlers
    async def _chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        body = json.loads(raw)
        with self._lock:
            self.requests.append(body)
            self.headers_seen.append(dict(request.headers))
            number = len(self.requests)
            fault = self._next_fault(body)
            if fault is not None:
                self.faults_injected[fault[0]] += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            if fault is not None:
                response = await self._fault(request, body, number, fault)
                if response is not None:
                    return response
            if (refusal := self._over_context(body)) is not None:
                with self._lock:
                    self.faults_injected["context"] += 1
                return refusal
            completion = _completion(body, number, self.reply(body), "stop", self.tokens)
            if self.reasoning is not None:
                completion["choices"][0]["message"]["reasoning_content"] = self.reasoning(body)
            return web.json_response(completion)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _gemini(self, request: web.Request) -> web.Response:
        """Google AI Studio's `POST <base>/models/<model>:generateContent`, as litellm's `gemini/` provider calls a
        custom `api_base`: recorded as the OpenAI-shaped body it stands for (`model`, `messages`, `temperature`,
        `top_p`, `max_tokens`, and `gemini: True`), answered by `reply` in Gemini's shape."""
        model, _, method = request.match_info["call"].partition(":")
        if method != "generateContent":
            return web.json_response({"error": {"code": 404, "message": f"no method {method}"}}, status=404)
        native = json.loads(await request.read())
        config = native.get("generationConfig") or {}
        system = native.get("system_instruction") or native.get("systemInstruction") or {}
        messages = [{"role": "system", "content": "".join(p.get("text", "") for p in system.get("parts", []))}]
        messages = messages if messages[0]["content"] else []
        for content in native.get("contents", []):
            role = "assistant" if content.get("role") == "model" else "user"
            messages.append({"role": role, "content": "".join(p.get("text", "") for p in content.get("parts", []))})
        body = {
            "model": model,
            "messages": messages,
            "temperature": config.get("temperature"),
            "top_p": config.get("top_p", config.get("topP")),  # litellm writes snake_case, Google's docs camelCase
            "max_tokens": config.get("max_output_tokens", config.get("maxOutputTokens")),
            "gemini": True,
        }
        with self._lock:
            self.requests.append(body)
            self.headers_seen.append(dict(request.headers))
        text = self.reply(body)
        usage = {"promptTokenCount": 7, "candidatesTokenCount": max(1, len(text)), "totalTokenCount": 7 + len(text)}
        return web.json_response(
            {
                "candidates": [
                    {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}
                ],
                "usageMetadata": usage,
                "modelVersion": model,
            }
        )

    async def _fault(
        self, request: web.Request, body: dict[str, Any], number: int, fault: tuple
    ) -> web.StreamResponse | None:
        kind = fault[0]
        error = {"error": {"message": f"injected {kind}", "type": "test", "code": kind}}
        if kind == "429":
            return web.json_response(error, status=429, headers={"Retry-After": str(fault[1])})
        if kind in ("401", "403"):
            received = request.headers.get("Authorization", "<none>")
            error["error"]["message"] = f"injected {kind}: the credentials '{received}' are not valid here"
            return web.json_response(error, status=int(kind))
        if kind in ("500", "502", "503", "400"):
            return web.json_response(error, status=int(kind))
        if kind == "slow":
            await asyncio.sleep(fault[1])
            return None
        if kind in _MALFORMED_BODIES:
            text, content_type = _MALFORMED_BODIES[kind]
            return web.Response(text=text, content_type=content_type)
        if kind in _NULLISH:
            content, finish_reason = _NULLISH[kind]
            completion = _completion(body, number, content, finish_reason, self.tokens)
            if kind in ("reasoning_only", "reasoning_stop"):
                completion["choices"][0]["message"]["reasoning_content"] = REASONING
            return web.json_response(completion)
        if kind == "cut":
            return web.json_response(_completion(body, number, self.reply(body), "length", self.tokens))
        if kind == "trickle":
            return await self._trickle(
                request, _completion(body, number, self.reply(body), "stop", self.tokens), fault[1]
            )
        if kind == "bad_utf8":
            return web.Response(body=BAD_UTF8, content_type="application/json")
        if kind == "drop":
            if request.transport is not None:  # None once the client has gone
                request.transport.close()  # the client sees the connection close before any byte of a reply
            return web.Response(status=200)  # written to a closed transport: nothing is sent, nothing logged
        raise ValueError(f"unknown fault {fault!r}")

    def _over_context(self, body: dict[str, Any]) -> web.Response | None:
        """The 400 a llama.cpp or vLLM server with `context_size` tokens gives a request too long for it, else None."""
        if self.context_size is None:
            return None
        prompt = chat_tokens(body.get("messages", []), self.tokens or len)
        if self.context_style == "llama.cpp":
            if prompt < self.context_size:
                return None
            error = {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": prompt,
                "n_ctx": self.context_size,
            }
            return web.json_response({"error": error}, status=400)
        completion = int(body.get("max_tokens") or body.get("max_completion_tokens") or 0)
        if prompt + completion <= self.context_size:
            return None
        message = (
            f"This model's maximum context length is {self.context_size} tokens. However, you requested "
            f"{prompt + completion} tokens ({prompt} in the messages, {completion} in the completion). Please reduce "
            "the length of the messages or completion."
        )
        error = {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400}
        return web.json_response(error, status=400)

    @staticmethod
    async def _trickle(request: web.Request, completion: dict[str, Any], seconds: float) -> web.StreamResponse:
        """Send `completion` TRICKLE_CHUNK bytes at a time, spread over `seconds`."""
        data = json.dumps(completion, ensure_ascii=False).encode("utf-8")
        chunks = [data[i : i + TRICKLE_CHUNK] for i in range(0, len(data), TRICKLE_CHUNK)]
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.content_length = len(data)
        await response.prepare(request)
        try:
            for chunk in chunks:
                await asyncio.sleep(seconds / len(chunks))
                await response.write(chunk)
            await response.write_eof()
        except ConnectionResetError:  # the client stopped waiting (its timeout): nothing more to send
            pass
        return response

    async def _models(self, request: web.Request) -> web.Response:
        extra: dict[str, Any] = {"owned_by": self.owned_by} if self.owned_by else {}
        if self.max_model_len is not None:
            extra["max_model_len"] = self.max_model_len
        if self.context_size is not None and self.context_style == "vllm":
            extra["max_model_len"] = self.context_size
        cards = [{"id": m, "object": "model", **extra} for m in self.models]
        return web.json_response({"object": "list", "data": cards})

    async def _props(self, request: web.Request) -> web.Response:
        if self.context_size is not None and self.context_style == "llama.cpp":
            props = {"total_slots": 1, **(self.props or {})}
            settings = {**props.get("default_generation_settings", {}), "n_ctx": self.context_size}
            return web.json_response({**props, "default_generation_settings": settings})
        if self.props is None:
            return web.json_response({"error": "not found"}, status=404)
        return web.json_response(self.props)

    async def _tokenize(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.tokenize_requests.append({"path": "/tokenize", **body})
        if self.tokenize_style is None:
            return web.json_response({"error": "not found"}, status=404)
        text = body.get("prompt" if self.tokenize_style == "vllm" else "content")
        if not isinstance(text, str):
            return web.json_response({"error": "no text to tokenize"}, status=400)
        tokens = list(text.encode("utf-8"))
        if self.tokenize_style == "vllm":
            length = self.context_size or 4096
            return web.json_response({"count": len(tokens), "max_model_len": length, "tokens": tokens})
        return web.json_response({"tokens": tokens})

    async def _detokenize(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.tokenize_requests.append({"path": "/detokenize", **body})
        if self.tokenize_style is None:
            return web.json_response({"error": "not found"}, status=404)
        text = bytes(body.get("tokens", [])).decode("utf-8", errors="replace")
        return web.json_response({"prompt": text} if self.tokenize_style == "vllm" else {"content": text})

    # ------------------------------------------------------------------ lifecycle
    def start(self, port: int = 0) -> FakeOpenAIServer:
        """Serve on `port` (0: a free one). Raises OSError if the port cannot be bound, never waits on it."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self._chat)
            app.router.add_get("/v1/models", self._models)
            app.router.add_post("/v1/models/{call}", self._gemini)  # litellm's gemini/ provider, api_base <url>
            app.router.add_get("/props", self._props)
            app.router.add_post("/tokenize", self._tokenize)
            app.router.add_post("/detokenize", self._detokenize)
            self._runner = web.AppRunner(app, access_log=None)
            try:
                self._loop.run_until_complete(self._runner.setup())
                site = web.TCPSite(self._runner, "127.0.0.1", port, backlog=1024)
                self._loop.run_until_complete(site.start())
                self.port = self._runner.addresses[0][1]  # (host, port) of the one site
            except BaseException as exc:  # reported to the starting thread, which raises it
                failure.append(exc)
                self._loop.run_until_complete(self._runner.cleanup())
                self._loop.close()
                return
            finally:
                ready.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self._runner.cleanup())

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError(f"fake OpenAI server did not start on 127.0.0.1:{port} within 10 s")
        if failure:
            self._thread.join(10)
            raise OSError(f"fake OpenAI server cannot listen on 127.0.0.1:{port}: {failure[0]}") from failure[0]
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:  # pragma: no cover - used by the fake `vllm` executable in tests
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--model", default="test-model")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--owned-by", default="vllm")
    parser.add_argument("--context-size", type=int, default=None, help="tokens a request may hold (one a character)")
    parser.add_argument("--context-style", choices=["llama.cpp", "vllm"], default="llama.cpp")
    args = parser.parse_args()
    try:
        server = FakeOpenAIServer(
            latency_s=args.latency,
            models=(args.model,),
            owned_by=args.owned_by,
            context_size=args.context_size,
            context_style=args.context_style,
        ).start(args.port)
    except (OSError, RuntimeError) as err:
        print(f"error: {err}", file=sys.stderr)
        raise SystemExit(1) from None
    try:
        while True:
            time.sleep(3600)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
