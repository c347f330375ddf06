"""Serving local models with vLLM, or pointing at an OpenAI-compatible server that already runs.

`vllm serve` (the optional `[vllm]` extra) is started as a child process; we wait until its
`/v1/models` answers, then tell the user the litellm model string and `api_base` to put in params.yaml.
For a server that already runs, `inspect_server` tells its kind from its answers (vLLM's `/v1/models` says
`owned_by: vllm`, llama.cpp's says `llamacpp` and it also answers `/props`): litellm's `hosted_vllm/` provider
is only for vLLM, `openai/` for llama.cpp and any other OpenAI-compatible server. `server_limits` reads the
context size and the parallel slots a server reports (llama.cpp's `/props`, vLLM's `max_model_len`), for
`jurisflow eval` to size its concurrency.
"""

from __future__ import annotations

import socket
import subprocess
import time
from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class ServeOptions:
    model: str
    host: str = "127.0.0.1"
    port: int = 8000
    tensor_parallel: int = 1
    max_model_len: int | None = None
    served_name: str | None = None
    extra_args: tuple[str, ...] = ()
    executable: str = "vllm"

    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def name(self) -> str:
        return self.served_name or self.model


def serve_command(o: ServeOptions) -> list[str]:
    cmd = [
        o.executable,
        "serve",
        o.model,
        "--host",
        o.host,
        "--port",
        str(o.port),
        "--tensor-parallel-size",
        str(o.tensor_parallel),
    ]
    if o.max_model_len:
        cmd += ["--max-model-len", str(o.max_model_len)]
    if o.served_name:
        cmd += ["--served-model-name", o.served_name]
    return cmd + list(o.extra_args)


def list_models(api_base: str, timeout_s: float = 5.0) -> list[str]:
    """The model ids an OpenAI-compatible server offers at `api_base` (…/v1)."""
    return [m["id"] for m in _model_cards(api_base, timeout_s)]


def _model_cards(api_base: str, timeout_s: float) -> list[dict]:
    response = httpx.get(f"{api_base.rstrip('/')}/models", timeout=timeout_s)
    response.raise_for_status()
    return list(response.json().get("data", []))


@dataclass(frozen=True)
class ServerInfo:
    """What runs at an api_base: `vllm`, `llama.cpp` or `openai-compatible` (any other), and its model ids."""

    kind: str
    models: list[str]

    @property
    def provider(self) -> str:
        """The litellm provider prefix for this server's models."""
        return "hosted_vllm" if self.kind == "vllm" else "openai"


def inspect_server(api_base: str, timeout_s: float = 5.0) -> ServerInfo:
    """The server's kind and models, from its `/v1/models` (`owned_by`) and, failing that, llama.cpp's `/props`."""
    cards = _model_cards(api_base, timeout_s)
    owners = {str(c.get("owned_by", "")).lower() for c in cards}
    if "vllm" in owners:
        kind = "vllm"
    elif owners & {"llamacpp", "llama.cpp"} or _answers_llamacpp_props(api_base, timeout_s):
        kind = "llama.cpp"
    else:
        kind = "openai-compatible"
    return ServerInfo(kind, [c["id"] for c in cards])


def _answers_llamacpp_props(api_base: str, timeout_s: float) -> bool:
    """llama.cpp's server answers `GET /props` (beside `/v1`) with its slots and default generation settings."""
    root = api_base.rstrip("/").removesuffix("/v1")
    try:
        response = httpx.get(f"{root}/props", timeout=timeout_s)
        body = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return False
    return isinstance(body, dict) and ("default_generation_settings" in body or "total_slots" in body)


PROBE_TIMEOUT_S = 2.0  # per request of `server_limits`: a server that answers at all answers these at once


@dataclass(frozen=True)
class ServerLimits:
    """What a server reports of its capacity: the context (tokens a request may hold, prompt and reply) and its
    parallel slots (requests decoded at once); None where it says nothing. `source`: where it said it."""

    context: int | None = None
    slots: int | None = None
    source: str = ""
    reachable: bool = True  # False: no connection to any URL asked (refused, no such host, connect timeout)

    def describe(self) -> str:
        """One line: what was found, and where."""
        if self.context is None and self.slots is None:
            return f"reports neither its context size nor its parallel slots ({self.source or 'no answer'})"
        found = [f"context {self.context:,} tokens" if self.context else "context not reported"]
        found.append(f"{self.slots} parallel slots" if self.slots else "parallel slots not reported")
        return f"{', '.join(found)} ({self.source})"


def _count(value: object) -> int | None:
    """A positive integer a server reported, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def server_limits(api_base: str, model_id: str | None = None, timeout_s: float = PROBE_TIMEOUT_S) -> ServerLimits:
    """The context size and parallel slots the server at `api_base` (…/v1) reports: llama.cpp's `GET /props`
    (beside `/v1`: `default_generation_settings.n_ctx`, `total_slots`), else vLLM's `GET /v1/models`
    (`max_model_len` of `model_id`'s card, or the smallest of them; vLLM reports no slot count). Never raises: a
    server that does not answer, or answers neither, gives a `ServerLimits` of Nones saying why (`reachable`
    False when neither URL could be connected to; a server that accepts and is slow to answer is reachable)."""
    base = api_base.rstrip("/")
    props_url, models_url = f"{base.removesuffix('/v1')}/props", f"{base}/models"
    why, answered = [], False
    for url in (props_url, models_url):
        try:
            response = httpx.get(url, timeout=timeout_s)
            answered = True
            body = response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError) as err:
            why.append(f"{url}: {type(err).__name__}")
            answered = answered or not isinstance(err, httpx.ConnectError | httpx.ConnectTimeout)
            continue
        if not isinstance(body, dict):
            why.append(f"{url}: HTTP {response.status_code}")
            continue
        if url == props_url:
            settings = body.get("default_generation_settings")
            context = _count(settings.get("n_ctx")) if isinstance(settings, dict) else None
            slots = _count(body.get("total_slots"))
            if context or slots:
                return ServerLimits(context, slots, f"llama.cpp {url}")
            why.append(f"{url}: neither n_ctx nor total_slots")
            continue
        cards = [c for c in body.get("data") or [] if isinstance(c, dict)]
        lengths = {str(c.get("id")): n for c in cards if (n := _count(c.get("max_model_len")))}
        if lengths:
            context = lengths.get(model_id or "", min(lengths.values()))
            return ServerLimits(context, None, f"vLLM {url} max_model_len")
        why.append(f"{url}: no max_model_len")
    return ServerLimits(source="; ".join(why), reachable=answered)


def port_in_use(host: str, port: int) -> bool:
    """Whether something already listens on host:port (a server started there would fail or be shadowed)."""
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex((host, port)) == 0


def wait_until_ready(api_base: str, *, timeout_s: float, process: subprocess.Popen | None = None) -> list[str]:
    """Poll `/v1/models` until it answers; fail early if the server process exits."""
    deadline = time.monotonic() + timeout_s
    last_error = "no answer yet"
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server process exited with code {process.returncode} before it was ready")
        try:
            return list_models(api_base, timeout_s=2.0)
        except (httpx.HTTPError, ValueError) as e:
            last_error = f"{type(e).__name__}: {e}"
        time.sleep(0.5)
    raise TimeoutError(f"{api_base}/models did not answer within {timeout_s:.0f} s ({last_error})")


def params_snippet(name: str, model_id: str, api_base: str, provider: str = "hosted_vllm") -> str:
    """The params.yaml entry that points an agent at a served model (`provider`: see `ServerInfo.provider`)."""
    alias = "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_")
    return f"  {alias}:\n    model: {provider}/{model_id}\n    api_base: {api_base}\n"
