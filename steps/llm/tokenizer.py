"""A served model's own tokenizer, through its server's `/tokenize` and `/detokenize` endpoints (beside `/v1`).

Two servers expose them, with different bodies:

- vLLM: `POST /tokenize {"model", "prompt", "add_special_tokens"}` answers `{"count", "max_model_len", "tokens"}`;
  `POST /detokenize {"model", "tokens"}` answers `{"prompt"}`.
- llama.cpp: `POST /tokenize {"content", "add_special"}` answers `{"tokens"}` (token ids);
  `POST /detokenize {"tokens"}` answers `{"content"}`.

`server_tokenizer` tells the kind from the server's `/v1/models` (steps.llm.vllm.inspect_server) and returns a
`ServerTokenizer`, or None when the model has no server (an API provider), the server is another kind, or its
`/tokenize` does not answer. Special tokens (BOS) are never added: the count is the text's own tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from steps.llm.config import ModelConfig
from steps.llm.vllm import inspect_server

TIMEOUT_S = 30.0
ATTEMPTS = 3  # a tokenize call is cheap and idempotent: a transient failure is retried at once


class TokenizerError(RuntimeError):
    """The server's `/tokenize` or `/detokenize` failed after retries, or answered in an unknown shape."""


@dataclass
class ServerTokenizer:
    """Tokenize and detokenize with the model a vLLM or llama.cpp server serves (`kind`: `vllm` or `llama.cpp`)."""

    root: str  # the server's address without `/v1`
    kind: str
    model_id: str
    timeout_s: float = TIMEOUT_S
    _client: httpx.Client = field(default_factory=lambda: httpx.Client(), repr=False)

    @property
    def rule(self) -> str:
        """How the tokens were counted, as run records and predictions tables name it."""
        return f"{self.kind} /tokenize"

    def _post(self, path: str, body: dict) -> dict:
        last: Exception | None = None
        for _ in range(ATTEMPTS):
            try:
                response = self._client.post(f"{self.root}{path}", json=body, timeout=self.timeout_s)
                response.raise_for_status()
                answer = response.json()
                if isinstance(answer, dict):
                    return answer
                last = TokenizerError(f"{self.root}{path} answered {type(answer).__name__}, not an object")
            except (httpx.HTTPError, ValueError) as err:
                last = err
        raise TokenizerError(f"{self.root}{path} failed {ATTEMPTS} times: {last}") from last

    def encode(self, text: str) -> list[int]:
        """The token ids of `text`, without special tokens."""
        if self.kind == "vllm":
            body: dict = {"model": self.model_id, "prompt": text, "add_special_tokens": False}
        else:
            body = {"content": text, "add_special": False}
        tokens = self._post("/tokenize", body).get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
            raise TokenizerError(f"{self.root}/tokenize answered no list of token ids")
        return tokens

    def decode(self, tokens: list[int]) -> str:
        """The text of `tokens`."""
        if self.kind == "vllm":
            text = self._post("/detokenize", {"model": self.model_id, "tokens": tokens}).get("prompt")
        else:
            text = self._post("/detokenize", {"tokens": tokens}).get("content")
        if not isinstance(text, str):
            raise TokenizerError(f"{self.root}/detokenize answered no text")
        return text

    def close(self) -> None:
        self._client.close()


def served_model_id(model: ModelConfig) -> str:
    """The model id the server knows: the litellm model string without its provider prefix."""
    return model.model.split("/", 1)[1] if "/" in model.model else model.model


def server_tokenizer(model: ModelConfig, timeout_s: float = 5.0) -> ServerTokenizer | None:
    """The tokenizer of the server `model` is served by, when it is vLLM or llama.cpp and its `/tokenize` answers
    (a replica list: the first replica, the replicas serving the same model); otherwise None."""
    if model.is_scripted or not model.api_base:
        return None
    api_base = model.api_base[0] if isinstance(model.api_base, list) else model.api_base
    try:
        kind = inspect_server(api_base, timeout_s).kind
    except (httpx.HTTPError, ValueError):
        return None
    if kind not in ("vllm", "llama.cpp"):
        return None
    root = api_base.rstrip("/").removesuffix("/v1")
    tokenizer = ServerTokenizer(root, kind, served_model_id(model))
    try:
        tokenizer.encode("法")  # the endpoint answers, in the expected shape
    except TokenizerError:
        tokenizer.close()
        return None
    return tokenizer
