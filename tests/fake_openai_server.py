"""A small OpenAI-compatible HTTP server for tests and benchmarks, with fault injection.

It answers `/v1/chat/completions` and `/v1/models` on a loopback port, in its own thread and event loop.
Replies are scripted by a function of the request (default: an echo of the last user message). Faults are
queued with `inject(...)` and consumed by the next requests, one per request:

- `("429", retry_after_s)`: HTTP 429 with a `Retry-After` header
- `("500",)`: HTTP 500;  `("400",)`: HTTP 400;  `("401",)`: HTTP 401
- `("slow", seconds)`: answer only after `seconds` (to trigger client timeouts)
- `("malformed",)`: HTTP 200 with a body that is not JSON
- `("filtered",)`: HTTP 200 with no content and `finish_reason: content_filter`
- `("drop",)`: close the connection without answering

Persistent faults: `fault_for(body)` (None by default) is asked for every request that no queued fault takes,
and returns one of the faults above or None; e.g. a rule failing every request whose prompt holds a marker,
so those calls fail on every retry. Set it to None to make the server healthy again.

It records every request body and the maximum number of requests in flight at once.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

Reply = Callable[[dict[str, Any]], str]
FaultRule = Callable[[dict[str, Any]], tuple | None]


def echo_reply(body: dict[str, Any]) -> str:
    last = next((m["content"] for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
    return f"echo: {last}"


@dataclass
class FakeOpenAIServer:
    reply: Reply = echo_reply
    latency_s: float = 0.0
    models: tuple[str, ...] = ("test-model",)
    fault_for: FaultRule | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers_seen: list[dict[str, str]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    port: int = 0
    _faults: deque = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ------------------------------------------------------------------ control
    def inject(self, *faults: tuple) -> None:
        with self._lock:
            self._faults.extend(faults)

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
            self.max_in_flight = 0

    # ------------------------------------------------------------------ handlers
    async def _chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        body = json.loads(raw)
        with self._lock:
            self.requests.append(body)
            self.headers_seen.append(dict(request.headers))
            fault = self._faults.popleft() if self._faults else None
            if fault is None and self.fault_for is not None:
                fault = self.fault_for(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            if fault is not None:
                response = await self._fault(request, fault)
                if response is not None:
                    return response
            text = self.reply(body)
            payload = {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "test-model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 7, "completion_tokens": max(1, len(text)), "total_tokens": 7 + len(text)},
            }
            return web.json_response(payload)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _fault(self, request: web.Request, fault: tuple) -> web.StreamResponse | None:
        kind = fault[0]
        error = {"error": {"message": f"injected {kind}", "type": "test", "code": kind}}
        if kind == "429":
            return web.json_response(error, status=429, headers={"Retry-After": str(fault[1])})
        if kind in ("500", "400", "401", "503"):
            return web.json_response(error, status=int(kind))
        if kind == "slow":
            await asyncio.sleep(fault[1])
            return None
        if kind == "malformed":
            return web.Response(text="{not json", content_type="application/json")
        if kind == "filtered":
            choice = {"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "content_filter"}
            return web.json_response(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "m",
                    "choices": [choice],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1},
                }
            )
        if kind == "drop":
            request.transport.close()
            raise ConnectionResetError("dropped by test server")
        raise ValueError(f"unknown fault {fault!r}")

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]})

    # ------------------------------------------------------------------ lifecycle
    def start(self, port: int = 0) -> FakeOpenAIServer:
        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self._chat)
            app.router.add_get("/v1/models", self._models)
            self._runner = web.AppRunner(app, access_log=None)
            self._loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, "127.0.0.1", port, backlog=1024)
            self._loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]
            ready.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self._runner.cleanup())

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
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
    args = parser.parse_args()
    server = FakeOpenAIServer(latency_s=args.latency, models=(args.model,)).start(args.port)
    try:
        while True:
            time.sleep(3600)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
